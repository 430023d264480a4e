import ArgumentParser
import HybridCommandLine
import ModelDelivery

/// The exit status of a command whose model could not be found or fetched, so a script can tell the
/// causes apart: 3 the disk is too small, 4 the network cannot be used (offline, `HF_HUB_OFFLINE`
/// with nothing cached, a network not allowed), 5 there is no such model (repository, revision, quantization, GGUF, registry
/// name, file), 6 the Hugging Face Hub wants a token or refuses the one given, 1 anything else (a
/// server error, a transfer cut, a file that fails its hash).
enum ModelFetchExitCode {
  /// Ends the command when `error` is about finding or fetching a model: the error on standard
  /// error and its status; any other error is rethrown as it is.
  static func exitIfModelFetchFailure(_ error: any Error) throws -> Never {
    guard let status = status(for: error) else { throw error }
    Terminal.status("error: \(error)")
    throw ExitCode(status)
  }

  /// The status for `error`, or `nil` when it is not about finding or fetching a model.
  static func status(for error: any Error) -> Int32? {
    switch error {
    case let error as HuggingFaceHubError: hubStatus(error)
    case let error as ModelDownloadError: downloadStatus(error)
    case let error as ModelReferenceError: referenceStatus(error)
    default: nil
    }
  }

  static func hubStatus(_ error: HuggingFaceHubError) -> Int32 {
    switch error {
    case .repositoryNotFound, .revisionNotFound, .noModel, .quantizationNotFound: 5
    case .authenticationRequired, .accessDenied: 6
    case .offlineAndNotCached: 4
    case .transferFailed(_, let failure): downloadStatus(failure)
    case .serverError, .invalidResponse: 1
    }
  }

  static func downloadStatus(_ error: ModelDownloadError) -> Int32 {
    switch error {
    case .notEnoughSpace: 3
    case .cellularNotAllowed, .offline: 4
    case .modelNotFound: 5
    default: 1
    }
  }

  static func referenceStatus(_ error: ModelReferenceError) -> Int32 {
    switch error {
    case .notFound, .quantizationNotFound: 5
    case .malformed, .damaged: 1
    }
  }
}
