import Foundation
import HybridAI
@testable import HybridAIChatApp
import HybridAIMCP
import HybridAIOnDevice
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
import Synchronization
import Testing

/// The web chat in a real browser: Debian's Chromium driven by Selenium (`Browser/chat_page_check.py`)
/// against the page and API served over a real socket. The model is scripted by message
/// (``PageTestModel``) so each check sees a known answer; the tool makes a real WAV and PNG.
/// Screenshots go to `.build/chat-screenshots/`.
@Suite("Web chat in Chromium", .serialized)
struct ChatBrowserTests {
  @Test("the page weighs under 150 KB and is served with a strict Content-Security-Policy")
  func pageWeight() async throws {
    let chat = try await ChatServer.start(models: ChatModels(onDevice: PageTestModel()))
    defer { Task { await chat.stop() } }
    var total = 0
    for path in ["/", "/chat/app.js", "/chat/app.css", "/chat/icon.svg"] {
      let reply = try await TestHTTP.send(.GET, URL(string: chat.server.baseURL.absoluteString + path)!)
      #expect(reply.status == 200, "\(path)")
      #expect(reply.header("x-content-type-options") == "nosniff")
      let policy = reply.header("content-security-policy") ?? ""
      #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"), "\(path): \(policy)")
      total += reply.body.count
    }
    #expect(total < 150_000, "the page weighs \(total) bytes")
    let page = try await TestHTTP.send(.GET, chat.server.baseURL.appendingPathComponent("/"))
    #expect(!page.text.contains("<script>") && !page.text.contains("onclick="), "no inline script")
  }

  @Test("chat, tools with audio and an image, inert markup, stop, attachments, reload, phone width and dark mode")
  func page() async throws {
    let python = try TestRepository.requireExecutable(TestRepository.dependency("browser-venv/bin/python"))
    let model = PageTestModel()
    let chat = try await ChatServer.start(models: ChatModels(onDevice: model, cloud: PageTestModel(source: .cloud)),
                                          tools: [PageTestModel.paintAndSpeak], maxUploadBytes: 1 << 20)
    defer { Task { await chat.stop() } }
    let big = chat.directory.appending("big.bin")
    #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
    let handle = try FileHandle(forWritingTo: big)
    try handle.truncate(atOffset: 50 << 20)   // 50 MB, sparse
    try handle.close()
    let html = chat.directory.appending("page.html")
    try Data("<!DOCTYPE html><html><body>not a picture</body></html>".utf8).write(to: html)
    let outcome = try await ChildProcess.run(python, [
      Self.script.path, "--url", chat.server.baseURL.absoluteString, "--photo", TestRepository.photo.path, "--big", big.path,
      "--html", html.path, "--screenshots", try Self.screenshots().path,
    ], mergingStandardError: true)
    #expect(outcome.succeeded, "\(outcome.output)")
    let last = outcome.output.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
    let results = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], "\(outcome.output)")
    // Timings are printed, not asserted (they depend on the machine).
    if let painted = results["firstPaintEpochMs"] as? Double, let sent = model.firstDeltaSentAt {
      print("web chat: first text painted \(String(format: "%.1f", painted - sent * 1000)) ms after the server sent it")
    }
    print("web chat: stop took \(results["stopSeconds"] ?? "?") s; 2,000-word answer shown in \(results["longAnswerSeconds"] ?? "?") s; "
          + "audio \(results["audioDuration"] ?? "?") s, image \(results["imageNaturalWidth"] ?? "?") px wide")
    #expect((results["audioDuration"] as? Double ?? 0) > 0)
    #expect((results["imageNaturalWidth"] as? Int ?? 0) > 0)
    #expect(model.slowAnswerWasCancelled, "the stop button stopped generation on the server")
  }
}

extension ChatBrowserTests {
  static var script: URL { TestRepository.file("Tests/HybridAIChatAppTests/Browser/chat_page_check.py") }

