import AsyncHTTPClient
import NIOCore

/// The `HTTPClient` that `ModelDownloader` and `ModelRegistryAdmin` use when none is passed in:
/// created on first use and kept for the life of the process (like `HTTPClient.shared`).
///
/// It differs from `HTTPClient.shared` where it matters for downloads: a failed connection attempt
/// fails at once (`retryConnectionEstablishment = false`) instead of being retried for up to the
/// connect timeout, so an unreachable registry is noticed immediately (and a download resumes on
/// the downloader's own retry policy); connecting gives up after 10 s; answers are never
/// decompressed (ranges count the file's own bytes).
public enum DeliveryHTTPClient {
  /// The client.
  public static let shared: HTTPClient = {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(10))
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.decompression = .disabled
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
  }()
}
