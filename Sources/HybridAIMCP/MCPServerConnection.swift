import Foundation
import HybridAI
import HybridAIProcess
import Logging
import MCP
import Synchronization

/// One MCP server in use: started as a child process (or reached over HTTP), initialized, and asked for its tools and
/// their results. Each request has a time limit; a call whose task is cancelled sends
/// `notifications/cancelled`; progress the server reports reaches the caller.
public final class MCPServerConnection: Sendable {
  public let configuration: MCPServerConfiguration
  /// The most a request may take.
  public let requestTimeout: Duration
  let client: Client
  private let transport: any ServerTransport
  private let logger: Logger
  /// Progress handlers of the calls under way, by progress token.
  private let progressHandlers = Mutex<[String: @Sendable (Double, String) -> Void]>([:])
  /// Called when the server says its tools changed (`notifications/tools/list_changed`).
  private let toolListObserver = Mutex<(@Sendable () async -> Void)?>(nil)

  /// The server's name.
  public var name: String { configuration.name }

  /// The longest message read from a server (a tool result with a large image, say), in bytes: a
  /// longer one stops the server with ``MCPError/messageTooLarge(server:limit:)``.
  public static let maximumMessageBytes = 8 << 20

  private init(configuration: MCPServerConfiguration, requestTimeout: Duration, client: Client,
               transport: any ServerTransport, logger: Logger) {
    self.configuration = configuration
    self.requestTimeout = requestTimeout
    self.client = client
    self.transport = transport
    self.logger = logger
  }

  /// Starts the server and completes MCP's handshake. A server whose configuration allows sampling
  /// has its `sampling/createMessage` requests answered by `samplingModel` (answers of at most
  /// `samplingTokenLimit` tokens); others are told the client cannot sample. `roots` are the
  /// folders the user lets servers work in (`roots/list`); a request for the user's input
  /// (`elicitation/create`) goes to `elicitation`, and without one is declined.
  public static func connect(_ configuration: MCPServerConfiguration, requestTimeout: Duration = .seconds(60),
                             samplingModel: (any LanguageModel)? = nil, samplingTokenLimit: Int = 1024,
                             roots: [URL] = [], elicitation: MCPElicitationHandler? = nil,
                             logger: Logger = Logger(label: "HybridAI.mcp")) async throws -> MCPServerConnection {
    var logger = logger
    logger[metadataKey: "server"] = "\(configuration.name)"
    let transport = try makeTransport(configuration, logger: logger)
    let sampling = configuration.allowsSampling ? samplingModel.map { MCPSampling(model: $0, maximumTokens: samplingTokenLimit) } : nil
    let client = await makeClient(server: configuration.name, sampling: sampling, roots: roots, elicitation: elicitation,
                                  logger: logger)
    let connection = MCPServerConnection(configuration: configuration, requestTimeout: requestTimeout, client: client,
                                         transport: transport, logger: logger)
    await client.onNotification(ProgressNotification.self) { [weak connection] message in
      connection?.reportProgress(message.params)
    }
    await client.onNotification(ToolListChangedNotification.self) { [weak connection] _ in
      guard let connection, let observer = connection.toolListObserver.withLock({ $0 }) else { return }
      connection.logger.info("the MCP server's tools changed")
      // Not awaited: the observer asks the server again, whose answer this handler's caller reads.
      Task { await observer() }
    }
    do {
      let result = try await connection.limited("initialize") { try await client.connect(transport: transport) }
      logger.info("MCP server ready", metadata: [
        "serverName": "\(result.serverInfo.name)", "serverVersion": "\(result.serverInfo.version)",
        "protocolVersion": "\(result.protocolVersion)",
      ])
    } catch {
      await client.disconnect()
      await transport.disconnect()
      switch error as? MCPError {
      case .serverExited?, .timedOut?: throw error
      default: break
      }
      throw MCPError.initializationFailed(server: configuration.name, reason: "\(error)")
    }
    return connection
  }

  /// The transport `configuration` names: Streamable HTTP for a URL, else the program as a child process.
  private static func makeTransport(_ configuration: MCPServerConfiguration, logger: Logger) throws -> any ServerTransport {
    if let url = configuration.url {
      return StreamableHTTPTransport(server: configuration.name, endpoint: url, headers: configuration.headers, logger: logger)
    }
    let command = configuration.command
    guard let executable = ChildProcess.locate(command)
      ?? (FileManager.default.isExecutableFile(atPath: command) ? command : nil) else {
      throw MCPError.launchFailed(server: configuration.name, reason: "\(command) is not a program on $PATH")
    }
    var child = ChildProcess(executable: executable, arguments: configuration.arguments,
                             environment: configuration.environment.mapValues { Optional($0) },
                             workingDirectory: configuration.workingDirectory)
    child.maximumLineBytes = maximumMessageBytes
    return ChildProcessTransport(server: configuration.name, child: child, logger: logger)
  }

