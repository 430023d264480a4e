import ArgumentParser
import Foundation
import HybridAIOnDevice
import HybridCommandLine
import HybridOnDeviceCommandLine

/// `hybrid devices` — the compute backends and devices llama.cpp found, and where a model would run.
struct DevicesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "devices",
    abstract: "List the compute devices (CPU, GPUs) and where the model's layers would run.",
    discussion: """
      Backends are loaded from $HYBRIDAI_BACKENDS_DIR and from the folder that holds libggml.so
      (.deps/llama/lib in a checkout, lib/ in a bundle). Build a GPU backend with
      scripts/bootstrap --gpu cuda, or scripts/build-backend cuda beside a bundle.
      Example: hybrid devices --gpu-layers auto --context-size 8192
      """)

  @OptionGroup var model: ModelOptions

  @Flag(name: .long, help: "Print one JSON object (backends, devices, placement).")
  var json = false

  func run() throws {
    let devices = ComputeBackends.devices
    let system = try model.makeModel()
    let placement = Result { try system.placement() }
    if json {
      try printJSON(devices: devices, model: system, placement: placement)
      return
    }
    var lines = ["Backends from: \(ComputeBackends.folders.joined(separator: ", "))"]
    for (backend, path) in ComputeBackends.loadedLibraries.sorted(by: { $0.key < $1.key }) {
      lines.append("  loaded \(backend): \(path)")
    }
    for skipped in ComputeBackends.skippedLibraries { lines.append("  skipped \(skipped)") }
    lines.append("Devices:")
    if devices.isEmpty { lines.append("  none (no backend could be loaded)") }
    for device in devices {
      lines.append("  \(device.name.padding(toLength: 8, withPad: " ", startingAt: 0)) \(device.kind.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)) "
        + "\(device.description) — \(device.memoryDescription)")
    }
    switch placement {
    case .success(let placement): lines.append("Model \(system.modelIdentifier): \(placement)")
    case .failure(let error): lines.append("Model \(system.modelIdentifier): cannot be placed: \(error)")
    }
    Terminal.write(lines.joined(separator: "\n") + "\n")
    if case .failure = placement, !missingDefaultModel(system) { throw ExitCode.failure }
  }

  /// No --model and no default model installed: the device list is still the answer asked for.
  private func missingDefaultModel(_ system: SystemLanguageModel) -> Bool {
    model.model == nil && !FileManager.default.fileExists(atPath: system.modelPath)
  }

  private func printJSON(devices: [ComputeDevice], model: SystemLanguageModel,
                         placement: Result<ModelPlacement, any Error>) throws {
    var object: [String: Any] = [
      "folders": ComputeBackends.folders,
      "backends": ComputeBackends.loadedLibraries,
      "skipped": ComputeBackends.skippedLibraries.map { ["path": $0.path, "reason": $0.reason] },
      "devices": devices.map {
        ["name": $0.name, "description": $0.description, "backend": $0.backend, "kind": $0.kind.rawValue,
         "freeMemory": $0.freeMemory, "totalMemory": $0.totalMemory] as [String: Any]
      },
      "model": model.modelIdentifier,
    ]
    switch placement {
    case .success(let placement):
      object["placement"] = ["device": placement.device.name, "gpuLayers": placement.gpuLayers,
                             "totalLayers": placement.totalLayers, "requiredBytes": placement.requiredBytes,
                             "reason": placement.reason, "summary": placement.description] as [String: Any]
    case .failure(let error):
      object["placementError"] = "\(error)"
    }
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    Terminal.write(String(decoding: data, as: UTF8.self) + "\n")
    if case .failure = placement, !missingDefaultModel(model) { throw ExitCode.failure }
  }
}
