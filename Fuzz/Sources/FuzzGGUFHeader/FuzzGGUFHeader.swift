// GGUF files → what HybridAI reads from a model file before loading any weights: its
// architecture (`GGUFArchitecture.ofFile(atPath:)`) and the on-device model's availability check,
// whose header check (GGUFFileCheck, internal) reads the tensor table with ggml's GGUF reader,
// checks every tensor lies inside the file and reads the model's shape, which the offload planner
// then sizes (`SystemLanguageModel.availability`, `placement()`).
//
// Both take a path: the input is written to one file per process (reused), under a modification
// time of its own each time, since the header check caches its result per (path, size,
// modification time). That cache keeps one small entry per input, so very long runs grow slowly.
import Foundation
import FuzzDriver
import HybridAIOnDevice
import Logging

@_cdecl("FuzzGGUFHeader_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

/// llama.cpp's messages about corrupt files go to swift-log (`HybridAI.llama`): silenced, once.
private let quietLogging: Void = LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }

private let modelPath = NSTemporaryDirectory() + "hybridai-fuzz-\(ProcessInfo.processInfo.processIdentifier).gguf"
private let modelURL = URL(fileURLWithPath: modelPath)
private nonisolated(unsafe) var modificationTime: TimeInterval = 1_000_000_000

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  _ = quietLogging
  let data = Data(UnsafeRawBufferPointer(start: start, count: count))
  guard (try? data.write(to: modelURL)) != nil else { return 0 }
  modificationTime += 1
  _ = try? FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: modificationTime)],
                                             ofItemAtPath: modelPath)

  _ = GGUFArchitecture.ofFile(atPath: modelPath)
  // Without the magic the check stops at the first 4 bytes: skip it (and its cache entry).
  guard data.starts(with: Array("GGUF".utf8)) else { return 0 }
  let model = SystemLanguageModel(modelPath: modelPath)
  _ = model.availabilityDetail
  _ = try? model.placement()
  return 0
}
