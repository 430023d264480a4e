import Synchronization

/// Whether the server is alive and ready: `GET /healthz` answers while the process runs;
/// `GET /readyz` answers 200 only when every required readiness check passes and the server is
/// not draining (stopping after SIGTERM), so a load balancer sends new work elsewhere.
///
/// A check that is not required names a part the server can work without (the model registry of
/// an instance that also generates): its failure is reported under `degraded`, and the instance
/// stays in the load balancer — taking every instance out because a shared database is down
/// would stop the generation that still works.
public final class ServerHealth: Sendable {
  /// A named check: `nil` when ready, else why not.
  public typealias Check = @Sendable () async -> String?

  /// The checks' results at one moment.
  public struct Status: Sendable, Equatable {
    /// Failing required checks by name (`draining` while stopping): not ready when any.
    public var problems: [String: String]
    /// Failing checks that are not required, by name: ready, with less to offer.
    public var degraded: [String: String]
    /// Whether the server takes new work.
    public var isReady: Bool { problems.isEmpty }
  }

  private struct Entry {
    let name: String
    let isRequired: Bool
    let check: Check
  }

  private let state = Mutex<(isDraining: Bool, checks: [Entry])>((false, []))

  public init() {}

  /// Adds a readiness check (models loaded, the store reachable, …); with `required: false` its
  /// failure only degrades the server (``Status/degraded``).
  public func addCheck(_ name: String, required: Bool = true, _ check: @escaping Check) {
    state.withLock { $0.checks.append(Entry(name: name, isRequired: required, check: check)) }
  }

  /// From now on the server is not ready: it is stopping.
  public func beginDraining() { state.withLock { $0.isDraining = true } }

  /// Whether ``beginDraining()`` was called.
  public var isDraining: Bool { state.withLock { $0.isDraining } }

  /// Runs every check (at once, so the slowest one sets the time) and sorts the failures.
  public func status() async -> Status {
    let (draining, checks) = state.withLock { ($0.isDraining, $0.checks) }
    var status = Status(problems: draining ? ["draining": "the server is stopping"] : [:], degraded: [:])
    let failures = await withTaskGroup(of: (Int, String?).self) { group in
      for (index, entry) in checks.enumerated() { group.addTask { (index, await entry.check()) } }
      var failures: [(Int, String)] = []
      for await (index, problem) in group { if let problem { failures.append((index, problem)) } }
      return failures
    }
    for (index, problem) in failures {
      let entry = checks[index]
      if entry.isRequired { status.problems[entry.name] = problem } else { status.degraded[entry.name] = problem }
    }
    return status
  }
}
