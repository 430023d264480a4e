import Foundation

/// A fresh directory under the system's temporary directory, for one test: made by ``init(_:)``,
/// removed with everything in it by ``remove()`` (or by ``with(_:_:)`` when its body returns).
public struct TemporaryDirectory: Sendable {
  /// The directory.
  public let url: URL

  /// Creates `<tmp>/hybridai-<prefix>-<UUID>`.
  public init(_ prefix: String = "test") throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("hybridai-\(prefix)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// The path of `relativePath` inside the directory.
  public func appending(_ relativePath: String) -> URL { url.appendingPathComponent(relativePath) }

  /// Removes the directory and everything in it.
  public func remove() { try? FileManager.default.removeItem(at: url) }

  /// Runs `body` with a fresh directory and removes it afterwards, whatever happens.
  public static func with<T>(_ prefix: String = "test", _ body: (TemporaryDirectory) async throws -> T) async throws -> T {
    let directory = try TemporaryDirectory(prefix)
    defer { directory.remove() }
    return try await body(directory)
  }
}
