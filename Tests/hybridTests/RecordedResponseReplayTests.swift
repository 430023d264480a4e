import Foundation
import HybridAI
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// Every recorded Gemini answer in `shared/fixtures/gemini-mock-responses`, replayed by a server on
/// loopback to `hybrid generate --mode cloud --json`, as a user's cloud would send it: the CLI
/// prints the answer's text (exit 0) or a typed error (exit 1) that matches what the recording
/// says — never a decoding failure, a lost connection or a crash. Streams are served as they were
/// recorded (split at arbitrary points); unary bodies as plain JSON, as a server that ignores
/// `alt=sse` does. Expectations are read from the recordings (``GeminiFixtureFacts``), so a new
/// recording dropped into the folder is checked too.
@Suite("hybrid generate replays Google's recorded answers", .serialized)
struct RecordedResponseReplayTests {
  static let files: [String] = (try? GeminiFixtures.allFileNames()) ?? []

  /// The finish reasons of a complete answer.
  static let completeFinishReasons: Set<String> = ["STOP", "MAX_TOKENS"]

  @Test("the recordings are there")
  func recordingsExist() throws {
    let directory = try GeminiFixtures.directory().path
    #expect(Self.files.count >= 36, "\(directory)")
  }

  @Test("an error body after some events, not sent as an event: a typed error, exit 1, the text so far marked incomplete")
  func errorBodyAfterEvents() async throws {
    let stream = "data: " + #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "Half an"}]}}]}"#
      + "\r\n\r\n" + #"{"error": {"code": 499, "message": "The operation was cancelled.", "status": "CANCELLED"}}"# + "\n"
    let server = try await TestHTTPServer.start(replying: .rawSSE(Data(stream.utf8), chunkSize: 31))
    defer { Task { await server.stop() } }
    let arguments = ["generate", "--prompt", "Hi", "--mode", "cloud", "--cloud-url", server.baseURL.absoluteString,
                     "--cloud-model", "recorded"]
    let json = try await HybridCommandTests().run(arguments + ["--json"])
    #expect(json.status == 1, "\(json.stdout)")
    let printed = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let error = try #require(printed["error"] as? [String: Any], "\(printed)")
    #expect(error["kind"] as? String == "gemini.httpError")
    #expect((error["message"] as? String)?.contains("The operation was cancelled.") == true, "\(error)")
    #expect(error["partialText"] as? String == "Half an")

    let plain = try await HybridCommandTests().run(arguments)
    #expect(plain.status == 1)
    #expect(plain.stdout == "Half an\n")
    #expect(plain.stderr.contains("The operation was cancelled.") && plain.stderr.contains("[the answer above is incomplete]"),
            "\(plain.stderr)")
  }

  @Test("replayed", arguments: files)
  func replay(_ file: String) async throws {
    let body = try GeminiFixtures.data(file)
    let streaming = file.hasPrefix("streaming-") && String(decoding: body, as: UTF8.self).contains("data:")
    let facts = try GeminiFixtureFacts(body, streaming: streaming)
    let reply: TestHTTPServer.Reply = if let status = facts.errorCode {
      .json(String(decoding: body, as: UTF8.self), status: status)
    } else if streaming {
      .rawSSE(body, chunkSize: 53)
    } else {
      .json(String(decoding: body, as: UTF8.self), status: 200)
    }
    let server = try await TestHTTPServer.start(replying: reply)
    defer { Task { await server.stop() } }

    // TMPDIR: an image answer lands in the session's own temporary store, here this test's folder.
    let scratch = try TemporaryDirectory("replay")
    defer { scratch.remove() }
    let result = try await HybridCommandTests().run([
      "generate", "--prompt", "Hi", "--mode", "cloud", "--cloud-url", server.baseURL.absoluteString,
      "--cloud-model", "recorded", "--json",
    ], environment: ["TMPDIR": scratch.url.path])
    let printed = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                               "not JSON: \(result.stdout) \(result.stderr)")
    let error = printed["error"] as? [String: Any]
    let kind = error?["kind"] as? String ?? ""
    let message = error?["message"] as? String ?? ""
    #expect(!["gemini.invalidResponse", "gemini.connectionLost", "DecodingError"].contains(kind), "\(file): \(message)")

    if let status = facts.errorCode {
      #expect(result.status == 1, "\(file): \(result.stdout)")
      let recorded = facts.chunks.first?["error"]?["message"]?.string ?? "\(status)"
      #expect(message.contains(recorded), "\(file): \(message)")
    } else if let blockReason = facts.blockReason ?? (facts.finishReason == nil && facts.text.isEmpty && facts.chunks.contains {
      $0["promptFeedback"] != nil
    } ? "" : nil) {
      #expect(result.status == 1, "\(file): a blocked prompt is an error: \(result.stdout)")
      #expect(kind == "guardrailViolation", "\(file): \(kind) \(message)")
      if !blockReason.isEmpty { #expect(message.contains(blockReason), "\(file): \(message)") }
    } else if let finish = facts.finishReason, !Self.completeFinishReasons.contains(finish) {
      #expect(result.status == 1, "\(file): a \(finish) stop is an error: \(result.stdout)")
      #expect(message.contains(finish) || kind == "guardrailViolation", "\(file): \(kind) \(message)")
      if !facts.text.isEmpty, kind != "guardrailViolation" {
        #expect(error?["partialText"] as? String == facts.text, "\(file): the partial text is kept")
      }
    } else if facts.dataKinds.contains("functionCall") {
      // The recording calls a tool the CLI does not offer: a typed error naming it, or an answer.
      #expect(result.status == 0 || !kind.isEmpty, "\(file): \(result.stdout)")
    } else {
      #expect(result.status == 0, "\(file): \(result.stdout) \(result.stderr)")
      #expect(printed["text"] as? String == facts.text, "\(file)")
      #expect(printed["source"] as? String == "cloud")
      if let version = facts.modelVersion { #expect(printed["modelVersion"] as? String == version, "\(file)") }
    }
    #expect(server.requests.first?.uri == "/v1beta/models/recorded:streamGenerateContent?alt=sse")
  }
}
