import AsyncHTTPClient
import NIOCore

/// The `HTTPClient` that `ModelDownloader` and `ModelRegistryAdmin` use when none is passed in:
/// created on first use and kept for the life of the process (like `HTTPClient.shared`).
///
/// It differs from `HTTPClient.shared` where it matters for downloads: a failed connection attempt
/// fails at once (`retryConnectionEstablishment = false`) instead of being retried for up to the
/// connect timeout, so an unreachable registry is noticed immediately (and a download resumes on
/// the downloader's own retry policy); connecting gives up after 10 s; a connection on which
/// nothing arrives for ``readTimeout`` is given up (a network that went away without a word: the
/// download resumes from where it stopped; a registry that never answers is offline,
/// `OfflineReason.noResponse`); answers are never decompressed (ranges count the file's own bytes).
public enum DeliveryHTTPClient {
  /// How long a connection may stay silent — before the answer's head, or between two reads of its
  /// body — before it is given up: 60 s.
  public static let readTimeout: TimeAmount = .seconds(60)

  /// The client.
  public static let shared: HTTPClient = makeClient()

  /// A new client with these settings and the timeouts given (shut it down when done); for a
  /// `ModelDownloader` or `ModelRegistryAdmin` that should give up sooner or later than
  /// ``shared``.
  public static func makeClient(connectTimeout: TimeAmount = .seconds(10), readTimeout: TimeAmount = readTimeout) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = HTTPClient.Configuration.Timeout(connect: connectTimeout, read: readTimeout)
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.decompression = .disabled
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
  }
}
