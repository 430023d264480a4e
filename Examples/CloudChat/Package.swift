// swift-tools-version: 6.1
// A consumer of HybridAI that needs no native library: the core and a cloud model (any
// OpenAI-compatible server: OpenAI, `hybrid serve`, llama-server, Ollama, vLLM).
import PackageDescription

let package = Package(
  name: "CloudChat",
  platforms: [.macOS(.v15)],
  dependencies: [
    // In your package: .package(url: "https://github.com/hybridai/hybridai", from: "0.9.0")
    .package(name: "HybridAI", path: "../.."),
  ],
  targets: [
    .executableTarget(
      name: "CloudChat",
      dependencies: [
        .product(name: "HybridAI", package: "HybridAI"),
        .product(name: "HybridAIOpenAI", package: "HybridAI"),
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]),
  ]
)
