/// One file of a repository revision, as the Hub's tree API lists it.
public struct HuggingFaceHubFile: Sendable, Hashable {
  /// The path inside the repository.
  public var path: String
  /// The size in bytes.
  public var size: Int64
  /// The SHA-256 of a file kept in Git LFS (every model file), lowercase hex.
  public var sha256: String?
  /// The Git blob id (SHA-1) of the file, for a file kept in Git itself.
  public var gitBlobID: String?

  /// The blob's name in the cache: the SHA-256 for an LFS file, else the Git blob id (as
  /// huggingface_hub names them).
  var blobName: String? { sha256 ?? gitBlobID }
}
