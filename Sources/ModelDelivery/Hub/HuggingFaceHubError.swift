/// Why a model could not be fetched from the Hugging Face Hub.
public enum HuggingFaceHubError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The Hub has no such repository (or hides a private one from this token).
  case repositoryNotFound(String)
  /// The repository has no such branch, tag or commit.
  case revisionNotFound(repository: String, revision: String)
  /// The repository is gated or private and no token was given, or the token is not valid (`401`).
  case authenticationRequired(repository: String, message: String)
  /// The token may not read this repository: access to a gated model not granted yet (`403`).
  case accessDenied(repository: String, message: String)
  /// The revision holds no GGUF model.
  case noModel(repository: String, revision: String)
  /// The revision has no GGUF of the quantization asked for; `available` lists the ones it has.
  case quantizationNotFound(ModelReference, available: [String])
  /// `HF_HUB_OFFLINE` is set and the cache does not hold the model.
  case offlineAndNotCached(ModelReference)
  /// The Hub answered with an unexpected status.
  case serverError(status: Int, message: String)
  /// The Hub's answer does not follow its API.
  case invalidResponse(String)
  /// Transferring a file failed (offline, interrupted, a hash that does not match, a full disk).
  case transferFailed(file: String, ModelDownloadError)

  public var description: String {
    switch self {
    case .repositoryNotFound(let repository): "the Hugging Face Hub has no repository \(repository)"
    case .revisionNotFound(let repository, let revision): "\(repository) has no revision \(revision)"
    case .authenticationRequired(let repository, let message):
      "\(repository) needs a Hugging Face token (set HF_TOKEN or run `hf auth login`): \(message)"
    case .accessDenied(let repository, let message):
      "the token may not read \(repository) (ask for access on its page): \(message)"
    case .noModel(let repository, let revision): "\(repository)@\(revision) holds no GGUF model"
    case .quantizationNotFound(let reference, let available):
      "\(reference): no GGUF of that quantization; the repository has "
        + (available.isEmpty ? "none" : available.joined(separator: ", "))
    case .offlineAndNotCached(let reference): "offline (HF_HUB_OFFLINE) and not in the cache: \(reference)"
    case .serverError(let status, let message): "the Hugging Face Hub answered HTTP \(status): \(message)"
    case .invalidResponse(let reason): "unexpected answer from the Hugging Face Hub: \(reason)"
    case .transferFailed(let file, let error): "downloading \(file) failed: \(error)"
    }
  }
}
