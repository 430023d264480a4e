/// Where a model runs: on this device, or in a cloud service reached over the network.
public enum ModelSource: String, Sendable, Hashable, Codable, CustomStringConvertible {
  /// In this process (llama.cpp).
  case onDevice = "on-device"
  /// Behind an HTTP API (Gemini, or a `hybrid serve`).
  case cloud

  public var description: String { rawValue }
}
