import Foundation
import HybridAI
import HybridAIFileStorage
import HybridAITestSupport
import Synchronization
import Testing

/// Artifacts made by tools in the session's tool loop: stored, referenced for the model, recorded
/// on the transcript and returned on the response — and never shown to the model as bytes or paths.
@Suite struct ToolArtifactTests {
  static let secret = Data("SECRET-PIXELS-0123456789".utf8)

  private func makeStore(limits: ArtifactStoreLimits = .init()) throws -> FileArtifactStore {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("ToolArtifactTests-\(UUID().uuidString)", isDirectory: true)
    return try FileArtifactStore(directory: directory, limits: limits)
  }

  /// What is in the store's directory besides the index: artifact folders, blobs and temporary files.
  private func leftovers(_ store: FileArtifactStore) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: store.directory.path)) ?? []
    let blobs = (try? FileManager.default.contentsOfDirectory(atPath: store.directory.appendingPathComponent("blobs").path)) ?? []
    return (names.filter { $0 != "index.json" && $0 != "blobs" } + blobs.map { "blobs/\($0)" }).sorted()
  }

  private func call(_ name: String, id: String) throws -> Transcript.ToolCall {
    Transcript.ToolCall(id: id, toolName: name, arguments: try GeneratedContent(json: "{}"))
  }

  private func toolOutputs(_ entries: [Transcript.Entry]) -> [Transcript.ToolOutput] {
    entries.compactMap { entry in
      if case .toolOutput(let output) = entry { return output }
      return nil
    }
  }

  @Test func artifactReachesResponseTranscriptAndStoreButNotThePrompt() async throws {
    let store = try makeStore()
    defer { try? FileManager.default.removeItem(at: store.directory) }
    let model = ScriptedLanguageModel.rounds([.toolCalls([try call("paint", id: "p1")]), .text("Here is your picture.")])
    let paint = RecordingTool(name: "paint") { _ in
      ToolOutput("Painted a cat.", artifacts: [
        Artifact(data: Self.secret, mimeType: "image/png", name: "cat.png"),
        Artifact(data: Data("hello".utf8), mimeType: "text/plain", name: "../../etc/passwd"),
      ])
    }
    let session = GenerativeModelSession(model: model, tools: [paint], artifactStore: store)
    let response = try await session.respond(to: "Paint a cat")

    // The response: both artifacts, with file URLs whose files hold the bytes.
    #expect(response.artifacts.map(\.name) == ["cat.png", "passwd"])
    let first = try #require(response.artifacts.first)
    let url = try #require(first.fileURL)
    #expect(url.isFileURL)
    #expect(try Data(contentsOf: url) == Self.secret)
    #expect(url.path.hasPrefix(store.directory.path))
    // The store.
    #expect(store.allReferences().map(\.id) == response.artifacts.map(\.id))
    // The transcript: the tool output records the references, without paths.
    let output = try #require(toolOutputs(session.transcript.entries).first)
    #expect(output.artifacts.map(\.id) == response.artifacts.map(\.id))
    #expect(output.artifacts.allSatisfy { $0.fileURL == nil })
    #expect(!output.isError)

    // What the model saw: the text and one reference line per artifact; no bytes, no paths.
    let requests = model.requests
    #expect(requests.count == 2)
    let seen = try #require(toolOutputs(requests[1].transcript.entries).first)
    let seenText = Transcript.Entry.toolOutput(seen).text
    let expectedText = (["Painted a cat."] + response.artifacts.map(\.modelDescription)).joined(separator: "\n")
    #expect(seenText == expectedText)
    let seenJSON = try #require(String(data: try requests[1].transcript.jsonData(), encoding: .utf8))
    for forbidden in ["SECRET-PIXELS", Self.secret.base64EncodedString(), store.directory.path, "file://", "hello"] {
      #expect(!seenJSON.contains(forbidden), "the model saw \(forbidden)")
    }
  }

  @Test func streamedResponsesCarryArtifactsToo() async throws {
    let store = try makeStore()
    defer { try? FileManager.default.removeItem(at: store.directory) }
    let model = ScriptedLanguageModel.rounds([.toolCalls([try call("speak", id: "s1")]), .text("Done.")])
    let speak = RecordingTool(name: "speak") { _ in
      ToolOutput("Spoke.", artifacts: [Artifact(data: Data(repeating: 1, count: 44), mimeType: "audio/wav", name: "speech.wav")])
    }
    let session = GenerativeModelSession(model: model, tools: [speak], artifactStore: store)
    let stream = session.streamResponse(to: "Say hi")
    for try await _ in stream {}
    let response = try await stream.collect()
    #expect(response.artifacts.map(\.mimeType) == ["audio/wav"])
    #expect(response.artifacts.first?.fileURL.map { FileManager.default.fileExists(atPath: $0.path) } == true)
  }

  @Test func withoutAStoreTheSessionKeepsArtifactsInMemory() async throws {
    let model = ScriptedLanguageModel.rounds([.toolCalls([try call("paint", id: "p1")]), .text("Ok.")])
    let paint = RecordingTool(name: "paint") { _ in
      ToolOutput("Painted.", artifacts: [Artifact(data: Self.secret, mimeType: "image/png", name: "a.png")])
    }
    let session = GenerativeModelSession(model: model, tools: [paint])
    let response = try await session.respond(to: "Paint")
    let artifact = try #require(response.artifacts.first)
    #expect(artifact.fileURL == nil)
    #expect(try session.artifactStore.contents(of: artifact.id) == Self.secret)
  }

  @Test(arguments: [ToolExecutionPolicy.FailureHandling.reportToModel, .rethrow])
  func aThrowingToolLeavesNoArtifacts(failure: ToolExecutionPolicy.FailureHandling) async throws {
    struct Broken: Error {}
    let store = try makeStore()
    defer { try? FileManager.default.removeItem(at: store.directory) }
    let model = ScriptedLanguageModel.rounds([.toolCalls([try call("paint", id: "p1")]), .text("It failed.")])
    let paint = RecordingTool(name: "paint") { _ in
      _ = Artifact(data: Self.secret, mimeType: "image/png", name: "half.png")
      throw Broken()
    }
    let session = GenerativeModelSession(model: model, tools: [paint], toolPolicy: ToolExecutionPolicy(failure: failure),
                                         artifactStore: store)
    switch failure {
    case .reportToModel:
      let response = try await session.respond(to: "Paint")
      #expect(response.artifacts.isEmpty)
      #expect(toolOutputs(response.transcriptEntries).first?.artifacts.isEmpty == true)
    case .rethrow:
      await #expect(throws: ToolCallError.self) { try await session.respond(to: "Paint") }
    }
    #expect(store.allReferences().isEmpty)
    #expect(leftovers(store).isEmpty)
  }

  @Test func aStoreLimitIsATypedErrorAndLeavesNothingHalfWritten() async throws {
    let store = try makeStore(limits: ArtifactStoreLimits(maxArtifactBytes: 100, maxStoreBytes: 1000))
    defer { try? FileManager.default.removeItem(at: store.directory) }
    let model = ScriptedLanguageModel.rounds([.toolCalls([try call("paint", id: "p1")]), .text("No luck.")])
    let paint = RecordingTool(name: "paint") { _ in
      ToolOutput("Three pictures.", artifacts: [
        Artifact(data: Data(repeating: 1, count: 10), mimeType: "image/png", name: "one.png"),
        Artifact(data: Data(repeating: 2, count: 200), mimeType: "image/png", name: "two.png"),
        Artifact(data: Data(repeating: 3, count: 10), mimeType: "image/png", name: "three.png"),
      ])
    }
    // Rethrown: the caller gets the store's typed error.
    let rethrowing = GenerativeModelSession(model: model, tools: [paint], toolPolicy: ToolExecutionPolicy(failure: .rethrow),
                                            artifactStore: store)
    do {
      try await rethrowing.respond(to: "Paint three")
      Issue.record("expected a ToolCallError")
    } catch let error as ToolCallError {
      #expect(error.underlyingError as? ArtifactStoreError == .artifactTooLarge(size: 200, limit: 100))
    }
    #expect(store.allReferences().isEmpty)
    #expect(leftovers(store).isEmpty)

    // Reported to the model: an error output, without paths, and no artifacts anywhere.
    let reportingModel = ScriptedLanguageModel.rounds([.toolCalls([try call("paint", id: "p1")]), .text("No luck.")])
    let reporting = GenerativeModelSession(model: reportingModel, tools: [paint], artifactStore: store)
    let response = try await reporting.respond(to: "Paint three")
    #expect(response.artifacts.isEmpty)
    let output = try #require(toolOutputs(response.transcriptEntries).first)
    #expect(output.isError)
    #expect(output.artifacts.isEmpty)
    let text = Transcript.Entry.toolOutput(output).text
    #expect(text.contains("too large"))
    #expect(!text.contains(store.directory.path))
    #expect(store.allReferences().isEmpty)
    #expect(leftovers(store).isEmpty)
  }

  @Test func aTurnThatFailsAfterTheToolRemovesItsArtifacts() async throws {
    let store = try makeStore()
    defer { try? FileManager.default.removeItem(at: store.directory) }
    // The tool succeeds, but the final answer is not the JSON asked for: the turn is not committed.
    let model = ScriptedLanguageModel.rounds([.toolCalls([try call("paint", id: "p1")]), .text("not json")])
    let paint = RecordingTool(name: "paint") { _ in
      ToolOutput("Painted.", artifacts: [Artifact(data: Self.secret, mimeType: "image/png", name: "a.png")])
    }
    let session = GenerativeModelSession(model: model, tools: [paint], artifactStore: store)
    let schema = GenerationSchema(jsonSchema: ["type": "object", "properties": ["text": ["type": "string"]], "required": ["text"]])
    await #expect(throws: GenerationError.self) { try await session.respond(to: "Paint", schema: schema) }
    #expect(store.allReferences().isEmpty)
    #expect(leftovers(store).isEmpty)
    #expect(session.transcript.count == 1)
  }

  @Test func progressReportsArriveInOrder() async throws {
    let store = try makeStore()
    defer { try? FileManager.default.removeItem(at: store.directory) }
    let model = ScriptedLanguageModel.rounds([.toolCalls([try call("render", id: "r1")]), .text("Rendered.")])
    let render = ContextTool(name: "render") { _, context in
      context.report(progress: 0.1, "starting")
      context.report(progress: 0.5, "halfway")
      context.report(progress: 1.5, "done")   // clamped to 1
      return ToolOutput("Rendered.", artifacts: [Artifact(data: Self.secret, mimeType: "image/png", name: "r.png")])
    }
    let session = GenerativeModelSession(model: model, tools: [render], artifactStore: store)
    let events = session.toolEvents
    let response = try await session.respond(to: "Render")
    var received: [ToolActivity] = []
    for await event in events {
      received.append(event)
      if case .finished = event { break }
    }
    let reference = try #require(response.artifacts.first)
    #expect(received == [
      .started(toolName: "render", callID: "r1"),
      .progress(callID: "r1", fraction: 0.1, message: "starting"),
      .progress(callID: "r1", fraction: 0.5, message: "halfway"),
      .progress(callID: "r1", fraction: 1, message: "done"),
      .artifactCreated(callID: "r1", reference),
      .finished(callID: "r1", isError: false),
    ])
  }

  @Test("two sessions sharing one store run tool turns with artifacts concurrently; nothing is lost or mixed up")
  func concurrentSessionsShareAStore() async throws {
    let store = try makeStore()
    defer { try? FileManager.default.removeItem(at: store.directory) }
    let turns = 15
    func makeSession(_ label: String) throws -> GenerativeModelSession {
      let model = ScriptedLanguageModel.rounds([.toolCalls([try call("paint", id: label)]), .text("done")], cycling: true)
      let paint = ContextTool(name: "paint") { _, context in
        await Task.yield()
        let bytes = Data("\(label)-\(context.callID)-\(UUID().uuidString)".utf8)
        return ToolOutput("Painted.", artifacts: [Artifact(data: bytes, mimeType: "image/png", name: "\(label).png")])
      }
      return GenerativeModelSession(model: model, tools: [paint], artifactStore: store)
    }
    let sessions = [try makeSession("left"), try makeSession("right")]
    let results = try await withThrowingTaskGroup(of: (Int, [ArtifactReference]).self) { group in
      for (index, session) in sessions.enumerated() {
        group.addTask {
          var made: [ArtifactReference] = []
          for turn in 0..<turns { made += try await session.respond(to: "paint \(turn)").artifacts }
          return (index, made)
        }
      }
      var results = [[ArtifactReference]](repeating: [], count: sessions.count)
      for try await (index, made) in group { results[index] = made }
      return results
    }
    let all = results.flatMap { $0 }
    #expect(all.count == 2 * turns)
    #expect(Set(all.map(\.id)).count == all.count)
    for reference in all {
      let url = try #require(reference.fileURL)
      let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
      #expect(text.hasPrefix(reference.name.replacingOccurrences(of: ".png", with: "-")), "\(reference.name) holds \(text)")
    }
    // Each session's transcript references exactly its own artifacts; a reopened store has them all.
    for (session, made) in zip(sessions, results) {
      #expect(toolOutputs(session.transcript.entries).flatMap(\.artifacts).map(\.id) == made.map(\.id))
    }
    let reopened = try FileArtifactStore(directory: store.directory)
    #expect(Set(reopened.allReferences().map(\.id)) == Set(all.map(\.id)))
  }
}
