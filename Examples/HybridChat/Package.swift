// swift-tools-version: 6.1
// A consumer of HybridAI with a hybrid session: the on-device model (llama.cpp, found through the
// pkg-config file `hybridai-llama`; see the README's "Use HybridAI in your package") and a cloud
// model behind it (the Gemini API, or `hybrid serve`'s Gemini-compatible one).
import PackageDescription

let package = Package(
  name: "HybridChat",
  platforms: [.macOS(.v15)],
  dependencies: [
    // In your package: .package(url: "https://github.com/hybridai/hybridai", from: "0.9.0")
    .package(name: "HybridAI", path: "../.."),
  ],
  targets: [
    .executableTarget(
      name: "HybridChat",
      dependencies: [
        .product(name: "HybridAI", package: "HybridAI"),
        .product(name: "HybridAIOnDevice", package: "HybridAI"),
        .product(name: "HybridAIGemini", package: "HybridAI"),
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]),
  ]
)
