import Foundation
import NIOSSL
import PostgresNIO

extension PostgresRegistryStore {
  /// Where the PostgreSQL database is and how to talk to it; usually parsed from a URL
  /// (``init(url:)``, see ``RegistryDatabase``).
  public struct Configuration: Sendable, Hashable {
    /// The server's host name or IP address.
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// The role to log in as.
    public var username: String
    /// Its password (`nil`: none, e.g. `trust` authentication).
    public var password: String?
    /// The database, which must exist; the store creates its tables in it.
    public var database: String
    /// Whether the connections use TLS.
    public var tls: TLSMode
    /// How long one store call may take, waiting for a connection included, before it throws
    /// ``RegistryStoreError/unavailable(_:)``.
    public var operationTimeout: Duration
    /// How long opening one connection may take.
    public var connectTimeout: Duration
    /// How long a request may wait on the database for its API key's limits before the instance
    /// counts them by itself (``PostgresRegistryStore/take(_:from:perMinute:ifAtLeast:)``).
    public var rateLimitTimeout: Duration
    /// The most connections the store keeps open at once.
    public var maximumConnections: Int

    /// TLS between the store and the server, as libpq's `sslmode`.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
      /// No TLS.
      case disable
      /// TLS when the server offers it, else plain; the certificate is not checked.
      case prefer
      /// TLS or no connection; the certificate is not checked.
      case require
      /// TLS or no connection, the certificate checked against the system's trust roots and the host name.
      case verifyFull = "verify-full"
    }

    /// A configuration; `database` defaults to `username`, as libpq's does.
    public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String? = nil,
                tls: TLSMode = .prefer, operationTimeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(5),
                rateLimitTimeout: Duration = .seconds(1), maximumConnections: Int = 10) {
      self.host = host
      self.port = port
      self.username = username
      self.password = password
      self.database = database ?? username
      self.tls = tls
      self.operationTimeout = operationTimeout
      self.connectTimeout = connectTimeout
      self.rateLimitTimeout = rateLimitTimeout
      self.maximumConnections = maximumConnections
    }

    /// Parses `postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=MODE` (or `postgresql://`), with
    /// optional `connect_timeout`, `operation_timeout` and `rate_limit_timeout` in seconds.
    public init(url: String) throws(RegistryDatabaseURLError) {
      let scheme = url.split(separator: ":", maxSplits: 1).first.map(String.init) ?? url
      guard scheme == "postgres" || scheme == "postgresql" else {
        throw .unsupportedScheme(url.contains(":") ? scheme : url)
      }
      guard let components = URLComponents(string: url) else {
        throw .malformed(url: Self.redacted(url), reason: "not a URL")
      }
      let shown = Self.redacted(url)
      guard var host = components.percentEncodedHost, !host.isEmpty else {
        throw .malformed(url: shown, reason: "no host (postgres://USER:PASSWORD@HOST:PORT/DATABASE)")
      }
      if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
      host = host.removingPercentEncoding ?? host
      guard let username = components.user, !username.isEmpty else {
        throw .malformed(url: shown, reason: "no user name (postgres://USER@HOST/DATABASE)")
      }
      var path = components.path
      if path.hasPrefix("/") { path.removeFirst() }
      guard !path.contains("/") else { throw .malformed(url: shown, reason: "the path must be one database name") }
      var tls = TLSMode.prefer
      var connectTimeout = Duration.seconds(5), operationTimeout = Duration.seconds(10), rateLimitTimeout = Duration.seconds(1)
      for item in components.queryItems ?? [] {
        switch item.name {
        case "sslmode":
          guard let mode = TLSMode(rawValue: item.value ?? "") else { throw .unsupportedSSLMode(item.value ?? "") }
          tls = mode
        case "connect_timeout", "operation_timeout", "rate_limit_timeout":
          // libpq's connect_timeout, and ours: how long one registry call, or one request's
          // limits check, may wait for its answer.
          guard let seconds = item.value.flatMap(Double.init), seconds > 0, seconds <= 3600 else {
            throw .malformed(url: shown, reason: "\(item.name) must be a number of seconds above 0")
          }
          let timeout = Duration.milliseconds(Int(seconds * 1000))
          switch item.name {
          case "connect_timeout": connectTimeout = timeout
          case "operation_timeout": operationTimeout = timeout
          default: rateLimitTimeout = timeout
          }
        default:
          throw .unsupportedParameter(item.name)
        }
      }
      if let port = components.port, !(1...65535).contains(port) {
        throw .malformed(url: shown, reason: "port \(port) is out of range")
      }
      self.init(host: host, port: components.port ?? 5432, username: username, password: components.password,
                database: path.isEmpty ? nil : path, tls: tls, operationTimeout: operationTimeout, connectTimeout: connectTimeout,
                rateLimitTimeout: rateLimitTimeout)
    }

    /// `HOST:PORT` (`[HOST]:PORT` for IPv6), for messages.
    public var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The URL without the password: `postgres://USER@HOST:PORT/DATABASE?sslmode=MODE`.
    public var redactedDescription: String {
      "postgres://\(username)\(password == nil ? "" : ":***")@\(endpoint)/\(database)?sslmode=\(tls.rawValue)"
    }

    /// `url` with the password between `USER:` and `@` replaced by `***`.
    private static func redacted(_ url: String) -> String {
      guard let schemeEnd = url.range(of: "://") else { return url }
      let authorityEnd = url[schemeEnd.upperBound...].firstIndex(where: { "/?#".contains($0) }) ?? url.endIndex
      guard let at = url[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@"),
            let colon = url[schemeEnd.upperBound..<at].firstIndex(of: ":") else { return url }
      return url[..<url.index(after: colon)] + "***" + url[at...]
    }

    // MARK: - PostgresNIO

    var clientConfiguration: PostgresClient.Configuration {
      var configuration = PostgresClient.Configuration(
        host: host, port: port, username: username, password: password, database: database, tls: clientTLS)
      configuration.options.connectTimeout = connectTimeout
      configuration.options.minimumConnections = 0
      configuration.options.maximumConnections = max(1, maximumConnections)
      return configuration
    }

    func connectionConfiguration() throws -> PostgresConnection.Configuration {
      var configuration = PostgresConnection.Configuration(
        host: host, port: port, username: username, password: password, database: database, tls: try connectionTLS())
      configuration.options.connectTimeout = .init(connectTimeout)
      return configuration
    }

    private var tlsConfiguration: TLSConfiguration {
      var configuration = TLSConfiguration.makeClientConfiguration()
      if tls != .verifyFull { configuration.certificateVerification = .none }
      return configuration
    }

    private var clientTLS: PostgresClient.Configuration.TLS {
      switch tls {
      case .disable: .disable
      case .prefer: .prefer(tlsConfiguration)
      case .require, .verifyFull: .require(tlsConfiguration)
      }
    }

    private func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
      switch tls {
      case .disable: .disable
      case .prefer: .prefer(try NIOSSLContext(configuration: tlsConfiguration))
      case .require, .verifyFull: .require(try NIOSSLContext(configuration: tlsConfiguration))
      }
    }
  }
}

extension TimeAmount {
  init(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
  }
}
