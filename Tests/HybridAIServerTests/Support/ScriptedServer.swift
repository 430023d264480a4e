import Foundation
import HybridAI
import HybridAIServer
import HybridAITestSupport
import Synchronization

/// A language model that answers with scripted events (text, tool calls) and records every
/// request it gets: what the server handed its model, without a real model's variability.
final class ScriptedModel: LanguageModel {
  /// The events of answer number `index` (0-based), before the completion.
  typealias Script = @Sendable (_ request: GenerationRequest, _ index: Int) -> [GenerationEvent]

  let requests = Mutex<[GenerationRequest]>([])
  private let script: Script
  private let support: @Sendable (GenerationRequest) -> RequestSupport

  init(support: @escaping @Sendable (GenerationRequest) -> RequestSupport = { _ in .supported },
       script: @escaping Script) {
    self.support = support
    self.script = script
  }

  var modelIdentifier: String { "scripted-1" }
  var source: ModelSource { .onDevice }
  var availability: ModelAvailability { .available }
  func supports(_ request: GenerationRequest) async -> RequestSupport { support(request) }

  func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    let index = requests.withLock { $0.append(request); return $0.count - 1 }
    let events = script(request, index)
    return AsyncThrowingStream { continuation in
      for event in events { continuation.yield(event) }
      continuation.yield(.completed(RawResponse(modelVersion: modelIdentifier, source: .onDevice,
                                                usage: Usage(promptTokens: 20, outputTokens: 4), finishReason: .stop)))
      continuation.finish()
    }
  }

  /// The requests so far.
  var received: [GenerationRequest] { requests.withLock { $0 } }
}

/// A real ``HybridServer`` with the ``GeminiCompatibleAPI`` on 127.0.0.1 (a free port) serving a ``ScriptedModel`` as
/// `scripted`.
final class ScriptedServer: Sendable {
  static let modelName = "scripted"

  let model: ScriptedModel
  let log: RequestLog
  private let server: RunningServer

  var port: Int { server.port }
  var baseURL: URL { server.baseURL }

  private init(server: RunningServer, model: ScriptedModel, log: RequestLog) {
    self.server = server
    self.model = model
    self.log = log
  }

  static func start(_ model: ScriptedModel) async throws -> ScriptedServer {
    let log = RequestLog()
    let api = GeminiCompatibleAPI(
      models: [ServedModel(name: modelName, model: model, inputTokenLimit: 4096, outputTokenLimit: 1024,
                           countTokens: { $0.transcript.count * 10 })],
      onGenerateRequest: { _, request in log.append(request) })
    return ScriptedServer(server: try await RunningServer.start([api]), model: model, log: log)
  }

  func url(_ method: String) -> URL {
    URL(string: "\(baseURL.absoluteString)/v1beta/models/\(Self.modelName):\(method)")!
  }

  func stop() async { await server.stop() }
}
