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
  private let handlers: Handlers
  private let logger: Logger
  private let state: Mutex<State>
  /// Progress handlers of the calls under way, by progress token.
  private let progressHandlers = Mutex<[String: @Sendable (Double, String) -> Void]>([:])
  /// Called when the server says its tools changed (`notifications/tools/list_changed`), and after
  /// a restart.
  private let toolListObserver = Mutex<(@Sendable () async -> Void)?>(nil)

  /// The server's name.
  public var name: String { configuration.name }

  /// The longest message read from a server (a tool result with a large image, say), in bytes: a
  /// longer one stops the server with ``MCPError/messageTooLarge(server:limit:)``.
  public static let maximumMessageBytes = 8 << 20

  /// The versions of MCP this client speaks, oldest first; a server that answers `initialize` with
  /// another is refused with ``MCPError/unsupportedProtocolVersion(server:version:)``.
  public static let supportedProtocolVersions = Version.supported.sorted()

  /// The longest wait before a server that keeps failing is started again.
  public static let maximumRestartDelay: Duration = .seconds(60)

  /// What the client answers a server with: its sampling, roots and elicitation.
  private struct Handlers: Sendable {
    var sampling: MCPSampling?
    var roots: [URL]
    var elicitation: MCPElicitationHandler?
  }

  /// The running server (its client and transport) and, once it has ended, when it may be started
  /// again.
  private struct State {
    var client: Client
    var transport: any ServerTransport
    /// Restarts since the last request that succeeded.
    var failedStarts = 0
    /// No restart before this instant.
    var restartAfter: ContinuousClock.Instant?
    /// A restart under way, which other requests wait for.
    var restart: Task<Void, any Error>?
    var isClosed = false
  }

  private init(configuration: MCPServerConfiguration, requestTimeout: Duration, handlers: Handlers, client: Client,
               transport: any ServerTransport, logger: Logger) {
    self.configuration = configuration
    self.requestTimeout = requestTimeout
    self.handlers = handlers
    self.state = Mutex(State(client: client, transport: transport))
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
    let sampling = configuration.allowsSampling ? samplingModel.map { MCPSampling(model: $0, maximumTokens: samplingTokenLimit) } : nil
    let handlers = Handlers(sampling: sampling, roots: roots, elicitation: elicitation)
    let transport = try makeTransport(configuration, logger: logger)
    let client = await makeClient(server: configuration.name, handlers: handlers, logger: logger)
    let connection = MCPServerConnection(configuration: configuration, requestTimeout: requestTimeout, handlers: handlers,
                                         client: client, transport: transport, logger: logger)
    try await connection.start(client, transport)
    return connection
  }

  /// Listens for `client`'s notifications and completes the handshake over `transport`; on failure
  /// both are closed.
  private func start(_ client: Client, _ transport: any ServerTransport) async throws {
    await client.onNotification(ProgressNotification.self) { [weak self] message in
      self?.reportProgress(message.params)
    }
    await client.onNotification(ToolListChangedNotification.self) { [weak self] _ in
      guard let self, let observer = toolListObserver.withLock({ $0 }) else { return }
      logger.info("the MCP server's tools changed")
      // Not awaited: the observer asks the server again, whose answer this handler's caller reads.
      Task { await observer() }
    }
    do {
      let result = try await limited("initialize", exit: transport.exit) { try await client.connect(transport: transport) }
      guard Self.supportedProtocolVersions.contains(result.protocolVersion) else {
        throw MCPError.unsupportedProtocolVersion(server: configuration.name, version: result.protocolVersion)
      }
      logger.info("MCP server ready", metadata: [
        "serverName": "\(result.serverInfo.name)", "serverVersion": "\(result.serverInfo.version)",
        "protocolVersion": "\(result.protocolVersion)",
      ])
    } catch {
      await client.disconnect()
      await transport.disconnect()
      switch error as? MCPError {
      case .timedOut?:
        // A server that wrote something other than messages on stdout most likely answered in it.
        if let line = transport.lastUnreadableLine {
          throw MCPError.initializationFailed(server: configuration.name, reason: "\(error); what it wrote on standard output "
            + "is not JSON-RPC (\"\(line)\"): an MCP server over stdio writes only messages there, its own text to standard error")
        }
        throw error
      case .serverExited?, .launchFailed?, .unsupportedProtocolVersion?: throw error
      default: break
      }
      throw MCPError.initializationFailed(server: configuration.name, reason: "\(error)")
    }
  }

  /// The running server's client: the current one, or, when the server has ended, a new one once
  /// the back-off allows (a server that fails again waits 1 s, then 2, 4 … up to
  /// ``maximumRestartDelay``; a request that succeeds resets it).
  private func runningClient() async throws -> (Client, ServerExit) {
    enum Next { case ready(Client, ServerExit), wait(Task<Void, any Error>), delayed(Int, MCPError), closed }
    let next: Next = state.withLock { state in
      if state.isClosed { return .closed }
      if let restart = state.restart { return .wait(restart) }
      guard let ended = state.transport.exit.error else { return .ready(state.client, state.transport.exit) }
      if let after = state.restartAfter, ContinuousClock.now < after {
        let seconds = max(1, Int(((after - ContinuousClock.now) / .seconds(1)).rounded(.up)))
        return .delayed(seconds, ended)
      }
      let restart = Task { try await self.restart(after: ended) }
      state.restart = restart
      return .wait(restart)
    }
    switch next {
    case .ready(let client, let exit): return (client, exit)
    case .closed: throw MCPError.serverExited(server: name, status: -1, standardError: "the connection was closed")
    case .delayed(let seconds, let ended): throw MCPError.restartDelayed(server: name, seconds: seconds, reason: "\(ended)")
    case .wait(let restart):
      try await restart.value
      return try await runningClient()
    }
  }

  /// Starts the server again after it ended with `ended`. Either way the back-off grows: only a
  /// request that succeeds resets it, so a server that fails at once again waits before its next start.
  private func restart(after ended: MCPError) async throws {
    logger.warning("restarting the MCP server", metadata: ["reason": "\(ended)"])
    var failure: (any Error)?
    var started: (Client, any ServerTransport)?
    do {
      let transport = try Self.makeTransport(configuration, logger: logger)
      let client = await Self.makeClient(server: name, handlers: handlers, logger: logger)
      try await start(client, transport)
      started = (client, transport)
    } catch {
      failure = error
    }
    let delay = state.withLock { state in
      if let started { (state.client, state.transport) = started }
      state.restart = nil
      state.failedStarts += 1
      let delay = Self.restartDelay(afterFailedStarts: state.failedStarts)
      state.restartAfter = ContinuousClock.now + delay
      return delay
    }
    if let failure {
      logger.error("the MCP server could not be restarted", metadata: ["error": "\(failure)", "retryInSeconds": "\(delay.components.seconds)"])
      throw failure
    }
    logger.info("the MCP server was restarted")
    if let observer = toolListObserver.withLock({ $0 }) { Task { await observer() } }   // its tools may differ now
  }

  /// How long to wait before the next start after `count` starts with no successful request since.
  static func restartDelay(afterFailedStarts count: Int) -> Duration {
    guard count > 0 else { return .zero }
    return min(.seconds(1 << min(count - 1, 16)), maximumRestartDelay)
  }

  /// A request that succeeded: the next failure starts the back-off afresh.
  private func succeeded() {
    state.withLock { state in
      state.failedStarts = 0
      state.restartAfter = nil
    }
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
  private static func makeClient(server: String, handlers: Handlers, logger: Logger) async -> Client {
    let (sampling, roots, elicitation) = (handlers.sampling, handlers.roots, handlers.elicitation)
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
    let (client, exit) = try await runningClient()
    repeat {
      let page = try await limited("tools/list", exit: exit) { [cursor] in try await client.listTools(cursor: cursor) }
      tools += page.tools
      cursor = page.nextCursor
    } while cursor != nil && tools.count < 10_000
    succeeded()
    return tools
  }

  /// Calls the server's tool `name`; `progress` gets the progress the server reports (fraction,
  /// message). Cancelling the calling task sends `notifications/cancelled`. A server that has
  /// ended is started again first (see ``MCPError/restartDelayed(server:seconds:reason:)``).
  public func callTool(_ name: String, arguments: [String: Value],
                       progress: @escaping @Sendable (Double, String) -> Void = { _, _ in }) async throws -> CallTool.Result {
    let (client, exit) = try await runningClient()
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
    let result = try await withTaskCancellationHandler {
      try await limited("tools/call \(name)", exit: exit) { try await context.value }
    } onCancel: {
      Task { try? await client.cancelRequest(context.requestID, reason: "the answer was stopped") }
    }
    succeeded()
    return result
  }

  /// Stops the server; it is not started again.
  public func close() async {
    let restart = state.withLock { state in
      state.isClosed = true
      return state.restart
    }
    _ = try? await restart?.value
    let (client, transport) = state.withLock { ($0.client, $0.transport) }
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
  private func limited<T: Sendable>(_ method: String, exit: ServerExit,
                                    _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let (server, timeout) = (name, requestTimeout)
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
