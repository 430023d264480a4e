/// How far fetching a model has come: the file being transferred and the bytes so far of all the
/// files the model needs.
public struct ModelFetchProgress: Sendable, Hashable {
  /// The file being transferred (its path in a Hub repository, or the registry model's name).
  public var file: String
  /// Bytes of the model's files that are on this machine.
  public var receivedBytes: Int64
  /// Bytes of all the model's files, when known.
  public var totalBytes: Int64?

  public init(file: String, receivedBytes: Int64, totalBytes: Int64?) {
    self.file = file
    self.receivedBytes = receivedBytes
    self.totalBytes = totalBytes
  }
}
