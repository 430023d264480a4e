import ModelDelivery
import Synchronization

/// Shows a model being fetched (from the Hugging Face Hub or a registry) on standard error: one
/// progress bar per file (bytes, rate).
enum ModelFetchDisplay {
  /// A progress callback that draws the bar of the file being fetched.
  static func bar() -> @Sendable (ModelFetchProgress) -> Void {
    let state = Mutex<(file: String, bar: ProgressBar)?>(nil)
    return { progress in
      state.withLock { current in
        if current?.file != progress.file {
          current?.bar.finish()
          current = (progress.file, ProgressBar(label: progress.file))
        }
        current?.bar.update(completed: progress.receivedBytes, total: progress.totalBytes)
        if let total = progress.totalBytes, progress.receivedBytes >= total { current?.bar.finish() }
      }
    }
  }
}
