/// The process-wide llama.cpp runtime behind every on-device model.
///
/// A server stops it in order, so that nothing is left for the process's exit to free (on a GPU,
/// llama.cpp frees that find the CUDA driver already gone abort the process):
///
/// ```swift
/// for model in servedModels { await model.shutDown() }   // streams end, contexts freed
/// await OnDeviceRuntime.shutDown()                         // any other context, weights, the backend
/// ```
public enum OnDeviceRuntime {
  /// Frees every llama.cpp context still alive (sessions' and batched models'; their requests end
  /// with ``OnDeviceModelError/shuttingDown``), then every model's weights this process loaded, then
  /// llama.cpp's backend. Call it last: no on-device model may be used afterwards (a use is logged
  /// as an error). Cheap when no model was used. The `hybrid` CLI calls it before every exit.
  public static func shutDown() async {
    guard LlamaRuntime.wasInitialised else { return }
    await LlamaContextRegistry.shared.freeAll()
    ProjectorCache.shared.releaseAll()
    await LlamaWeightsCache.shared.releaseAll()
    LlamaRuntime.shutDown()
  }
}
