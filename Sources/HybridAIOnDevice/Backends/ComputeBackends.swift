import CLinuxExtras
import CLlama
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// llama.cpp's compute backends, loaded at run time from shared libraries (`libggml-cpu.so`,
/// `libggml-cuda.so`, …): from `$HYBRIDAI_BACKENDS_DIR` when set, and from the folder that holds
/// `libggml.so` (`.deps/llama/lib` in a checkout, `lib/` beside `bin/` in a bundle).
///
/// ```swift
/// for device in ComputeBackends.devices { print(device.name, device.description) }
/// ```
///
/// Each backend is loaded once, in its best variant for this machine (the CPU backend may come in
/// several, one per instruction-set level). A library that cannot be opened, is not a ggml backend,
/// or does not run on this machine is skipped with a warning naming it (``skippedLibraries``).
public enum ComputeBackends {
  /// A backend library that was not loaded, and why.
  public struct SkippedLibrary: Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
  }

  /// The outcome of loading, computed once.
  struct LoadReport: Sendable {
    var folders: [String] = []
    var loaded: [String: String] = [:]   // backend name → library path
    var skipped: [SkippedLibrary] = []
  }

  static let logger = Logger(label: "HybridAI.llama.backends")

  /// Loads the backends once; called by the runtime's initialisation.
  static let report: LoadReport = {
    var report = LoadReport()
    report.folders = searchFolders(environment: ProcessInfo.processInfo.environment)
    let best = chooseLibraries(in: report.folders, skipped: &report.skipped)
    for (backend, path) in best.sorted(by: { $0.key < $1.key }) {
      if ggml_backend_load(path) != nil {
        report.loaded[backend] = path
        logger.debug("loaded backend", metadata: ["backend": "\(backend)", "library": "\(path)"])
      } else {
        report.skipped.append(SkippedLibrary(path: path, reason: "ggml refused to register it (built from another llama.cpp version?)"))
      }
    }
    for skipped in report.skipped { logger.warning("skipped backend library \(skipped)") }
    if report.loaded.isEmpty {
      logger.error("no compute backend loaded", metadata: ["folders": "\(report.folders.joined(separator: ", "))"])
    }
    return report
  }()

  /// The folders searched, in order: `$HYBRIDAI_BACKENDS_DIR`, then `libggml.so`'s own folder.
  public static var folders: [String] {
    LlamaRuntime.ensureInitialised()
    return report.folders
  }

  /// The backend libraries loaded, by backend name (`cpu`, `cuda`, …).
  public static var loadedLibraries: [String: String] {
    LlamaRuntime.ensureInitialised()
    return report.loaded
  }

  /// Libraries found in the folders but not loaded, with the reason.
  public static var skippedLibraries: [SkippedLibrary] {
    LlamaRuntime.ensureInitialised()
    return report.skipped
  }

  /// Every device of the loaded backends, in the order llama.cpp registered them.
  public static var devices: [ComputeDevice] {
    LlamaRuntime.ensureInitialised()
    return (0..<ggml_backend_dev_count()).compactMap { device(ggml_backend_dev_get($0)) }
  }

  /// The folders to search: `$HYBRIDAI_BACKENDS_DIR` (if set) and the folder of the loaded `libggml`,
  /// without duplicates.
  static func searchFolders(environment: [String: String]) -> [String] {
    var folders: [String] = []
    if let custom = environment["HYBRIDAI_BACKENDS_DIR"], !custom.isEmpty { folders.append(custom) }
    if let own = folderOfLoadedGGML() { folders.append(own) }
    var seen = Set<String>()
    return folders.filter { seen.insert(URL(fileURLWithPath: $0).resolvingSymlinksInPath().path).inserted }
  }

  /// The backend libraries to load: per backend name, the variant with the best score for this
  /// machine across all folders (earlier folders win ties).
  static func chooseLibraries(in folders: [String], skipped: inout [SkippedLibrary]) -> [String: String] {
    var best: [String: (path: String, score: Int32)] = [:]
    for folder in folders {
      let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
      for name in names {
        guard let backend = backendName(ofLibrary: name) else { continue }
        let path = URL(fileURLWithPath: folder).appendingPathComponent(name).path
        switch probe(path) {
        case .failure(let failure):
          skipped.append(SkippedLibrary(path: path, reason: failure.reason))
        case .success(let score) where score == 0:
          logger.debug("backend variant does not run on this machine", metadata: ["library": "\(path)"])
        case .success(let score):
          if let current = best[backend], current.score >= score { continue }
          best[backend] = (path, score)
        }
      }
    }
    return best.mapValues(\.path)
  }

  /// `cpu` for `libggml-cpu.so` or `libggml-cpu-haswell.so`, `cuda` for `libggml-cuda.so`; `nil`
  /// for anything else (including `libggml-base.so` and versioned names such as `libggml.so.0`).
  static func backendName(ofLibrary fileName: String) -> String? {
    guard fileName.hasPrefix("libggml-"), fileName.hasSuffix(".so") else { return nil }
    let stem = fileName.dropFirst("libggml-".count).dropLast(".so".count)
    guard let name = stem.split(separator: "-").first.map(String.init), !name.isEmpty, name != "base" else { return nil }
    return name
  }

  private struct ProbeFailure: Error { let reason: String }

  /// Opens the library to check it is a ggml backend and ask how well it suits this machine
  /// (its `ggml_backend_score`; a backend without one scores 1). Closes it again.
  private static func probe(_ path: String) -> Result<Int32, ProbeFailure> {
    guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
      let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
      return .failure(ProbeFailure(reason: "cannot be opened (\(reason))"))
    }
    defer { dlclose(handle) }
    guard dlsym(handle, "ggml_backend_init") != nil else {
      return .failure(ProbeFailure(reason: "not a ggml backend (no ggml_backend_init)"))
    }
    guard let scoreSymbol = dlsym(handle, "ggml_backend_score") else { return .success(1) }
    typealias ScoreFunction = @convention(c) () -> Int32
    return .success(unsafeBitCast(scoreSymbol, to: ScoreFunction.self)())
  }

  /// The folder of the `libggml` this process linked, found from one of its symbols.
  private static func folderOfLoadedGGML() -> String? {
    let symbol: @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer? = ggml_backend_load
    guard let file = hybridai_library_path_of(unsafeBitCast(symbol, to: UnsafeRawPointer.self)) else { return nil }
    return URL(fileURLWithPath: String(cString: file)).resolvingSymlinksInPath().deletingLastPathComponent().path
  }

  /// The ggml device of this name (case-insensitive), if a loaded backend has it.
  static func handle(named name: String) -> ggml_backend_dev_t? {
    LlamaRuntime.ensureInitialised()
    return (0..<ggml_backend_dev_count()).map { ggml_backend_dev_get($0) }.first { device in
      device.map { String(cString: ggml_backend_dev_name($0)).lowercased() == name.lowercased() } ?? false
    } ?? nil
  }

  private static func device(_ handle: ggml_backend_dev_t?) -> ComputeDevice? {
    guard let handle else { return nil }
    var free = 0, total = 0
    ggml_backend_dev_memory(handle, &free, &total)
    let kind: ComputeDevice.Kind
    switch ggml_backend_dev_type(handle) {
    case GGML_BACKEND_DEVICE_TYPE_CPU: kind = .cpu
    case GGML_BACKEND_DEVICE_TYPE_GPU: kind = .gpu
    case GGML_BACKEND_DEVICE_TYPE_IGPU: kind = .integratedGPU
    default: kind = .accelerator
    }
    let backend = ggml_backend_dev_backend_reg(handle).map { String(cString: ggml_backend_reg_name($0)) } ?? "?"
    return ComputeDevice(
      name: String(cString: ggml_backend_dev_name(handle)),
      description: String(cString: ggml_backend_dev_description(handle)).trimmingCharacters(in: .whitespaces),
      backend: backend, kind: kind, freeMemory: UInt64(free), totalMemory: UInt64(total))
  }
}
