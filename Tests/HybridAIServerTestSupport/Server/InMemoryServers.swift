import Foundation
import HummingbirdTesting
import HybridAITestSupport
import Synchronization

/// The in-memory servers running now, by the host of their ``RunningServer/baseURL``
/// (`http://in-memory-<n>`), so ``TestHTTP`` can hand a request for one straight to its router.
enum InMemoryServers {
  private static let clients = Mutex<[String: any TestClientProtocol]>([:])
  private static let counter = Atomic<Int>(0)

  /// A new host name.
  static func makeHost() -> String { "in-memory-\(counter.add(1, ordering: .relaxed).newValue)" }

  static func register(_ client: any TestClientProtocol, host: String) { clients.withLock { $0[host] = client } }

  static func remove(host: String) { _ = clients.withLock { $0.removeValue(forKey: host) } }

  /// The router client for `url`, when it names an in-memory server.
  static func client(for url: URL) -> (any TestClientProtocol)? {
    guard let host = url.host, host.hasPrefix("in-memory-") else { return nil }
    return clients.withLock { $0[host] }
  }
}
