import Foundation
import HybridAI
import HybridCommandLine

/// Shows a session's tool activity on standard error: a progress bar while a tool runs, and each
/// artifact it makes with its type, size and path.
enum ToolActivityDisplay {
  /// Watches `session`'s tool events until the returned task is cancelled.
  static func watch(_ session: GenerativeModelSession) -> Task<Void, Never> {
    let events = session.toolEvents
    return Task {
      var bars: [String: ProgressBar] = [:]
      var names: [String: String] = [:]
      for await event in events {
        switch event {
        case .started(let toolName, let callID):
          names[callID] = toolName
          bars[callID] = ProgressBar(label: "  [\(toolName)]", showsBytes: false)
        case .progress(let callID, let fraction, _):
          bars[callID]?.update(completed: Int64(fraction * 1000), total: 1000)
        case .artifactCreated(let callID, let reference):
          bars[callID]?.finish()
          bars[callID] = nil
          let location = session.artifactStore.reference(id: reference.id)?.fileURL?.path
            ?? reference.fileURL?.path ?? "(not stored)"
          Terminal.status("  [artifact] \(reference.name) · \(reference.mimeType) · \(reference.size) bytes → \(location)"
            + (names[callID].map { " (from \($0))" } ?? ""))
        case .finished(let callID, _):
          bars[callID]?.finish()
          bars[callID] = nil
        }
      }
    }
  }
}
