import CLiteRT
import Foundation

/// The loaded LiteRT runtime: `libLiteRt.so` opened once per process with `dlopen`, and the table
/// of the C functions ``Interpreter`` calls.
///
/// Loading at run time (rather than linking) keeps the package building and its other modules
/// working on machines without the runtime; a missing or wrong library becomes
/// ``InterpreterError/runtimeUnavailable(reason:)``.
public final class LiteRTRuntime: Sendable {
  /// The C function table. Immutable after loading; the functions themselves are re-entrant for
  /// distinct handles.
  let api: HybridLiteRtApi
  /// The file that was loaded.
  public let libraryPath: String

  private init(api: HybridLiteRtApi, libraryPath: String) {
    self.api = api
    self.libraryPath = libraryPath
  }

  /// The environment variable that names the library file explicitly.
  public static let libraryEnvironmentVariable = "HYBRIDAI_LITERT_LIBRARY"

  /// The runtime, loaded on first use from the first path of ``candidateLibraryPaths(environment:currentDirectory:)``
  /// that exists.
  public static func shared() throws(InterpreterError) -> LiteRTRuntime {
    try loaded.get()
  }

  private static let loaded: Result<LiteRTRuntime, InterpreterError> = {
    let candidates = candidateLibraryPaths()
    let existing = candidates.filter { FileManager.default.fileExists(atPath: $0) }
    guard let path = existing.first else {
      return .failure(.runtimeUnavailable(
        reason: "libLiteRt.so not found (looked at \(candidates.joined(separator: ", "))); "
          + "in a checkout run scripts/bootstrap; elsewhere put it in lib/ beside bin/hybrid or set \(libraryEnvironmentVariable)"))
    }
    return Result { () throws(InterpreterError) -> LiteRTRuntime in try load(path: path) }
  }()

  /// Loads the library at `path` (not cached: ``shared()`` is the one to use).
  static func load(path: String) throws(InterpreterError) -> LiteRTRuntime {
    var api = HybridLiteRtApi()
    var message = [CChar](repeating: 0, count: 1024)
    let status = HybridLiteRtOpen(path, &api, &message, message.count)
    guard status == 0 else {
      let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw .runtimeUnavailable(reason: "cannot load \(path): \(reason)")
    }
    return LiteRTRuntime(api: api, libraryPath: path)
  }

  /// Where the library is looked for, in order: `$HYBRIDAI_LITERT_LIBRARY`; `../lib/libLiteRt.so`
  /// beside the running executable (a relocatable bundle's `lib/`);
  /// `.deps/litert/lib/libLiteRt.so` (where `scripts/bootstrap` puts it) in the current directory
  /// or any parent, then beside the running executable or any parent of it (a `swift build`
  /// product inside the package), then in the package this file was built from;
  /// `~/.cache/hybridai/litert/lib/libLiteRt.so`.
  public static func candidateLibraryPaths(
    environment: [String: String] = ProcessInfo.processInfo.environment,
    currentDirectory: String = FileManager.default.currentDirectoryPath
  ) -> [String] {
    if let explicit = environment[libraryEnvironmentVariable], !explicit.isEmpty { return [explicit] }
    let relative = ".deps/litert/lib/libLiteRt.so"
    var candidates: [String] = []
    if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
      candidates.append(executable.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("lib/libLiteRt.so").standardizedFileURL.path)
    }
    func walkUp(from start: URL) {
      var directory = start.standardizedFileURL
      while true {
        candidates.append(directory.appendingPathComponent(relative).path)
        let parent = directory.deletingLastPathComponent()
        if parent.path == directory.path { break }
        directory = parent
      }
    }
    walkUp(from: URL(fileURLWithPath: currentDirectory))
    if let executable = Bundle.main.executableURL {
      walkUp(from: executable.deletingLastPathComponent())
    }
    // Sources/TFLite/Runtime/LiteRTRuntime.swift → the package root.
    walkUp(from: URL(fileURLWithPath: #filePath).deletingLastPathComponent())
    let home = environment["HOME"] ?? NSHomeDirectory()
    candidates.append((home as NSString).appendingPathComponent(".cache/hybridai/litert/lib/libLiteRt.so"))
    var seen = Set<String>()
    return candidates.filter { seen.insert($0).inserted }
  }
}