  /// The SDK's client with the capabilities and handlers HybridAI offers: roots when there are
  /// some, elicitation (the app's handler, else declined), sampling when `sampling` answers it.
  private static func makeClient(server: String, sampling: MCPSampling?, roots: [URL], elicitation: MCPElicitationHandler?,
                                 logger: Logger) async -> Client {
    let client = Client(name: "HybridAI", version: HybridAIVersion.current,
                        capabilities: Client.Capabilities(sampling: sampling == nil ? nil : .init(), elicitation: .init(),
                                                          roots: roots.isEmpty ? nil : .init(listChanged: false)))
    if !roots.isEmpty {
      let listed = roots.map { Root(uri: $0.standardizedFileURL.absoluteString, name: $0.lastPathComponent) }
      await client.withRootsHandler { listed }
    }
    await client.withElicitationHandler { [logger] parameters in
      guard let elicitation else {
        logger.info("the server asked for the user's input; declined (no handler)")
        return CreateElicitation.Result(action: .decline)
      }
      let result = await elicitation(MCPElicitationRequest(server: server, parameters)).result
      logger.info("the server asked for the user's input", metadata: ["answer": "\(result.action.rawValue)"])
      return result
    }
    if let sampling {
      await client.withSamplingHandler { [logger] parameters in
        logger.info("the server asked the app's model for a completion", metadata: [
          "messages": "\(parameters.messages.count)", "maxTokens": "\(parameters.maxTokens)",
        ])
        return try await sampling.answer(parameters)
      }
    }
    return client
  }

  /// Has `observer` called whenever the server says its tools changed (`tools/list_changed`);
  /// it replaces the one set before. ``MCPToolbox`` lists the tools again then.
  public func onToolListChanged(_ observer: @escaping @Sendable () async -> Void) {
    toolListObserver.withLock { $0 = observer }
  }

  /// Every tool the server offers (all pages of `tools/list`).
  public func tools() async throws -> [MCP.Tool] {
    var tools: [MCP.Tool] = []
    var cursor: String?
    repeat {
      let page = try await limited("tools/list") { [client, cursor] in try await client.listTools(cursor: cursor) }
      tools += page.tools
      cursor = page.nextCursor
    } while cursor != nil && tools.count < 10_000
    return tools
  }

  /// Calls the server's tool `name`; `progress` gets the progress the server reports (fraction,
  /// message). Cancelling the calling task sends `notifications/cancelled`.
  public func callTool(_ name: String, arguments: [String: Value],
                       progress: @escaping @Sendable (Double, String) -> Void = { _, _ in }) async throws -> CallTool.Result {
    let token = UUID().uuidString
    progressHandlers.withLock { $0[token] = progress }
    defer { progressHandlers.withLock { _ = $0.removeValue(forKey: token) } }
    let request = CallTool.request(.init(name: name, arguments: arguments, meta: Metadata(progressToken: .string(token))))
    let context: RequestContext<CallTool.Result>
    do {
      context = try await client.send(request)
    } catch {
      throw MCPError.requestFailed(server: self.name, method: "tools/call", reason: "\(error)")
    }
    return try await withTaskCancellationHandler {
      try await limited("tools/call \(name)") { try await context.value }
    } onCancel: { [client] in
      Task { try? await client.cancelRequest(context.requestID, reason: "the answer was stopped") }
    }
  }

  /// Stops the server.
  public func close() async {
    await client.disconnect()
    await transport.disconnect()
  }

  private func reportProgress(_ parameters: ProgressNotification.Parameters) {
    guard case .string(let token) = parameters.progressToken,
          let handler = progressHandlers.withLock({ $0[token] }) else { return }
    let fraction = parameters.total.map { $0 > 0 ? parameters.progress / $0 : 0 } ?? 0
    handler(fraction, parameters.message ?? "")
  }

  /// `body` within ``requestTimeout`` and while the server runs; a timeout, a server that exited,
  /// or an error, as an ``MCPError``. The first of the three to end decides; `body` is cancelled
  /// but not waited for (a request the SDK keeps pending ends when the client disconnects).
  private func limited<T: Sendable>(_ method: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let (server, timeout, exit) = (name, requestTimeout, transport.exit)
    let outcome = FirstOutcome<T>()
    let tasks = [
      Task {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        await outcome.settle(with: result)
      },
      Task {
        guard (try? await Task.sleep(for: timeout)) != nil else { return }
        await outcome.settle(with: .failure(MCPError.timedOut(server: server, method: method,
                                                              seconds: Int(timeout.components.seconds))))
      },
      Task {
        // A server that ended answers nothing more.
        guard let ended = await exit.wait() else { return }
        await outcome.settle(with: .failure(ended))
      },
    ]
    defer { tasks.forEach { $0.cancel() } }
    let result = await withTaskCancellationHandler {
      await outcome.value()
    } onCancel: {
      Task { await outcome.settle(with: .failure(CancellationError())) }
    }
    switch result {
    case .success(let value): return value
    case .failure(let error as MCPError): throw error
    case .failure(let error as CancellationError): throw error
    case .failure(let error): throw MCPError.requestFailed(server: server, method: method, reason: "\(error)")
    }
  }
}

/// The first result of several racing tasks.
private actor FirstOutcome<T: Sendable> {
  private var result: Result<T, any Error>?
  private var waiter: CheckedContinuation<Result<T, any Error>, Never>?

  func settle(with result: Result<T, any Error>) {
    guard self.result == nil else { return }
    self.result = result
    waiter?.resume(returning: result)
    waiter = nil
  }

  func value() async -> Result<T, any Error> {
    if let result { return result }
    return await withCheckedContinuation { waiter = $0 }
  }
}
