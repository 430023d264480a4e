import Foundation
import HybridAI
import HybridAIServer
import HybridAIServerTestSupport
import HybridAIServing
import HybridAITestSupport

extension ScriptedLanguageModel {
  /// The model a ``ScriptedServer`` serves: `scripted-1`, on device, answering with `script`'s events
  /// (20 prompt tokens, 4 output tokens); `support` decides which requests it takes.
  static func served(support: @escaping @Sendable (GenerationRequest) -> RequestSupport = { _ in .supported },
                     script: @escaping Script) -> ScriptedLanguageModel {
    ScriptedLanguageModel(identifier: "scripted-1", support: support, modelVersion: "scripted-1",
                          usage: Usage(promptTokens: 20, outputTokens: 4), script: script)
  }
}

/// A real ``HybridServer`` with the ``GeminiCompatibleAPI``, over a socket on 127.0.0.1 (a free port) or in memory, serving a ``ScriptedLanguageModel`` as
/// `scripted`.
final class ScriptedServer: Sendable {
  static let modelName = "scripted"

  let model: ScriptedLanguageModel
  let log: RequestLog
  private let server: RunningServer

  var port: Int { server.port }
  var baseURL: URL { server.baseURL }

  private init(server: RunningServer, model: ScriptedLanguageModel, log: RequestLog) {
    self.server = server
    self.model = model
    self.log = log
  }

  /// With `serverTools`, the model runs those tools itself (``ServedModel/runningTools(of:maximumRounds:)``).
  static func start(_ model: ScriptedLanguageModel, transport: ServerTransport = .socket,
                    configuration: ServerConfiguration = ServerConfiguration(),
                    serverTools: (catalog: any ToolCatalog, maximumRounds: Int)? = nil) async throws -> ScriptedServer {
    let log = RequestLog()
    var served = ServedModel(name: modelName, model: model, inputTokenLimit: 4096, outputTokenLimit: 1024,
                             countTokens: { $0.transcript.count * 10 })
    if let serverTools { served = served.runningTools(of: serverTools.catalog, maximumRounds: serverTools.maximumRounds) }
    let api = GeminiCompatibleAPI(models: [served], onGenerateRequest: { _, request in log.append(request) })
    return ScriptedServer(server: try await RunningServer.start([api, OpenAICompatibleAPI(models: [served])],
                                                                configuration: configuration, transport: transport),
                          model: model, log: log)
  }

  func url(_ method: String) -> URL {
    URL(string: "\(baseURL.absoluteString)/v1beta/models/\(Self.modelName):\(method)")!
  }

  func stop() async { await server.stop() }
}
