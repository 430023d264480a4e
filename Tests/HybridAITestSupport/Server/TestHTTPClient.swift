import AsyncHTTPClient

/// The HTTP client of the server tests: like `HTTPClient.shared` (never shut down), but patient.
/// Real models answer these requests, and the whole suite runs at once on CI's two cores, so a
/// short answer can take minutes; `HTTPClient.shared` gives up after 90 s without a byte.
public enum TestHTTPClient {
  /// The shared client.
  public static let shared: HTTPClient = {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(10), read: .seconds(600))
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
  }()
}
