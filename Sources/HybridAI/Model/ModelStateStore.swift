import Synchronization

/// Per-session storage that backends use to keep state belonging to one session, such as a
/// llama.cpp context with its KV cache. A session owns one store; when the session goes away,
/// so does everything in it.
public final class ModelStateStore: Sendable {
  private let states = Mutex<[String: any Sendable]>([:])

  public init() {}

  /// Returns the state stored under `key`, creating it with `make` when there is none or when
  /// the stored value has a different type.
  public func state<State: Sendable>(for key: String, orMake make: () throws -> State) rethrows -> State {
    try states.withLock { states in
      if let existing = states[key] as? State { return existing }
      let made = try make()
      states[key] = made
      return made
    }
  }

  /// Forgets the state stored under `key`.
  public func removeState(for key: String) {
    _ = states.withLock { $0.removeValue(forKey: key) }
  }

  /// Forgets everything.
  public func removeAll() {
    states.withLock { $0.removeAll() }
  }
}
