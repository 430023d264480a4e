// swift-tools-version: 6.1
//
// HybridAI — hybrid (on-device + cloud) generative AI for Swift on Linux.
//
// Module map (see docs/architecture.md):
//   HybridAI          core: LanguageModel protocol, sessions, options, transcript. No native code.
//   CLlama            system library: llama.h from scripts/bootstrap (pkg-config `hybridai-llama`).
//   HybridAIOnDevice  SystemLanguageModel on llama.cpp, in process.
//   HybridAIBenchmarks (Benchmarks/)  benchmark suites, run by `hybrid bench`.
//   hybrid            the command-line tool.
import PackageDescription

let strictSwift: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
  name: "HybridAI",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "HybridAI", targets: ["HybridAI"]),
    .library(name: "HybridAIOnDevice", targets: ["HybridAIOnDevice"]),
    .executable(name: "hybrid", targets: ["hybrid"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    .target(
      name: "HybridAI",
      dependencies: [.product(name: "Logging", package: "swift-log")],
      swiftSettings: strictSwift),
    .systemLibrary(
      name: "CLlama",
      pkgConfig: "hybridai-llama",
      providers: [.apt(["(run scripts/bootstrap: it builds llama.cpp into .deps/llama)"])]),
    .target(
      name: "HybridAIOnDevice",
      dependencies: ["HybridAI", "CLlama", .product(name: "Logging", package: "swift-log")],
      swiftSettings: strictSwift),
    .target(
      name: "HybridAIBenchmarks",
      dependencies: ["HybridAI", "HybridAIOnDevice", .product(name: "Logging", package: "swift-log")],
      path: "Benchmarks/HybridAIBenchmarks",
      swiftSettings: strictSwift),
    .executableTarget(
      name: "hybrid",
      dependencies: [
        "HybridAI", "HybridAIOnDevice", "HybridAIBenchmarks",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAITests",
      dependencies: ["HybridAI"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "HybridAIOnDeviceTests",
      dependencies: ["HybridAI", "HybridAIOnDevice"],
      swiftSettings: strictSwift),
    .testTarget(
      name: "hybridTests",
      dependencies: ["hybrid"],
      swiftSettings: strictSwift),
  ]
)