  /// `.build/chat-screenshots/`, made if missing.
  static func screenshots() throws -> URL {
    let directory = TestRepository.root.appendingPathComponent(".build/chat-screenshots")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  @Test("with API keys the page asks for one, sends it, and answers; a wrong key is asked for again")
  func pageAsksForAKey() async throws {
    let python = try TestRepository.requireExecutable(TestRepository.dependency("browser-venv/bin/python"))
    let chat = try await ChatServer.start(models: ChatModels(onDevice: PageTestModel()), tools: [PageTestModel.paintAndSpeak],
                                          apiKeys: ["page-secret"])
    defer { Task { await chat.stop() } }
    let outcome = try await ChildProcess.run(python, [
      Self.script.path, "--scenario", "key", "--key", "page-secret", "--url", chat.server.baseURL.absoluteString,
      "--screenshots", try Self.screenshots().path,
    ], mergingStandardError: true)
    #expect(outcome.succeeded, "\(outcome.output)")
  }
}

extension ChatBrowserTests {
  @Test("a photo attached in the page is answered on device by a model with a projector; the badge says so")
  func photoOnDevice() async throws {
    let python = try TestRepository.requireExecutable(TestRepository.dependency("browser-venv/bin/python"))
    let pair = TestRepository.dependency("models/pairs/vision")
    let model = SystemLanguageModel(modelPath: pair.appendingPathComponent("model.gguf").path, configuration: .init(
      contextSize: 1024, projectorPath: pair.appendingPathComponent("mmproj.gguf").path))
    let chat = try await ChatServer.start(models: ChatModels(onDevice: model, cloud: PageTestModel(source: .cloud)))
    defer { Task { await chat.stop() } }
    let outcome = try await ChildProcess.run(python, [
      Self.script.path, "--scenario", "photo-on-device", "--url", chat.server.baseURL.absoluteString,
      "--photo", TestRepository.photo.path, "--screenshots", try Self.screenshots().path,
    ], mergingStandardError: true)
    #expect(outcome.succeeded, "\(outcome.output)")
  }
}

extension ChatBrowserTests {
  @Test("an MCP server's tools in the page: a switch per server; its picture shown in the answer; switched off, not offered")
  func mcpServerPhoto() async throws {
    let python = try TestRepository.requireExecutable(TestRepository.dependency("browser-venv/bin/python"))
    let server = MCPServerConfiguration(name: "own", command: TestRepository.dependency("mcp-venv/bin/python").path, arguments: [
      TestRepository.file("Tests/HybridAIMCPTests/Servers/test_server.py").path, "--photo", TestRepository.photo.path,
    ])
    let toolbox = try await MCPToolbox.connect([server], requestTimeout: .seconds(300))
    let chat = try await ChatServer.start(models: ChatModels(onDevice: PageTestModel()),
                                          toolGroups: [ChatToolGroup(name: "own", catalog: toolbox.catalog(ofServer: "own"))])
    defer { Task { await chat.stop(); await toolbox.close() } }
    let outcome = try await ChildProcess.run(python, [
      Self.script.path, "--scenario", "mcp-photo", "--url", chat.server.baseURL.absoluteString,
      "--screenshots", try Self.screenshots().path,
    ], mergingStandardError: true)
    #expect(outcome.succeeded, "\(outcome.output)")
    let last = outcome.output.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
    let results = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
    #expect(results?["imageNaturalWidth"] as? Int == 512, "the photo whole, as the server sent it: \(last)")
  }
}

/// A model whose answer depends on the message: Markdown, a tool call (an MCP server's `photo` when offered), markup to keep inert, a
/// slow answer to stop (it thinks 1.5 s first), a photo's description, a 2,000-word answer cut off
/// at the length limit.
final class PageTestModel: LanguageModel, Sendable {
  let modelIdentifier: String
  let source: ModelSource
  let availability = ModelAvailability.available
  let capabilities: ModelCapabilities
  private let state = Mutex<(firstDelta: Double?, cancelled: Bool)>((nil, false))

  /// An on-device model that reads text only, or a cloud model that also reads images.
  init(source: ModelSource = .onDevice) {
    self.source = source
    modelIdentifier = source == .cloud ? "page-cloud" : "page-model"
    capabilities = source == .cloud ? ModelCapabilities(inputModalities: [.image]) : .text
  }

  /// When the first text delta of the first answer was produced (seconds since 1970).
  var firstDeltaSentAt: Double? { state.withLock { $0.firstDelta } }
  /// Whether the slow answer saw its task cancelled.
  var slowAnswerWasCancelled: Bool { state.withLock { $0.cancelled } }

