// swift-tools-version: 6.0
//
// HybridAI's fuzz targets: libFuzzer over the parsers that read untrusted input (JSON Schemas, model
// answers from cloud servers, server requests, server-sent events, attachments, images, model
// files, registry identifiers, the API key file).
//
// A package of its own that depends on HybridAI by path, so HybridAI's own `swift build` and
// `swift test` never build it. scripts/fuzz builds it (debug, AddressSanitizer and libFuzzer:
// `-sanitize=fuzzer,address -parse-as-library`) into .build-fuzz and runs one target; Linux only
// (libFuzzer comes with the swift.org toolchains for Linux, not with Xcode's).
//
// Each target is one file that defines `LLVMFuzzerTestOneInput` and `<Target>_main`. SwiftPM
// compiles an executable's entry point as `<Target>_main` and links it back as `main` (so that
// tests can link executables); `-parse-as-library` leaves no entry point, so each target defines
// `<Target>_main` itself, starting libFuzzer (FuzzDriver). Whichever `main` the linker keeps,
// SwiftPM's alias or libFuzzer's own, the process runs libFuzzer.
import PackageDescription

let strictSwift: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
]

/// A product of HybridAI (the package at `..`, named as Examples/ name it).
func hybridAI(_ product: String) -> Target.Dependency {
  .product(name: product, package: "HybridAI")
}

/// One fuzz target: `Sources/<name>/<name>.swift`, linked with libFuzzer. Every module, this one
/// included, gets AddressSanitizer and libFuzzer's coverage counters from scripts/fuzz's flags
/// (`-sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp`: Swift's own
/// `-sanitize=fuzzer` instruments with `trace-pc-guard`, which this libFuzzer refuses); libFuzzer's
/// runtime, which brings a `main` of its own, goes into the fuzz targets only, not into the
/// macro plug-in that the same flags build.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
  .executableTarget(name: name, dependencies: ["FuzzDriver"] + dependencies,
                    swiftSettings: strictSwift + [.unsafeFlags(["-parse-as-library"])],
                    linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])])
}

let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")

let package = Package(
  name: "HybridAIFuzz",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "HybridAI", path: ".."),
    // Already one of HybridAI's dependencies: the targets that reach llama.cpp or the key file
    // silence their logging with it.
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    // `LLVMFuzzerRunDriver`, called from each target's `<Target>_main`.
    .target(name: "FuzzDriver"),

    // JSON Schema (and Gemini's OpenAPI subset) → GBNF grammar.
    fuzzTarget("FuzzSchemaGrammar", [hybridAI("HybridAI"), hybridAI("HybridAIOnDevice"), hybridAI("HybridAIGeminiWire")]),
    // A schema and an instance → JSONSchemaValidator.
    fuzzTarget("FuzzSchemaValidator", [hybridAI("HybridAI")]),
    // Streamed (partial) and complete JSON → GeneratedContent.
    fuzzTarget("FuzzPartialJSON", [hybridAI("HybridAI")]),
    // `<tool_call>` blocks, read with the public pieces the on-device parser is made of.
    fuzzTarget("FuzzToolCallParser", [hybridAI("HybridAI")]),
    // Gemini answers: unary, JSON-array and server-sent-event streams, error envelopes.
    // HybridAIHTTP (ServerSentEventParser) is no product: it comes with HybridAIGemini.
    fuzzTarget("FuzzGeminiResponse", [hybridAI("HybridAI"), hybridAI("HybridAIGeminiWire"), hybridAI("HybridAIGemini")]),
    // OpenAI answers: completions, chunks and their stream, embeddings, errors.
    fuzzTarget("FuzzOpenAIResponse", [hybridAI("HybridAI"), hybridAI("HybridAIOpenAIWire"), hybridAI("HybridAIOpenAI")]),
    // Request bodies of `hybrid serve` (both APIs) and their conversion to HybridAI requests.
    fuzzTarget("FuzzServerRequests", [hybridAI("HybridAI"), hybridAI("HybridAIGeminiWire"), hybridAI("HybridAIOpenAIWire")]),
    // A text/event-stream fed in chunks.
    fuzzTarget("FuzzServerSentEvents", [hybridAI("HybridAIGemini")]),
    // Attachment bytes → media type.
    fuzzTarget("FuzzAttachmentSniffing", [hybridAI("HybridAI")]),
    // Image headers → the dimensions checked before an image is decoded on device.
    fuzzTarget("FuzzImageHeader", [hybridAI("HybridAI")]),
    // PNG and JPEG → Bitmap.
    fuzzTarget("FuzzImageDecoding", [hybridAI("TFLiteImage")]),
    // .tflite bytes → the model validator (LiteRT itself is never loaded).
    fuzzTarget("FuzzTFLiteModel", [hybridAI("TFLite")]),
    // GGUF files → the header checks of the on-device model.
    fuzzTarget("FuzzGGUFHeader", [hybridAI("HybridAIOnDevice"), logging]),
    // Registry identifiers, model references and the registry's JSON records.
    fuzzTarget("FuzzRegistryInput", [hybridAI("HybridAI"), hybridAI("HybridAIFileStorage"), hybridAI("HybridAIWire"), hybridAI("ModelDelivery")]),
    // api-keys.json → APIKeyFile and APIKeyAuthority.
    fuzzTarget("FuzzKeyFile", [hybridAI("HybridAIServing"), logging]),
  ]
)
