import Foundation
import HybridAI
import HybridAIFileStorage
import HybridAITestSupport
import Synchronization
import Testing

/// `streamResponse(...).events`: the typed events a UI shows while a request runs — the model
/// chosen (and why it fell back), text, tool calls with progress and artifacts, completion.
@Suite struct ResponseEventTests {
  private func makeStore() throws -> FileArtifactStore {
    try FileArtifactStore(directory: FileManager.default.temporaryDirectory
      .appendingPathComponent("ResponseEventTests-\(UUID().uuidString)", isDirectory: true))
  }

  private func call(_ name: String, id: String) throws -> Transcript.ToolCall {
    Transcript.ToolCall(id: id, toolName: name, arguments: try GeneratedContent(json: "{}"))
  }

  /// One line per event, so whole sequences compare at once.
  private func describe<Content>(_ event: GenerativeModelSession.ResponseStream<Content>.Event) -> String {
    switch event {
    case .modelSelected(let model, let fallback): "model \(model)" + (fallback.map { " (\($0.reason))" } ?? "")
    case .textDelta(let text): "text \(text)"
    case .partialContent(let snapshot): "partial \(snapshot.rawContent)"
    case .toolStarted(let name, let callID): "started \(name) \(callID)"
    case .toolProgress(let callID, let fraction, let message): "progress \(callID) \(fraction) \(message)"
    case .artifactCreated(let callID, let reference): "artifact \(callID) \(reference.name) \(reference.fileURL != nil)"
    case .toolFinished(let callID, let isError): "finished \(callID)" + (isError ? " error" : "")
    case .generatedArtifact(let reference): "generated \(reference.name) \(reference.mimeType) \(reference.fileURL != nil)"
    case .completed(let response): "completed \(response.rawResponse.modelVersion) \(response.artifacts.count)"
    }
  }

  @Test("a tool turn through a hybrid model: fallback, tool progress, artifact, text, completion — in order")
  func toolTurnEventsInOrder() async throws {
    let store = try makeStore()
    defer { try? FileManager.default.removeItem(at: store.directory) }
    let cloud = ScriptedLanguageModel(identifier: "cloud", source: .cloud,
                                      failure: ScriptedCloudError(offlineReason: .connectionRefused))
    let device = ScriptedLanguageModel.rounds([.toolCalls([try call("speak", id: "s1")]), .text("Spoken.")])
    let speak = ContextTool(name: "speak") { _, context in
      context.report(progress: 0.25, "synthesising")
      context.report(progress: 1, "done")
      return ToolOutput("Spoke.", artifacts: [Artifact(data: Data(repeating: 7, count: 64), mimeType: "audio/wav", name: "speech.wav")])
    }
    let session = GenerativeModelSession(model: .hybrid(primary: cloud, secondary: device), tools: [speak], artifactStore: store)
    let stream = session.streamResponse(to: "Say hi out loud")
    var lines: [String] = []
    var created: ArtifactReference?
    for try await event in stream.events {
      lines.append(describe(event))
      if case .artifactCreated(_, let reference) = event { created = reference }
    }
    let offline = "(offline: connection refused)"
    #expect(lines == [
      "model cloud", "model round-scripted \(offline)",
      "started speak s1", "progress s1 0.25 synthesising", "progress s1 1.0 done",
      "artifact s1 speech.wav true", "finished s1",
      "model cloud", "model round-scripted \(offline)",
      "text Spoken.",
      "completed round-scripted-1 1",
    ])
    // The events and the final response agree, and collect() hands back the same response.
    let response = try await stream.collect()
    let createdID = try #require(created).id
    #expect(response.artifacts.map(\.id) == [createdID])
    #expect(response.rawResponse.fallback?.reason == .offline(.connectionRefused))
    #expect(response.content == "Spoken.")
    #expect(session.transcript.count == 5)   // instructions (tools), prompt, tool calls, tool output, response
  }

  @Test("a model that does not route is announced once per round, before its text; text answers have no partial events")
  func plainModelEvents() async throws {
    let session = GenerativeModelSession(model: ScriptedLanguageModel(identifier: "device"))
    var lines: [String] = []
    for try await event in session.streamResponse(to: "hi").events { lines.append(describe(event)) }
    #expect(lines == ["model device", "text Hello", "text , ", "text world", "text !", "completed device-1 0"])
  }

  @Generable struct Greeting {
    var text: String
  }

  @Test("a structured answer streams its partial values between the text deltas")
  func structuredAnswerEvents() async throws {
    let model = ScriptedLanguageModel(identifier: "device", deltas: ["{\"text\":", " \"hel", "lo\"}"])
    let session = GenerativeModelSession(model: model)
    var partials: [String?] = []
    var deltas = ""
    var final: Greeting?
    for try await event in session.streamResponse(to: "greet", generating: Greeting.self).events {
      switch event {
      case .partialContent(let snapshot): partials.append(snapshot.content.text)
      case .textDelta(let delta): deltas += delta
      case .completed(let response): final = response.content
      default: break
      }
    }
    #expect(deltas == "{\"text\": \"hello\"}")
    #expect(partials.last == "hello")
    #expect(partials.contains("hel"))
    #expect(final?.text == "hello")
  }

  @Test("a tool that fails with rethrow: its finished event says error, then the stream throws")
  func failingToolEvents() async throws {
    let model = ScriptedLanguageModel.rounds([.toolCalls([try call("broken", id: "b1")]), .text("never")])
    let broken = RecordingTool(name: "broken") { _ in throw CocoaError(.fileReadNoSuchFile) }
    let session = GenerativeModelSession(model: model, tools: [broken],
                                         toolPolicy: ToolExecutionPolicy(failure: .rethrow))
    var lines: [String] = []
    await #expect(throws: ToolCallError.self) {
      for try await event in session.streamResponse(to: "go").events { lines.append(describe(event)) }
    }
    #expect(lines == ["model round-scripted", "started broken b1", "finished b1 error"])
    #expect(!session.isResponding)
  }

  @Test("cancelling the task that iterates the events stops the request and throws CancellationError")
  func cancellingEvents() async throws {
    let model = ScriptedLanguageModel(identifier: "slow", deltas: Array(repeating: "x", count: 500), delay: .milliseconds(20))
    let session = GenerativeModelSession(model: model)
    let firstText = AsyncStream.makeStream(of: Void.self)
    let task = Task {
      var count = 0
      for try await event in session.streamResponse(to: "go").events {
        if case .textDelta = event {
          count += 1
          firstText.continuation.yield()
        }
      }
      return count
    }
    for await _ in firstText.stream { break }
    task.cancel()
    await #expect(throws: CancellationError.self) { _ = try await task.value }
    #expect(model.recording.sawCancellation)
    #expect(model.recording.deltasSent < 500)
    #expect(!session.isResponding)
    #expect(session.transcript.isEmpty)
  }
}
