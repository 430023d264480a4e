import AsyncHTTPClient
import HybridAITestSupport

/// The HTTP client of the server tests: like `HTTPClient.shared` (never shut down), but patient.
/// Real models answer these requests, and the whole suite runs at once on CI's two cores, so a
/// short answer can take minutes; `HTTPClient.shared` gives up after 90 s without a byte.
/// Load tests send many requests at once: each gets its own connection (the default is 8 per host,
/// and a request waiting longer than the connect timeout for one of them fails), so the server,
/// not the client, decides who waits.
public enum TestHTTPClient {
  /// The shared client.
  public static let shared: HTTPClient = {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(60), read: .seconds(600))
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 256
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
  }()
}
