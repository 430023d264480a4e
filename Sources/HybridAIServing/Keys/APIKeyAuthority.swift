import Crypto
import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Who may call a ``HybridServer``: the keys given on the command line (`--api-key`, scopes
/// ``APIKeyScope/clientScopes``) and the keys of an ``APIKeyFile`` (each with its scopes and
/// limits), with per-key request and token limits.
///
/// The key file is re-read when it changes (checked with one `stat` per request), so a key
/// created with `hybrid keys create` works at once and a revoked one is refused from the next
/// request on; answers already streaming finish. Keys are compared by their SHA-256, in constant
/// time, against every known key.
///
/// Keys are required when any `--api-key` is given or the key file exists (once seen, it stays
/// required: deleting the file refuses every file key rather than opening the server).
///
/// The limits' buckets are kept in this process, or in a ``RateLimitLedger`` that several
/// instances share (`sharedLimits`: the registry's PostgreSQL database), so that a key's limit holds
/// across them; while the shared ledger fails, each instance counts by itself (and says so in its log).
public final class APIKeyAuthority: Sendable {
  /// The key file, if the server has one.
  public let keyFile: APIKeyFile?
  /// Requests per minute for keys without their own limit; `nil`: none.
  public let defaultRequestsPerMinute: Int?
  /// Tokens per minute for keys without their own limit; `nil`: none.
  public let defaultTokensPerMinute: Int?
  private let flagKeys: [Entry]
  private let state = Mutex(FileState())
  private let limits: any RateLimitLedger
  private let logger: Logger

  struct Entry: Sendable {
    let record: APIKeyRecord
    let digest: [UInt8]
  }

  struct FileState {
    var signature: FileSignature?
    var entries: [Entry] = []
    var seen = false
    /// Why the file's current version could not be read (the keys read before stay in force).
    var problem: String?
  }

  /// What identifies a version of the file without reading it.
  struct FileSignature: Equatable {
    var device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int, modifiedNanoseconds: Int
  }

  /// An authority for `keys` (all with ``APIKeyScope/clientScopes``) and the keys in `keyFile`,
  /// counting the limits in `sharedLimits` when given (else in this process, on the clock `now`).
  public init(keys: Set<String> = [], keyFile: APIKeyFile? = nil, requestsPerMinute: Int? = nil,
              tokensPerMinute: Int? = nil, sharedLimits: (any RateLimitLedger)? = nil,
              now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
              logger: Logger = Logger(label: "HybridAI.server.keys")) {
    precondition(requestsPerMinute.map { $0 > 0 } ?? true && tokensPerMinute.map { $0 > 0 } ?? true,
                 "limits must be positive")
    self.keyFile = keyFile
    defaultRequestsPerMinute = requestsPerMinute
    defaultTokensPerMinute = tokensPerMinute
    flagKeys = keys.sorted().enumerated().map { index, key in
      Entry(record: APIKeyRecord(id: "flag-\(index + 1)", name: "--api-key #\(index + 1)", scopes: APIKeyScope.clientScopes,
                                 sha256: "", created: Date(timeIntervalSince1970: 0)),
            digest: Array(SHA256.hash(data: Data(key.utf8))))
    }
    let local = RateLimiter(now: now)
    limits = sharedLimits.map { FallbackRateLimitLedger(shared: $0, local: local, logger: logger) } ?? local
    self.logger = logger
    refreshIfChanged()
  }

  /// Why the key file's current version cannot be read (unreadable, corrupt), or `nil` when its
  /// keys are in force. While it is set the keys read before stay in force, so a revocation in
  /// the unread version is not: `/readyz` reports it (``ServerHealth``).
  public var keyFileProblem: String? {
    refreshIfChanged()
    return state.withLock(\.problem)
  }

  /// Why the limits are not shared with the other instances right now (the shared ledger fails,
  /// so this instance counts by itself), or `nil`: `/readyz` reports it as degraded.
  public var sharedLimitsProblem: String? {
    (limits as? FallbackRateLimitLedger)?.problem
  }

  /// Whether the limits are counted in a ledger shared with other instances (given `sharedLimits`).
  public var hasSharedLimits: Bool { limits is FallbackRateLimitLedger }

  /// Whether a key that is not revoked has `scope` (as the keys stand now, the file's included).
  public func hasActiveKey(withScope scope: APIKeyScope) -> Bool {
    refreshIfChanged()
    let fileEntries = state.withLock(\.entries)
    return (flagKeys + fileEntries).contains { !$0.record.isRevoked && $0.record.scopes.contains(scope) }
  }

  /// Whether requests must carry a key.
  public var isRequired: Bool {
    refreshIfChanged()
    return !flagKeys.isEmpty || state.withLock(\.seen)
  }

  /// The key `presented` if it is known, not revoked, has `scope` and is within its limits;
  /// else the ``GoogleAPIError`` to answer with.
  public func authenticate(_ presented: String?, for scope: APIKeyScope) async throws(GoogleAPIError) -> AuthenticatedKey? {
    refreshIfChanged()
    let fileEntries = state.withLock { $0.seen ? $0.entries : nil }
    guard !flagKeys.isEmpty || fileEntries != nil else { return nil }
    guard let presented, !presented.isEmpty else { throw GoogleAPIError.apiKeyMissing }
    // Both lists are always scanned whole (no copy of them per request), so timing tells nothing.
    let digest = Array(SHA256.hash(data: Data(presented.utf8)))
    let fromFlags = Self.match(digest, in: flagKeys), fromFile = Self.match(digest, in: fileEntries ?? [])
    guard let entry = fromFlags ?? fromFile else {
      throw GoogleAPIError.apiKeyInvalid
    }
    let record = entry.record
    if let revoked = record.revoked {
      logger.notice("request with a revoked API key refused", metadata: ["key": "\(record.id)", "revoked": "\(revoked)"])
      throw GoogleAPIError(status: .badRequest, statusName: "INVALID_ARGUMENT",
                           message: "API key revoked. Please pass a valid API key.", reason: "API_KEY_INVALID")
    }
    guard record.scopes.contains(scope) else {
      throw GoogleAPIError(status: .forbidden, statusName: "PERMISSION_DENIED",
                           message: "This API key (\(record.name)) does not have the \(scope.rawValue) scope.",
                           reason: "API_KEY_SCOPE_MISSING")
    }
    // A ledger that fails has stood in for itself already (FallbackRateLimitLedger); what is left
    // is cancellation, which lets the request in rather than refuse it for nothing it did.
    let limits = self.limits, bucket = Self.bucketName(entry)
    let requests = "requests:\(bucket)", tokens = "tokens:\(bucket)"
    let requestsPerMinute = record.requestsPerMinute ?? defaultRequestsPerMinute
    let tokensPerMinute = record.tokensPerMinute ?? defaultTokensPerMinute
    let waits: (request: Duration?, tokens: Duration?)?
    switch (requestsPerMinute, tokensPerMinute) {
    case let (requestsPerMinute?, tokensPerMinute?):
      // One call for both, so a shared ledger costs one round trip per request.
      waits = try? await limits.admit(requests, perMinute: requestsPerMinute, whileTokensIn: tokens, perMinute: tokensPerMinute)
    case let (requestsPerMinute?, nil):
      waits = try? await (limits.admit(requests, perMinute: requestsPerMinute), nil)
    case let (nil, tokensPerMinute?):
      waits = try? await (nil, limits.waitUntilPositive(tokens, perMinute: tokensPerMinute))
    case (nil, nil):
      waits = nil
    }
    if let requestsPerMinute, let wait = waits?.request {
      throw GoogleAPIError.rateLimited("Quota exceeded: \(requestsPerMinute) requests per minute for this API key.", retryAfter: wait)
    }
    if let tokensPerMinute, let wait = waits?.tokens {
      throw GoogleAPIError.rateLimited("Quota exceeded: \(tokensPerMinute) tokens per minute for this API key.", retryAfter: wait)
    }
    var charging: (@Sendable (Int) async -> Void)?
    if let tokensPerMinute {
      charging = { try? await limits.charge(tokens, perMinute: tokensPerMinute, amount: $0) }
    }
    return AuthenticatedKey(id: record.id, name: record.name, scopes: record.scopes, charging: charging)
  }

  /// What names a key's buckets: the first 8 bytes of its SHA-256, in hex: the same in every
  /// instance that knows the key whatever else it knows (an `--api-key`'s `flag-N` id depends on
  /// the other flags), and not enough to look for the key.
  static func bucketName(_ entry: Entry) -> String {
    guard entry.digest.count == 32 else { return entry.record.id }
    return String(entry.digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, radix: 16)
  }

  /// The entry whose digest is `digest`, comparing with every entry, every byte, whatever matches.
  static func match(_ digest: [UInt8], in entries: [Entry]) -> Entry? {
    var found: Entry?
    for entry in entries {
      var difference: UInt8 = 0
      for index in 0..<min(digest.count, entry.digest.count) { difference |= digest[index] ^ entry.digest[index] }
      if difference == 0, digest.count == entry.digest.count { found = entry }
    }
    return found
  }

  /// Re-reads the key file when its signature changed; keeps the last good keys when it is not valid.
  private func refreshIfChanged() {
    guard let keyFile else { return }
    var info = stat()
    let signature: FileSignature? = stat(keyFile.url.path, &info) == 0
      ? FileSignature(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                      modifiedSeconds: Int(info.st_mtim.tv_sec), modifiedNanoseconds: Int(info.st_mtim.tv_nsec))
      : nil
    guard state.withLock({ $0.signature != signature }) else { return }
    guard signature != nil else {
      state.withLock { state in
        if state.seen { logger.error("the API key file is gone: every key it held is refused", metadata: ["path": "\(keyFile.url.path)"]) }
        state.signature = nil
        state.entries = []
        state.problem = nil
      }
      return
    }
    do {
      let entries = try keyFile.records().map { record in
        Entry(record: record, digest: Self.bytes(ofHex: record.sha256))
      }
      state.withLock { state in
        state.signature = signature
        state.entries = entries
        state.seen = true
        state.problem = nil
      }
      logger.info("API keys loaded", metadata: [
        "path": "\(keyFile.url.path)", "active": "\(entries.count { !$0.record.isRevoked })", "revoked": "\(entries.count { $0.record.isRevoked })",
      ])
    } catch {
      state.withLock { state in
        state.signature = signature
        state.seen = true
        state.problem = "\(error); the keys read before stay in force"
      }
      logger.error("the API key file cannot be read; the keys read before stay in force", metadata: ["error": "\(error)"])
    }
  }

  private static func bytes(ofHex hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex),
          let byte = UInt8(hex[index..<next], radix: 16) {
      bytes.append(byte)
      index = next
    }
    return bytes.count == 32 ? bytes : []
  }
}
