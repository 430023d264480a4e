import Foundation
import HybridAI
import HybridAIPersistence
import Logging

/// One answer of the web chat: streams the session's answer to `prompt` as ``ChatEvent``s and
/// saves the conversation when it is complete.
struct Answer: Sendable {
  let sessionID: String
  let session: GenerativeModelSession
  let prompt: Prompt
  let options: GenerationOptions
  let mode: InferenceMode
  let title: String
  let store: SessionStore
  let logger: Logger

  /// Runs to the end, the first error or cancellation, reporting each event to `emit`.
  func run(emit: @Sendable (ChatEvent) -> Void) async {
    do {
      let stream = session.streamResponse(to: prompt, options: options)
      for try await event in stream.events {
        switch event {
        case .modelSelected(_, let fallback?):
          emit(.fallback(from: fallback.from, reason: fallback.reason.description))
        case .modelSelected: break
        case .textDelta(let delta): emit(.text(delta))
        case .partialContent: break
        case .toolStarted(let toolName, let callID): emit(.toolStarted(callID: callID, toolName: toolName))
        case .toolProgress(let callID, let fraction, let message):
          emit(.toolProgress(callID: callID, fraction: fraction, message: message))
        case .artifactCreated(let callID, let reference): emit(.artifact(ChatFile(reference, sessionID: sessionID), callID: callID))
        case .generatedArtifact(let reference): emit(.artifact(ChatFile(reference, sessionID: sessionID), callID: nil))
        case .toolFinished(let callID, let isError): emit(.toolFinished(callID: callID, isError: isError))
        case .completed(let response):
          try Task.checkCancellation()
          try store.save(session, id: sessionID, title: title)
          let raw = response.rawResponse
          emit(.usage(raw.usage))
          emit(.done(ChatTurnSummary(modelVersion: raw.modelVersion, source: raw.source.rawValue,
                                     fallbackReason: raw.fallback?.reason.description, finishReason: raw.finishReason.description,
                                     usage: raw.usage, mode: mode.rawValue, entryCount: session.transcript.count)))
          logger.info("chat answer saved", metadata: ["session": "\(sessionID)", "model": "\(raw.modelVersion)"])
        }
      }
    } catch {
      let (kind, message) = Self.describe(error)
      logger.info("chat answer ended early", metadata: ["session": "\(sessionID)", "kind": "\(kind)", "error": "\(message)"])
      emit(.error(kind: kind, message: message))
    }
  }

  /// A short machine-readable kind and a message a user can read.
  static func describe(_ error: any Error) -> (kind: String, message: String) {
    switch error {
    case is CancellationError: ("cancelled", "Stopped.")
    case let error as GenerationError: ("generation", String(describing: error))
    case let error as AttachmentError: ("attachment", error.description)
    case let error as SessionStoreError: ("storage", String(describing: error))
    default: (String(describing: type(of: error)), String(describing: error))
    }
  }
}
