import HybridAI
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// The HTTP server `hybrid serve` runs: one port, one router, the products it is given.
///
/// ```swift
/// let registry = try ModelRegistry(configuration: RegistryConfiguration(dataDirectory: directory))
/// let served = ServedModel(name: "smollm2", model: model, contextSize: 4096, embedder: model)
/// let gemini = GeminiCompatibleAPI(models: [served])
/// let server = HybridServer(components: [RegistryAPI(registry: registry), gemini])
/// try await server.run { port in print("listening on \(port)") }   // until SIGINT/SIGTERM
/// ```
///
/// Every error answers in Google's envelope (``GoogleErrorMiddleware``); the configured API keys
/// guard the routes each component marks as client routes. Every server also answers
/// `GET /healthz`, `GET /readyz` (``health``) and `GET /metrics` (``metrics``, Prometheus).
public struct HybridServer: Sendable {
  /// Where it listens and whom it answers.
  public let configuration: ServerConfiguration
  /// The products served, in the order their routes are added.
  public let components: [any ServerComponent]
  /// Liveness and readiness (`/healthz`, `/readyz`): products add their readiness checks.
  public let health: ServerHealth
  /// The server's metrics (`/metrics`): every request's, and what products record.
  public let metrics: ServerMetrics
  private let logger: Logger

  /// A server for `components` (at least one).
  public init(configuration: ServerConfiguration = ServerConfiguration(), components: [any ServerComponent],
              health: ServerHealth = ServerHealth(), metrics: ServerMetrics = ServerMetrics(),
              logger: Logger = Logger(label: "HybridAI.server")) {
    precondition(!components.isEmpty, "a server needs at least one component")
    self.configuration = configuration
    self.components = components
    self.health = health
    self.metrics = metrics
    self.logger = logger
  }

  /// The handlers each connection gets after HTTP/1 decoding: closing a connection whose refused
  /// request is still sending its body, and one whose request head is too slow to arrive.
  private static func connectionHandlers(_ configuration: ServerConfiguration) -> [any RemovableChannelHandler] {
    var handlers: [any RemovableChannelHandler] = [UnreadBodyConnectionCloser()]
    if let timeout = configuration.requestHeadTimeout {
      handlers.append(RequestHeadTimeout(timeout: TimeAmount(timeout)))
    }
    return handlers
  }

  /// Serves until the process gets SIGINT or SIGTERM or the calling task is cancelled; either way
  /// it stops accepting connections, finishes the requests in flight and returns. `onListening`
  /// receives the bound port, which is useful with port `0`. `onShutdownRequested` runs when the
  /// stop begins, while requests are still in flight: the place to give them a deadline and end
  /// them (it is cancelled when the server has stopped first). The configuration's
  /// ``ServerConfiguration/shutdownGracePeriod`` counts from its return, so requests it ended
  /// always have that long to send their last words, however long ending them took.
  public func run(onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in },
                  onShutdownRequested: @escaping @Sendable () async -> Void = {}) async throws {
    let configuration = self.configuration
    let idleTimeout = configuration.idleTimeout.map(TimeAmount.init)
    let app = Application(
      router: makeRouter(),
      server: .http1(configuration: .init(additionalChannelHandlers: Self.connectionHandlers(configuration), idleTimeout: idleTimeout)),
      configuration: ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port), serverName: "HybridAI/\(HybridAIVersion.current)"),
      onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
      logger: logger)
    let group = ServiceGroup(configuration: ServiceGroupConfiguration(
      services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    // The group runs in its own task so that cancelling ours asks for a graceful shutdown instead
    // of cancelling the server mid-request.
    let running = Task { try await group.run() }
    let (stopRequests, requestStop) = AsyncStream<Void>.makeStream()
    let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
    let signalWatcher = Task {
      for await _ in signals {
        requestStop.yield()
        break
      }
    }
    let health = self.health, logger = self.logger
    let shutdownHook = Task {
      for await _ in stopRequests {
        health.beginDraining()   // /readyz says 503 from now on
        await group.triggerGracefulShutdown()   // after a signal the group has begun already; asking twice is harmless
        await onShutdownRequested()
        // Past the grace period, requests still running are cancelled rather than keep the process.
        guard let grace = configuration.shutdownGracePeriod, (try? await Task.sleep(for: grace)) != nil else { return }
        logger.notice("requests still running past the shutdown grace period are cancelled",
                      metadata: ["gracePeriod": "\(grace)"])
        running.cancel()
        return
      }
    }
    defer {
      shutdownHook.cancel()
      signalWatcher.cancel()
    }
    do {
      try await withTaskCancellationHandler {
        try await running.value
      } onCancel: {
        requestStop.yield()
      }
    } catch where running.isCancelled {
      // Only the grace period's end cancels the group: the normal end of such a stop.
      logger.debug("the server stopped after the grace period", metadata: ["error": "\(error)"])
    }
  }

  /// The router with every component's routes, for running or for testing in memory.
  public func makeRouter() -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: RequestMetricsMiddleware(metrics: metrics))   // outside: it sees the final status
    if !configuration.allowedOrigins.isEmpty {   // outside the errors' middleware: error answers get the headers too
      router.add(middleware: CrossOriginMiddleware<BasicRequestContext>(allowedOrigins: configuration.allowedOrigins))
    }
    router.add(middleware: GoogleErrorMiddleware(maxRequestBytes: configuration.maxRequestBytes))
    router.add(middleware: DrainingMiddleware(health: health))
    OperationsAPI(health: health, metrics: metrics).addRoutes(to: router, server: configuration)
    for component in components {
      component.addRoutes(to: router, server: configuration)
    }
    return router
  }
}
