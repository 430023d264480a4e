/// The process-wide llama.cpp runtime behind every on-device model.
///
/// A server stops it in order, so that nothing is left for the process's exit to free (on a GPU,
/// llama.cpp frees that find the CUDA driver already gone abort the process):
///
/// ```swift
/// for model in servedModels { await model.shutDown() }   // streams end, contexts freed
/// await OnDeviceRuntime.shutDown()                         // weights, then the backend
/// ```
public enum OnDeviceRuntime {
  /// Frees every model's weights this process loaded, then llama.cpp's backend. Call it last:
  /// no on-device model may be used afterwards (a use is logged as an error).
  public static func shutDown() async {
    await LlamaWeightsCache.shared.releaseAll()
    LlamaRuntime.shutDown()
  }
}
