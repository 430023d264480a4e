import Foundation

/// Paths in this repository and in what `scripts/bootstrap` installs into `.deps/`, for tests
/// that load fixtures, reference scripts, models or the pinned Python tools: the one place every
/// test target finds them.
public enum TestRepository {
  /// A file the tests need that is not there, with what installs it.
  public struct MissingFile: Error, CustomStringConvertible {
    /// The path that was looked for.
    public var path: String
    /// What makes it.
    public var remedy = "run scripts/bootstrap (make test does)"
    public var description: String { "missing \(path): \(remedy)" }
  }

  /// The repository's root directory.
  public static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()   // HybridAITestSupport
    .deletingLastPathComponent()   // Tests
    .deletingLastPathComponent()

  /// `relativePath` inside the repository, e.g. `Sources/HybridAIRegistry/openapi.yaml`.
  public static func file(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

  /// `relativePath` inside `.deps/`, e.g. `venv/bin/python`.
  public static func dependency(_ relativePath: String) -> URL { root.appendingPathComponent(".deps/\(relativePath)") }

  /// The Python of the bootstrap's virtual environment with the pinned clients (`google-genai`, …).
  public static var python: URL { dependency("venv/bin/python") }

  /// The Python of the bootstrap's LiteRT reference environment (`ai-edge-litert`).
  public static var litertPython: URL { dependency("litert-venv/bin/python") }

  /// Where the bootstrap's models are: `$HYBRIDAI_MODELS_DIR` when set and not empty, else `.deps/models`.
  public static var modelsDirectory: URL {
    if let models = ProcessInfo.processInfo.environment["HYBRIDAI_MODELS_DIR"], !models.isEmpty {
      return URL(fileURLWithPath: models, isDirectory: true)
    }
    return dependency("models")
  }

  /// The test model at `relativePath` inside ``modelsDirectory`` (e.g. `tflite/okay_nabu.tflite`),
  /// or ``MissingFile`` when the bootstrap has not installed it.
  public static func model(_ relativePath: String) throws -> URL {
    let url = modelsDirectory.appendingPathComponent(relativePath)
    guard FileManager.default.fileExists(atPath: url.path) else { throw MissingFile(path: url.path) }
    return url
  }

  /// `url` when it is an executable file, else ``MissingFile``.
  public static func requireExecutable(_ url: URL) throws -> URL {
    guard FileManager.default.isExecutableFile(atPath: url.path) else { throw MissingFile(path: url.path) }
    return url
  }

  /// `relativePath` among this package's build products (`.build/<triple>/<configuration>/`, where
  /// the test executable lies), e.g. `hybrid` or `Modules/HybridAI.swiftmodule`; ``MissingFile``
  /// when it was not built.
  public static func builtProduct(_ relativePath: String) throws -> URL {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [directory, directory.deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent()]
      .map { $0.appendingPathComponent(relativePath) }
    guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
      throw MissingFile(path: candidates[0].path, remedy: "build it (swift build --build-tests; make test does)")
    }
    return found
  }

  /// The bootstrap's real photo of a person (scikit-image's astronaut.png, NASA, public domain).
  public static var photo: URL { dependency("photos/astronaut.png") }
}
