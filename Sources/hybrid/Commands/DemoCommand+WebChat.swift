import AsyncHTTPClient
import Foundation
import HybridAIProcess
import HybridCommandLine
import NIOCore
import NIOHTTP1

/// The web chat step: `hybrid serve` with its chat page; one message sent through the sessions API
/// the page uses, its typed events printed as they stream; then the address to open.
extension DemoCommand {
  func tourWebChat(modelPath: String) async -> Bool {
    heading("15. The web chat: `hybrid serve` serves a chat page at / and the sessions API it uses")
    let directory = URL(fileURLWithPath: ".build/demo/web-chat", isDirectory: true)
    try? FileManager.default.removeItem(at: directory)
    let server: ServerProcess
    do {
      server = try await ServerProcess(executable: Executables.current, arguments: [
        "--model", "smollm2=\(modelPath)", "--max-concurrent-requests", "1", "--context-size", "2048",
        "--data", directory.path,
      ])
    } catch {
      Terminal.write("    ↳ error: the server did not start: \(error)\n")
      return false
    }
    let base = server.baseURL.absoluteString
    var succeeded = false
    do {
      let page = try await Self.fetch(.GET, base + "/")
      Terminal.write("  GET / → \(page.status), \(page.body.count) bytes of HTML (script and styles from the same server)\n")
      let created = try await Self.fetch(.POST, base + "/v1/chat/sessions", json: #"{"title": "Demo"}"#)
      let session = try JSONSerialization.jsonObject(with: created.body) as? [String: Any]
      let id = session?["id"] as? String ?? ""
      let prompt = "In one sentence, why is the sky blue?"
      Terminal.write("  session \(id)\n  you> \(prompt)\n  events:\n")
      let answer = try await Self.fetch(.POST, base + "/v1/chat/sessions/\(id)/messages",
                                        json: #"{"text": "\#(prompt)", "mode": "on-device"}"#)
      var text = ""
      var names: [String] = []
      for block in String(decoding: answer.body, as: UTF8.self).components(separatedBy: "\n\n") where !block.isEmpty {
        let lines = block.split(separator: "\n")
        let name = lines.first { $0.hasPrefix("event: ") }.map { String($0.dropFirst(7)) } ?? "message"
        let data = lines.first { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) } ?? "{}"
        let payload = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
        if name == "text" { text += payload["delta"] as? String ?? ""; if names.last != "text" { names.append(name) }; continue }
        names.append(name)
        if name == "done" {
          Terminal.write("    done: \(payload["source"] ?? "?") · \(payload["modelVersion"] ?? "?") · "
            + "\(((payload["usage"] as? [String: Any])?["outputTokens"]) ?? "?") output tokens\n")
          succeeded = true
        } else if name == "error" {
          Terminal.write("    error: \(payload["message"] ?? "?")\n")
        }
      }
      Terminal.write("    sequence: \(names.map { $0 == "text" ? "text…" : $0 }.joined(separator: " → "))\n  ai> \(text)\n")
      Self.answers.record(text)
    } catch {
      Terminal.write("    ↳ error: \(error)\n")
    }
    _ = await server.stop()
    return succeeded
  }

  /// The tour's last words: where the chat page is when the user starts a server.
  func printWebChatAddress() {
    heading("Next: the web chat")
    Terminal.write("  .build/debug/hybrid serve     then open  http://127.0.0.1:8080/\n")
  }

  /// One request with AsyncHTTPClient's shared client; the whole body.
  static func fetch(_ method: HTTPMethod, _ url: String, json: String? = nil) async throws -> (status: UInt, body: Data) {
    var request = HTTPClientRequest(url: url)
    request.method = method
    if let json {
      request.headers.add(name: "content-type", value: "application/json")
      request.body = .bytes(ByteBuffer(string: json))
    }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
    let body = try await response.body.collect(upTo: 16 << 20)
    return (response.status.code, Data(buffer: body))
  }
}
