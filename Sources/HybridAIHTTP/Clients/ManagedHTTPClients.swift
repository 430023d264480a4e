import AsyncHTTPClient
import NIOCore
import Synchronization

/// The process-wide `HTTPClient`s that HybridAI's cloud clients (Gemini, OpenAI-compatible) use
/// when none is passed in: one per
/// combination of timeouts, created on first use and kept (like `HTTPClient.shared`) for the life
/// of the process, so connections are pooled across models.
///
/// They differ from `HTTPClient.shared` in one way that matters for hybrid routing: a failed
/// connection attempt fails the request at once (`retryConnectionEstablishment = false`) instead
/// of being retried until the connect timeout, so an offline cloud is noticed immediately.
public enum ManagedHTTPClients {
  private struct Key: Hashable {
    var connectTimeout: Duration
    var readTimeout: Duration?
  }

  private static let clients = Mutex<[Key: HTTPClient]>([:])

  /// The client for these timeouts (made on first use).
  public static func client(connectTimeout: Duration, readTimeout: Duration?) -> HTTPClient {
    let key = Key(connectTimeout: connectTimeout, readTimeout: readTimeout)
    return clients.withLock { clients in
      if let client = clients[key] { return client }
      var configuration = HTTPClient.Configuration()
      configuration.timeout = HTTPClient.Configuration.Timeout(
        connect: TimeAmount(connectTimeout), read: readTimeout.map(TimeAmount.init))
      configuration.connectionPool.retryConnectionEstablishment = false
      configuration.decompression = .enabled(limit: .ratio(100))
      let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
      clients[key] = client
      return client
    }
  }
}
