import HybridAITestSupport

/// How a test reaches an in-process server: the same test runs over either.
public enum ServerTransport: String, Sendable, CaseIterable {
  /// Requests go straight to the router, in memory (HummingbirdTesting's router framework): no
  /// socket, no port; fast, and what a handler does is all that is tested.
  case inMemory
  /// The real ``HybridServer`` on 127.0.0.1, over TCP: what clients see, connection handling included.
  case socket
}
