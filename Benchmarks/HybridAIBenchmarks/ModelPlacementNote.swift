import HybridAIOnDevice

extension SystemLanguageModel {
  /// Where the benchmarked model's layers run (backend, device, layers), for the report's notes:
  /// a number means little without it.
  var placementText: String {
    do { return try placement().description } catch { return "no placement (\(error))" }
  }
}
