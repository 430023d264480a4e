import ModelDelivery
import Synchronization

/// Shows a Hugging Face Hub fetch on standard error: one progress bar per file (bytes, rate).
enum HubProgressDisplay {
  /// A progress callback that draws the bar of the file being fetched.
  static func bar() -> @Sendable (HuggingFaceHubClient.Progress) -> Void {
    let state = Mutex<(file: String, bar: ProgressBar)?>(nil)
    return { progress in
      state.withLock { current in
        if current?.file != progress.file {
          current?.bar.finish()
          current = (progress.file, ProgressBar(label: progress.file))
        }
        current?.bar.update(completed: progress.receivedBytes, total: progress.totalBytes)
        if progress.receivedBytes >= progress.totalBytes { current?.bar.finish() }
      }
    }
  }
}
