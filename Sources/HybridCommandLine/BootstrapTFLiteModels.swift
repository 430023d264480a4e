import Foundation

/// The `.tflite` test models `scripts/bootstrap` installs (`$HYBRIDAI_MODELS_DIR/tflite` or
/// `.deps/models/tflite`), for the demo and the benchmark.
public enum BootstrapTFLiteModels {
  /// The models' names.
  public static let names = ["selfie_segmentation", "face_detection_short_range", "okay_nabu"]

  /// Where the model `name` is.
  public static func path(_ name: String) -> String {
    let base = ProcessInfo.processInfo.environment["HYBRIDAI_MODELS_DIR"] ?? ".deps/models"
    return "\(base)/tflite/\(name).tflite"
  }
}
