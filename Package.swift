// swift-tools-version: 6.1
//
// HybridAI — hybrid (on-device + cloud) generative AI for Swift on Linux.
//
// Module map (see docs/architecture.md):
//   HybridAI          core: LanguageModel protocol, sessions, options, transcript, guided generation
//                     (Generable, GenerationSchema, the @Generable / @Guide macros). No native code.
//   HybridAIMacros    compiler plugin providing @Generable and @Guide and their expansions (swift-syntax).
//   CLlama            system library: llama.h from scripts/bootstrap (pkg-config `hybridai-llama`).
//   CLlamaChatTemplates  C API over llama.cpp's `common` chat templates (Jinja rendering, tool-call parsing).
//   HybridAIOnDevice  SystemLanguageModel on llama.cpp, in process; BatchedLanguageModel for servers.
//   HybridAIFileStorage  storage on the file system: FileArtifactStore (a session's artifacts as files),
//                     content-addressed blobs (FileSystemBlobStore) shared by the registry and the downloader.
//   HybridAIHTTP      what HybridAI's HTTP clients share: which transport errors mean "offline",
//                     the pooled clients, server-sent events.
//   HybridAIWire      the wire contract shared by servers and clients: Google's error envelope, the
//                     model registry's records and identifier rules (Foundation only).
//   HybridAIGeminiWire  the Gemini API's wire types and conversions (Foundation only, no HTTP client).
//   HybridAIGemini    GeminiModel over the Gemini REST API (AsyncHTTPClient): SSE, errors, retries.
//   HybridAIOpenAIWire  the OpenAI API's wire types and conversions both ways (Foundation only).
//   HybridAIOpenAI    OpenAIModel: a client for any OpenAI-compatible server.
//   HybridAIServing   what every product of `hybrid serve` shares (Hummingbird): HybridServer, which
//                     composes ServerComponents on one port; Google errors; API keys; configuration.
//   HybridAIRegistry  the model registry (RegistryAPI): SQLite via GRDB or PostgreSQL via PostgresNIO,
//                     content-addressed blobs, signed download URLs, roll-outs, its OpenAPI document.
//                     No llama.cpp.
//   HybridAIServer    inference endpoints (GeminiCompatibleAPI, OpenAICompatibleAPI) for any LanguageModel
//                     (hybrid serve gives them llama.cpp with continuous batching). No llama.cpp.
//   HybridAIChatApp   the web chat of `hybrid serve`: its sessions API (ChatApp, ChatSessions over SessionStore,
//                     answers as typed server-sent events). No llama.cpp: it takes any LanguageModel.
//   ModelDelivery     ModelDownloader: custom models from the registry to the device (resumable, verified).
//   HybridAIProcess   ChildProcess: the one way to run a program (swift-subprocess).
//   CLinuxExtras      C: Linux calls Swift's Glibc module lacks (sync_file_range, mallopt, dladdr, xattrs), a signal-to-pipe handler.
//   HybridAITools     built-in tools that make artifacts: speech (espeak-ng), person masks (TFLite), files.
//   HybridAIMCP       tools from Model Context Protocol servers (stdio child processes, Streamable HTTP), on the official Swift SDK.
//   HybridAIPersistence  SessionStore: sessions, transcripts and their artifacts in SQLite (GRDB).
//   CLiteRT           C declarations of the LiteRT C API calls TFLite makes; loads libLiteRt.so with dlopen.
//   TFLite            Interpreter (TensorFlowLiteSwift's API) on Google's LiteRT runtime, CPU/XNNPACK.
//   CImageCodecs      C: PNG/JPEG decode and encode on the system libpng and libjpeg-turbo, errors contained.
//   TFLiteImage       Bitmap: decode PNG/JPEG, resize, RGB → tensor bytes, float mask → PNG (no TFLite dependency).
//   HybridCommandLine what the executables share: logging, status lines, terminal output. No llama.cpp.
//   HybridOnDeviceCommandLine  the on-device model's options (--model, --gpu-layers, --chat-template).
//   HybridAIBenchmarks (Benchmarks/)  benchmark suites; hybrid-bench (Benchmarks/) runs them (`hybrid bench` forwards).
//   hybrid            the command-line tool.
//   hybrid-registry   the model registry alone: links neither llama.cpp nor LiteRT.
//   HybridAITestSupport (Tests/)  test-only: the scripted model, temporary folders, seeded randomness, logging.
//   HybridAIServerTestSupport (Tests/)  test-only: servers on loopback or in memory, the registry, PostgreSQL.
import CompilerPluginSupport
import PackageDescription