  /// A list, code, a link; a heading with its text right under it, a numbered list whose items are
  /// apart (it goes on at 2) with a list inside item 2, and item 4's list after a blank line.
  static let markdown = "Here is a list:\n\n- one\n- two\n\n```swift\nlet x = 1\n```\n\nSee [the docs](https://example.com/).\n\n"
    + "## Steps\nFollow these:\n1. first\n\n2. second\n   - part a\n   - part b\n3. third\n\n4. fourth\n\n   - after a blank\n   - still inside"

  func supports(_ request: GenerationRequest) async -> RequestSupport { .supported }

  func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    let prompt = request.transcript.entries.last { if case .prompt = $0 { true } else { false } }
    let text = prompt?.text ?? ""
    let afterTool = { if case .toolOutput? = request.transcript.entries.last { true } else { false } }()
    let photo = request.newAttachments.first.flatMap { try? request.contents(of: $0) }
    return AsyncThrowingStream { continuation in
      let task = Task {
        do {
          var deltas: [String] = []
          var delay = Duration.zero
          var firstDelay = Duration.zero
          var finishReason = FinishReason.stop
          var artifact: Artifact?
          if afterTool {
            deltas = ["Here ", "they ", "are."]
          } else if text.hasPrefix("show the photo") {
            if request.tools.contains(where: { $0.name == "photo" }) {
              continuation.yield(.toolCalls([Transcript.ToolCall(id: "call-photo", toolName: "photo", arguments: try GeneratedContent(json: "{}"))]))
            } else {
              deltas = ["No photo tool ", "is offered."]
            }
          } else if text.hasPrefix("paint") {
            continuation.yield(.toolCalls([Transcript.ToolCall(id: "call-paint", toolName: "paint_and_speak",
                                                               arguments: try GeneratedContent(json: "{}"))]))
          } else if text.hasPrefix("markdown") {
            deltas = Self.markdown.map(String.init)
          } else if text.hasPrefix("inject") {
            deltas = ["Look: <img src=x onerror=window.__xss=1> and ", "<script>window.__xss=2</script> done."]
            artifact = Artifact(data: Data("plain".utf8), mimeType: "text/plain", name: "<img src=x onerror=window.__xss=3>.txt")
          } else if text.hasPrefix("slow") {
            deltas = Array(repeating: "slow ", count: 2000)   // 40 s unless stopped
            delay = .milliseconds(20)
            firstDelay = .milliseconds(1500)   // thinking before the first word
          } else if text.hasPrefix("long") {
            deltas = (0..<2000).map { $0 % 12 == 11 ? "word\n\n" : "word " }
            finishReason = .maxTokens   // as if the length limit ended it
          } else if let photo {
            deltas = ["A photo ", "of \(photo.count) bytes."]
          } else {
            deltas = ["OK."]
          }
          if firstDelay > .zero { try await Task.sleep(for: firstDelay) }
          for delta in deltas {
            if delay > .zero { try await Task.sleep(for: delay) }
            try Task.checkCancellation()
            state.withLock { if $0.firstDelta == nil { $0.firstDelta = Date().timeIntervalSince1970 } }
            continuation.yield(.textDelta(delta))
          }
          if let artifact { continuation.yield(.artifact(artifact)) }
          continuation.yield(.completed(RawResponse(modelVersion: "\(self.modelIdentifier)-1", source: self.source,
                                                    usage: Usage(promptTokens: 12, outputTokens: deltas.count), finishReason: finishReason)))
          continuation.finish()
        } catch {
          if text.hasPrefix("slow"), error is CancellationError { state.withLock { $0.cancelled = true } }
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// A tool that reports progress and makes a real WAV (half a second of a tone) and a PNG (the
  /// bootstrap's photo).
  static let paintAndSpeak = RecordingTool(name: "paint_and_speak", description: "Paints a picture and says something") { _, context in
    context.report(progress: 0.3, "painting")
    try await Task.sleep(for: .milliseconds(100))
    context.report(progress: 0.7, "speaking")
    return ToolOutput("Made a picture and a sound.", artifacts: [
      Artifact(fileAt: TestRepository.photo, mimeType: "image/png", name: "picture.png"),
      Artifact(data: TestMedia.toneWAV(seconds: 0.5), mimeType: "audio/wav", name: "hello.wav"),
    ])
  }
}
