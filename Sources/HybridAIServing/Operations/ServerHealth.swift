import Synchronization

/// Whether the server is alive and ready: `GET /healthz` answers while the process runs;
/// `GET /readyz` answers 200 only when every readiness check passes and the server is not
/// draining (stopping after SIGTERM), so a load balancer sends new work elsewhere.
public final class ServerHealth: Sendable {
  /// A named check: `nil` when ready, else why not.
  public typealias Check = @Sendable () async -> String?

  private let state = Mutex<(isDraining: Bool, checks: [(name: String, check: Check)])>((false, []))

  public init() {}

  /// Adds a readiness check (models loaded, the store reachable, …).
  public func addCheck(_ name: String, _ check: @escaping Check) {
    state.withLock { $0.checks.append((name, check)) }
  }

  /// From now on the server is not ready: it is stopping.
  public func beginDraining() { state.withLock { $0.isDraining = true } }

  /// Whether ``beginDraining()`` was called.
  public var isDraining: Bool { state.withLock { $0.isDraining } }

  /// The failing checks by name (`draining` while stopping); empty when ready.
  public func problems() async -> [String: String] {
    let (draining, checks) = state.withLock { ($0.isDraining, $0.checks) }
    var problems: [String: String] = draining ? ["draining": "the server is stopping"] : [:]
    for (name, check) in checks {
      if let problem = await check() { problems[name] = problem }
    }
    return problems
  }
}