let strictSwift: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
]

/// Where scripts/bootstrap installs llama.cpp's shared libraries; linked executables and tests find
/// them through this rpath (`make bundle` rewrites it to `$ORIGIN/../lib`).
let llamaPrefix = (Context.environment["HYBRIDAI_DEPS_DIR"] ?? Context.packageDirectory + "/.deps") + "/llama"
let llamaLibraryFolder = llamaPrefix + "/lib"
/// Built from a checkout (this repository, or the Examples beside it, which depend on it by path), the
/// on-device targets add the rpath above. A package that depends on HybridAI by URL builds it from
/// SwiftPM's `.build*/checkouts/` folder and gets no rpath: it finds llama.cpp through pkg-config alone
/// (scripts/install-llama puts it in a prefix), as SwiftPM refuses unsafe flags in dependencies.
let packageFolders = Context.packageDirectory.split(separator: "/")
let isDependencyCheckout = packageFolders.count >= 3 && packageFolders[packageFolders.count - 2] == "checkouts"
  && packageFolders[packageFolders.count - 3].hasPrefix(".build")
let llamaRpath: [LinkerSetting] = isDependencyCheckout
  ? [] : [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", llamaLibraryFolder])]

let package = Package(
  name: "HybridAI",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "HybridAI", targets: ["HybridAI"]),
    .library(name: "HybridAIFileStorage", targets: ["HybridAIFileStorage"]),
    .library(name: "HybridAIOnDevice", targets: ["HybridAIOnDevice"]),
    .library(name: "HybridAIGemini", targets: ["HybridAIGemini"]),
    .library(name: "HybridAIGeminiWire", targets: ["HybridAIGeminiWire"]),
    .library(name: "HybridAIOpenAI", targets: ["HybridAIOpenAI"]),
    .library(name: "HybridAIOpenAIWire", targets: ["HybridAIOpenAIWire"]),
    .library(name: "HybridAIWire", targets: ["HybridAIWire"]),
    .library(name: "HybridAIServing", targets: ["HybridAIServing"]),
    .library(name: "HybridAIRegistry", targets: ["HybridAIRegistry"]),
    .library(name: "HybridAIServer", targets: ["HybridAIServer"]),
    .library(name: "HybridAIChatApp", targets: ["HybridAIChatApp"]),
    .library(name: "ModelDelivery", targets: ["ModelDelivery"]),
    .library(name: "HybridAITools", targets: ["HybridAITools"]),
    .library(name: "HybridAIMCP", targets: ["HybridAIMCP"]),
    .library(name: "HybridAIPersistence", targets: ["HybridAIPersistence"]),
    .library(name: "TFLite", targets: ["TFLite"]),
    .library(name: "TFLiteImage", targets: ["TFLiteImage"]),
    .executable(name: "hybrid", targets: ["hybrid"]),
    .executable(name: "hybrid-bench", targets: ["hybrid-bench"]),
    .executable(name: "hybrid-registry", targets: ["hybrid-registry"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    // `hybrid serve`'s config file (JSON or YAML) layered under the environment and the flags.
    .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: [.defaults, "YAML"]),
    .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
  ],
  targets: [
    .target(
      name: "HybridAI",
      dependencies: ["HybridAIMacros", .product(name: "Logging", package: "swift-log")],
      swiftSettings: strictSwift),
    // The macros and their expansions, one module built only for the host. Tests run them through
    // the compiler (Tests/HybridAIMacrosTests), so no target needs swift-syntax: a library target
    // holding the expansions would be built a second time, for the target, with all of swift-syntax.
    .macro(
      name: "HybridAIMacros",
      dependencies: [
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
        .product(name: "SwiftDiagnostics", package: "swift-syntax"),
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
      ],
      swiftSettings: strictSwift),
    // Storage on the file system (the core does no file I/O of its own).
    .target(
      name: "HybridAIFileStorage",
      dependencies: ["HybridAI"],
      swiftSettings: strictSwift),
    .systemLibrary(
      name: "CLlama",
      pkgConfig: "hybridai-llama",
      providers: [.apt(["(run scripts/bootstrap: it builds llama.cpp into .deps/llama)"])]),
    .target(
      name: "HybridAIOnDevice",
      dependencies: [
        "HybridAI", "CLlama", "CLlamaChatTemplates", "CLinuxExtras", .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSwift,
      linkerSettings: llamaRpath),
    // llama.cpp's `common` chat templates (Jinja, tool-call formats) behind a C API; C++ inside,
    // compiled against llama.cpp's common headers (pkg-config `hybridai-llama`: its llama-common folder).
    .target(
      name: "CLlamaChatTemplates",
      dependencies: ["CLlama"],
      linkerSettings: llamaRpath),
    .target(
      name: "HybridAIHTTP",
      dependencies: [
        "HybridAI",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSwift),
    .target(
      name: "HybridAIWire",
      dependencies: ["HybridAI"],
      swiftSettings: strictSwift),
    // The Gemini API's wire types and their conversions to and from HybridAI's requests and answers:
    // Foundation only, no HTTP client, shared by GeminiModel and the server's Gemini endpoints.
    .target(
      name: "HybridAIGeminiWire",
      dependencies: ["HybridAI", "HybridAIWire"],
      swiftSettings: strictSwift),
    .target(
      name: "HybridAIGemini",
      dependencies: [
        "HybridAI", "HybridAIGeminiWire", "HybridAIHTTP", "HybridAIWire",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSwift),
    .target(
      name: "HybridAIServing",
      dependencies: [
        "HybridAI", "HybridAIWire", "CLinuxExtras",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSwift),
    // The model registry: no llama.cpp, no on-device module (a registry-only deployment links neither).
    .target(
      name: "HybridAIRegistry",
      dependencies: [
        "HybridAI", "HybridAIFileStorage", "HybridAIWire", "HybridAIServing",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
      ],
      resources: [.copy("openapi.yaml")],
      swiftSettings: strictSwift),
    // The OpenAI API's wire types and their conversions both ways: Foundation only, no HTTP client,
    // shared by OpenAIModel and the server's OpenAI endpoints.
    .target(
      name: "HybridAIOpenAIWire",
      dependencies: ["HybridAI"],
      swiftSettings: strictSwift),
    // OpenAIModel: a client for any OpenAI-compatible server (re-exports the wire types).
    .target(
      name: "HybridAIOpenAI",
      dependencies: [
        "HybridAI", "HybridAIOpenAIWire", "HybridAIHTTP",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSwift),
    .target(
      name: "HybridAIServer",
      dependencies: [
        "HybridAI", "HybridAIFileStorage", "HybridAIGeminiWire", "HybridAIOpenAIWire", "HybridAIHTTP", "HybridAIServing",
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSwift),
    .target(
      name: "HybridAIChatApp",
      dependencies: [
        "HybridAI", "HybridAIPersistence", "HybridAIServing",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      resources: [.copy("Page")],
      swiftSettings: strictSwift),
    .target(
      name: "ModelDelivery",
      dependencies: [
        "HybridAI", "HybridAIFileStorage", "HybridAIHTTP", "HybridAIWire", "HybridAIProcess", "CLinuxExtras",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSwift),
    .target(
      name: "HybridAIProcess",
      dependencies: [.product(name: "Subprocess", package: "swift-subprocess")],
      swiftSettings: strictSwift),
    // Linux calls Swift's Glibc module does not declare (sync_file_range, mallopt, dladdr), and a
    // signal handler that writes to a pipe.
    .target(name: "CLinuxExtras"),
    // LiteRT is loaded at run time (dlopen), so the package builds without it.
    .target(
      name: "CLiteRT",
      linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
    .target(
      name: "TFLite",
      dependencies: ["CLiteRT"],
      swiftSettings: strictSwift),
    // libpng and libjpeg-turbo from Debian (libpng-dev, libjpeg62-turbo-dev; scripts/bootstrap).
    .target(
      name: "CImageCodecs",
      linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg")]),
    .target(
      name: "TFLiteImage",
      dependencies: ["CImageCodecs"],
      swiftSettings: strictSwift),
    .target(
      name: "HybridAITools",
      dependencies: [
        "HybridAI", "HybridAIProcess", "TFLite", "TFLiteImage", "ModelDelivery",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSwift),
    .target(
      name: "HybridAIMCP",
      dependencies: [
        "HybridAI", "HybridAIProcess", "HybridAIHTTP",
        .product(name: "MCP", package: "swift-sdk"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSwift),
    .target(
      name: "HybridAIPersistence",
      dependencies: [
        "HybridAI", "HybridAIFileStorage",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSwift),
    // What the executables share: logging options, service status lines, terminal output, sibling
    // executables. No llama.cpp (hybrid-registry links it).
    .target(
      name: "HybridCommandLine",
      dependencies: [
        "HybridAI",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSwift),
    // The on-device model's options shared by hybrid and hybrid-bench: --model, --gpu-layers, --device, --chat-template.
    .target(
      name: "HybridOnDeviceCommandLine",
      dependencies: [
        "HybridAI", "HybridAIOnDevice", "HybridCommandLine", "ModelDelivery",
        .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSwift),
    .target(
      name: "HybridAIBenchmarks",
      dependencies: [
        "HybridAI", "HybridAIOnDevice", "HybridAIGemini", "HybridAIOpenAI", "HybridAIHTTP", "HybridAIServing",
        "HybridAIServer", "HybridAIRegistry", "HybridAIProcess", "ModelDelivery", "TFLite",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Benchmarks/HybridAIBenchmarks",
      swiftSettings: strictSwift),
    .executableTarget(
      name: "hybrid-bench",
      dependencies: [
        "HybridAIBenchmarks", "HybridCommandLine", "HybridOnDeviceCommandLine",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Benchmarks/hybrid-bench",
      swiftSettings: strictSwift),
    .executableTarget(
      name: "hybrid",
      dependencies: [
        "HybridAI", "HybridAIFileStorage", "HybridAIOnDevice", "HybridAIGemini", "HybridAIOpenAI", "HybridAIServing", "HybridAIServer",
        "HybridAIRegistry", "HybridAIChatApp", "HybridAIProcess", "ModelDelivery", "HybridAITools", "HybridAIPersistence", "TFLite", "TFLiteImage",
        "HybridCommandLine", "HybridOnDeviceCommandLine", "CLinuxExtras", "HybridAIMCP",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Configuration", package: "swift-configuration"),
        .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "Yams", package: "Yams"),
      ],
      swiftSettings: strictSwift),
    // The model registry alone (custom-model delivery): no llama.cpp, no LiteRT, no image codecs.
    .executableTarget(
      name: "hybrid-registry",
      dependencies: [
        "HybridAI", "HybridAIServing", "HybridAIRegistry", "HybridCommandLine",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
      ],
      swiftSettings: strictSwift),
    // Test support in two layers (not products). The light one: the scripted model, recording
    // tools, temporary folders, the seeded random generator, logging, the repository's files.
    .target(
      name: "HybridAITestSupport",
      dependencies: ["HybridAI", "HybridAIProcess", .product(name: "Logging", package: "swift-log")],
      path: "Tests/HybridAITestSupport",
      swiftSettings: strictSwift),
    // The server layer: running servers (over a socket or in memory), the registry, PostgreSQL,
    // nginx, the HTTP test server and client.
    .target(
      name: "HybridAIServerTestSupport",
      dependencies: [
        "HybridAI", "HybridAIFileStorage", "HybridAITestSupport", "HybridAIProcess", "HybridAIServing", "HybridAIRegistry",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/HybridAIServerTestSupport",
      exclude: ["Schemathesis/schemathesis_run.sh"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAITests",
      dependencies: ["HybridAI", "HybridAIFileStorage", "HybridAITestSupport", "HybridAIProcess", "TFLiteImage"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAIFileStorageTests",
      dependencies: ["HybridAI", "HybridAIFileStorage", "HybridAITestSupport", "HybridAIProcess"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAIProcessTests",
      dependencies: ["HybridAIProcess"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAIMacrosTests",
      // The macros run as the compiler runs them (`swiftc` with the plug-in built for HybridAI),
      // so the tests need no swift-syntax of their own: one copy (the host's) in every build.
      dependencies: ["HybridAI", "HybridAITestSupport", "HybridAIProcess"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAIOnDeviceTests",
      dependencies: ["HybridAI", "HybridAIFileStorage", "HybridAIOnDevice", "HybridAITestSupport"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAIOpenAITests",
      dependencies: ["HybridAI", "HybridAIFileStorage", "HybridAIOpenAI", "HybridAIHTTP", "HybridAITestSupport", "HybridAIServerTestSupport"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAIGeminiTests",
      dependencies: [
        "HybridAI", "HybridAIFileStorage", "HybridAIGemini", "HybridAIHTTP", "HybridAITestSupport", "HybridAIServerTestSupport",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAIServerTests",
      dependencies: [
        "HybridAI", "HybridAIFileStorage", "HybridAIOnDevice", "HybridAIGemini", "HybridAIOpenAI", "HybridAIServing",
        "HybridAIServer", "HybridAIRegistry", "HybridAITestSupport", "HybridAIServerTestSupport", "ModelDelivery",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      exclude: ["Conformance", "Fuzz"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAIChatAppTests",
      dependencies: [
        "HybridAI", "HybridAIChatApp", "HybridAIMCP", "HybridAIOnDevice", "HybridAIPersistence", "HybridAIServing", "HybridAITestSupport",
        "HybridAIServerTestSupport", "HybridAIProcess",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
      ],
      exclude: ["Browser"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAIRegistryTests",
      dependencies: [
        "HybridAI", "HybridAIFileStorage", "HybridAIRegistry", "HybridAIServing", "HybridAIWire", "HybridAITestSupport",
        "HybridAIServerTestSupport",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      exclude: ["registry_fuzz.sh"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAIMCPTests",
      dependencies: ["HybridAI", "HybridAIMCP", "HybridAITestSupport", "HybridAIServerTestSupport", "HybridAIProcess"],
      exclude: ["Servers"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "ModelDeliveryTests",
      dependencies: [
        "HybridAI", "HybridAIFileStorage", "ModelDelivery", "HybridAIOnDevice", "TFLite", "HybridAITestSupport",
        "HybridAIServerTestSupport", "HybridAIProcess",
        "CLinuxExtras",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAIPersistenceTests",
      dependencies: ["HybridAI", "HybridAIPersistence", "HybridAITestSupport"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAIToolsTests",
      dependencies: [
        "HybridAI", "HybridAIFileStorage", "HybridAITools", "TFLite", "TFLiteImage", "ModelDelivery", "HybridAITestSupport",
        "HybridAIServerTestSupport",
        .product(name: "Logging", package: "swift-log"),
      ],
      exclude: ["Reference"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "TFLiteTests",
      dependencies: ["TFLite", "HybridAITestSupport"],
      exclude: ["Reference"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "TFLiteImageTests",
      dependencies: ["TFLiteImage", "CImageCodecs", "HybridAITestSupport"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "hybridTests",
      dependencies: ["hybrid", "HybridAI", "HybridAIFileStorage", "HybridAIOnDevice", "HybridAIServer", "HybridAITools", "TFLiteImage",
                     "HybridCommandLine", "HybridOnDeviceCommandLine", "HybridAIProcess", "HybridAITestSupport", "HybridAIServerTestSupport"],
      swiftSettings: strictSwift),
  ],
  cxxLanguageStandard: .cxx17
)
