import Foundation

/// Paths in this repository and in what `scripts/bootstrap` installs into `.deps/`, for tests
/// that load fixtures, reference scripts, models or the pinned Python tools.
public enum TestRepository {
  /// The repository's root directory.
  public static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()   // HybridAITestSupport
    .deletingLastPathComponent()   // Tests
    .deletingLastPathComponent()

  /// `relativePath` inside the repository, e.g. `Sources/HybridAIRegistry/openapi.yaml`.
  public static func file(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

  /// `relativePath` inside `.deps/`, e.g. `venv/bin/python`.
  public static func dependency(_ relativePath: String) -> URL { root.appendingPathComponent(".deps/\(relativePath)") }

  /// Where the bootstrap's models are: `$HYBRIDAI_MODELS_DIR`, else `.deps/models`.
  public static var modelsDirectory: URL {
    ProcessInfo.processInfo.environment["HYBRIDAI_MODELS_DIR"].map { URL(fileURLWithPath: $0, isDirectory: true) }
      ?? dependency("models")
  }
}
