// .tflite bytes → `Interpreter(modelData:)`, whose first step is TFLite's model validator (a
// bounds-checked FlatBuffer reader that rejects what would crash LiteRT or ask it for huge
// allocations). The validator is internal; this is its public entry. LiteRT itself is never
// loaded here: the library path is pointed at nothing before the first model, so a model the
// validator passes stops at `runtimeUnavailable` and no fuzzed bytes reach the runtime.
//
// Property: every model is either refused by the validator with a model error (not a TFLite
// model, truncated, invalid, unsupported, a tensor too large) or passed on to the runtime, which
// is unavailable; any other outcome means LiteRT was reached.
import Foundation
import FuzzDriver
import TFLite

@_cdecl("FuzzTFLiteModel_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

/// Points LiteRT's library at a file that does not exist, before anything loads it, and checks that
/// it stays unloaded.
private let liteRTDisabled: Bool = {
  _ = setenv(LiteRTRuntime.libraryEnvironmentVariable, "/nonexistent/hybridai-fuzz/libLiteRt.so", 1)
  if let runtime = try? LiteRTRuntime.shared() {
    fatalError("LiteRT was loaded from \(runtime.libraryPath): the fuzzer must not hand it models")
  }
  return true
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  precondition(liteRTDisabled)
  let data = Data(UnsafeRawBufferPointer(start: start, count: count))
  do {
    _ = try Interpreter(modelData: data)
    fatalError("an interpreter was created: LiteRT was reached")
  } catch {
    switch error {
    case .notATFLiteModel, .truncatedModel, .invalidModel, .unsupportedModel, .tensorTooLarge, .runtimeUnavailable:
      _ = error.description
    default:
      fatalError("the model got past the validator into LiteRT: \(error)")
    }
  }
  return 0
}
