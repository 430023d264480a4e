import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A real HTTP server on loopback that answers every Gemini call the same scripted way: Google's
/// errors, a safety block, or an SSE stream cut after its first chunk — the cloud failures our own
/// server never produces. (Google's recorded answers are in ../shared/fixtures.)
final class ScriptedCloud: Sendable {
  enum Answer: Sendable {
    /// An HTTP status with a JSON body.
    case status(Int, body: String)
    /// One SSE chunk with `text`, then the connection drops.
    case streamCutAfterFirstChunk(text: String)
  }

  let port: Int
  private let task: Task<Void, any Error>
  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  private init(port: Int, task: Task<Void, any Error>) {
    self.port = port
    self.task = task
  }

  static func start(answering answer: Answer) async throws -> ScriptedCloud {
    let router = Router()
    router.post("/v1beta/models/{model}") { _, _ -> Response in
      switch answer {
      case .status(let code, let body):
        return Response(status: HTTPResponse.Status(code: code), headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
      case .streamCutAfterFirstChunk(let text):
        return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody { writer in
          let chunk = #"{"candidates":[{"content":{"role":"model","parts":[{"text":"\#(text)"}]}}],"modelVersion":"scripted"}"#
          try await writer.write(ByteBuffer(string: "data: \(chunk)\r\n\r\n"))
          try await Task.sleep(for: .milliseconds(50))
          throw CancellationError()   // Hummingbird closes the connection mid-body
        })
      }
    }
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                          onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) })
    let task = Task { try await app.runService(gracefulShutdownSignals: []) }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else { throw CancellationError() }
    return ScriptedCloud(port: port, task: task)
  }

  func stop() async {
    task.cancel()
    _ = try? await task.value
  }

  /// Google's error envelope.
  static func googleError(code: Int, status: String, message: String, reason: String? = nil) -> String {
    let details = reason.map {
      #", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "\#($0)", "domain": "googleapis.com"}]"#
    } ?? ""
    return #"{"error": {"code": \#(code), "message": "\#(message)", "status": "\#(status)"\#(details)}}"#
  }
}
