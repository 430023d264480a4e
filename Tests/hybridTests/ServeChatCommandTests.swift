import Foundation
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `hybrid serve`'s web chat with the real model: the page, a message answered on device through
/// the sessions API, the conversation kept where `hybrid sessions list` finds it; refused on a
/// public address without keys.
@Suite("hybrid serve: the web chat", .serialized)
struct ServeChatCommandTests {
  @Test("the page and a real on-device answer through the sessions API; hybrid sessions list sees the conversation")
  func chatWithTheRealModel() async throws {
    let data = HybridCommandTests.scratchRegistry()
    defer { try? FileManager.default.removeItem(atPath: data) }
    // The chat's tools from an MCP server, configured as Claude Desktop's file does it.
    let mcpConfig = URL(fileURLWithPath: data).appendingPathComponent("mcp.json")
    try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
    try Data(#"{"mcpServers": {"time": {"command": "\#(TestRepository.dependency("mcp-venv/bin/mcp-server-time").path)", "timeout": 300}}}"#.utf8)
      .write(to: mcpConfig)
    let server = try await ServerProcess(executable: HybridCommandTests.executable, arguments: [
      "--model", "smollm2=\(ModelLocatorPath.path)", "--data", data, "--max-concurrent-requests", "1", "--context-size", "2048",
      "--chat-max-tokens", "200", "--mcp-config", mcpConfig.path])
    let base = server.baseURL.absoluteString
    let config = try await TestHTTP.send(.GET, URL(string: base + "/v1/chat/config")!)
    let groups = try config.json["toolGroups"] as? [[String: Any]]
    #expect(groups?.map { $0["name"] as? String } == ["time"] && Set(groups?.first?["tools"] as? [String] ?? []) == ["get_current_time", "convert_time"],
            "the page offers mcp-server-time's tools: \(config.text)")
    let page = try await TestHTTP.send(.GET, URL(string: base + "/")!)
    #expect(page.status == 200 && page.contentType?.hasPrefix("text/html") == true)
    #expect(page.text.contains("/chat/app.js"))
    let script = try await TestHTTP.send(.GET, URL(string: base + "/chat/app.js")!)
    #expect(script.status == 200 && script.text.contains("MarkdownStream"), "the assets are found beside the binary")

    let created = try await TestHTTP.send(.POST, URL(string: base + "/v1/chat/sessions")!, json: ["title": "Sky"])
    let id = try #require(try created.json["id"] as? String)
    let answer = try await TestHTTP.send(.POST, URL(string: base + "/v1/chat/sessions/\(id)/messages")!,
                                         json: ["text": "Say hello.", "mode": "on-device"])
    #expect(answer.status == 200)
    #expect(answer.text.contains("event: text"), "\(answer.text)")
    #expect(answer.text.contains("event: done") && answer.text.contains("SmolLM2-135M-Instruct.Q4_1"), "\(answer.text)")
    let outputTokens = answer.text.firstMatch(of: /"outputTokens":(\d+)/).flatMap { Int($0.1) }
    #expect(outputTokens.map { (1...200).contains($0) } == true, "--chat-max-tokens 200 bounds the answer: \(answer.text)")

    // A request that repeats its prompt is answered with speculative decoding's drafts, reported as OpenAI does.
    let rewrite = try await TestHTTP.send(.POST, URL(string: base + "/v1beta/openai/chat/completions")!, json: [
      "model": "smollm2", "max_tokens": 40, "temperature": 0,
      "messages": [["role": "user", "content": "Repeat this text exactly:\n\nEvery night the keeper climbed the narrow stairs and polished the great lens until it shone."]],
    ])
    #expect(rewrite.status == 200, "\(rewrite.text)")
    let details = try #require((try rewrite.json["usage"] as? [String: Any])?["completion_tokens_details"] as? [String: Any], "\(rewrite.text)")
    #expect((details["accepted_prediction_tokens"] as? Int ?? 0) > 0, "\(rewrite.text)")

    // The operator's view of the same server: ready (model, registry, sessions), and the answers in the metrics.
    let ready = try await TestHTTP.send(.GET, URL(string: base + "/readyz")!)
    #expect(ready.status == 200, "\(ready.text)")
    let metrics = try await TestHTTP.send(.GET, URL(string: base + "/metrics")!).text
    let output = metrics.split(separator: "\n").first { $0.hasPrefix(#"hybrid_output_tokens_total{model="smollm2"}"#) }
    #expect((output?.split(separator: " ").last.flatMap { Double($0) } ?? 0) > 0, "\(metrics)")
    let accepted = metrics.split(separator: "\n").first { $0.hasPrefix(#"hybrid_accepted_draft_tokens_total{model="smollm2"}"#) }
    #expect((accepted?.split(separator: " ").last.flatMap { Double($0) } ?? 0) > 0, "\(metrics)")
    #expect(metrics.contains(#"hybrid_batch_sequences{model="smollm2"} 0"#), "read at the scrape: \(metrics)")
    #expect(metrics.contains(#"route="/v1/chat/sessions/{id}/messages""#), "\(metrics)")
    let stopped = await server.stop()
    #expect(stopped.status == 0)

    let listed = try await HybridCommandTests().run(["sessions", "list", "--sessions-dir", data + "/sessions"])
    #expect(listed.status == 0 && listed.stdout.contains(id) && listed.stdout.contains("2 entries"), "\(listed.stdout)")
  }

  @Test("on a non-loopback address without API keys the chat is off, and says so")
  func refusedWithoutKeysInPublic() async throws {
    let data = HybridCommandTests.scratchRegistry()
    defer { try? FileManager.default.removeItem(atPath: data) }
    let server = try await ServerProcess(executable: HybridCommandTests.executable, arguments: [
      "--model", "smollm2=\(ModelLocatorPath.path)", "--data", data, "--host", "0.0.0.0", "--context-size", "512"])
    let page = try await TestHTTP.send(.GET, URL(string: "http://127.0.0.1:\(server.baseURL.port ?? 0)/")!)
    #expect(page.status == 404, "no chat without keys on a public address")
    let api = try await TestHTTP.send(.GET, URL(string: "http://127.0.0.1:\(server.baseURL.port ?? 0)/v1/chat/config")!)
    #expect(api.status == 404)
    let models = try await TestHTTP.send(.GET, URL(string: "http://127.0.0.1:\(server.baseURL.port ?? 0)/v1beta/models")!)
    #expect(models.status == 200, "the rest of the server runs")
    await server.stop()
  }

  @Test("serve on a public address without keys warns that the APIs are open; a port in use is said so, exit 1")
  func publicWithoutKeysAndBusyPort() async throws {
    let data = HybridCommandTests.scratchRegistry()
    defer { try? FileManager.default.removeItem(atPath: data) }
    let busy = try Sockets.refusingPort()   // bound: nobody else may listen on it
    defer { close(busy.descriptor) }
    let result = try await ChildProcess.run(HybridCommandTests.executable, [
      "serve", "--model", "smollm2=\(ModelLocatorPath.path)", "--data", data, "--host", "0.0.0.0", "--port", "\(busy.port)",
      "--context-size", "256", "--no-chat"])
    #expect(result.status == 1)
    #expect(result.standardError.contains("warning: --host 0.0.0.0 is not loopback and no API key is required"), "\(result.standardError)")
    #expect(result.standardError.contains("error: cannot listen on 0.0.0.0:\(busy.port): it is already in use"), "\(result.standardError)")
    #expect(!result.standardError.contains("bind(descriptor"), "not SwiftNIO's syscall wording")
  }

  @Test("the page when the server dies mid-answer and comes back: the answer is said lost, the conversation is as before it")
  func pageSurvivesARestart() async throws {
    let python = try TestRepository.requireExecutable(TestRepository.dependency("browser-venv/bin/python"))
    let data = HybridCommandTests.scratchRegistry()
    defer { try? FileManager.default.removeItem(atPath: data) }
    let port = try Sockets.freeLoopbackPort()
    // At most 200 tokens an answer: the first answer is sampled (the chat's defaults), and a rare
    // long one must not outlast the page's waits on a loaded machine; the second is cut off
    // (the server is killed) as soon as it starts.
    let arguments = ["--port", "\(port)", "--model", "smollm2=\(ModelLocatorPath.path)", "--data", data,
                     "--max-concurrent-requests", "1", "--context-size", "2048", "--chat-max-tokens", "200"]
    var server = try await ServerProcess(executable: HybridCommandTests.executable, arguments: arguments)
    let screenshots = TestRepository.root.appendingPathComponent(".build/chat-screenshots")
    try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
    let page = try await ChildProcess(executable: python, arguments: [
      TestRepository.file("Tests/HybridAIChatAppTests/Browser/chat_page_check.py").path, "--scenario", "restart",
      "--url", "http://127.0.0.1:\(port)", "--screenshots", screenshots.path,
    ]).start(standardError: .collected)
    let streaming = await page.firstLine { $0 == "STREAMING" ? true : nil }
    #expect(streaming == true, "the page saw the answer start")
    _ = await server.stop(signal: SIGKILL)   // a crash mid-answer: the connection is cut
    server = try await ServerProcess(executable: HybridCommandTests.executable, arguments: arguments)
    let outcome = await page.waitForExit()
    await server.stop()
    #expect(outcome.succeeded, "\(outcome.standardOutput)\(outcome.standardError)")
  }
}
