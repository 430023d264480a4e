import Crypto
import Foundation
import HybridAI
#if canImport(Glibc)
import Glibc
#endif

/// The API keys of a server in one JSON file (by default `<--data>/api-keys.json`, mode 0600):
/// `hybrid keys create|list|revoke` write it, `hybrid serve` reads it and re-reads it when it
/// changes, so a new key works and a revoked one is refused from the next request on.
///
/// ```swift
/// let file = APIKeyFile(url: dataDirectory.appending(path: "api-keys.json"))
/// let (record, key) = try file.create(name: "ios-app", scopes: [.generate, .registryRead])
/// print(key)        // hai_3f9a1c0e_…: shown once; the file keeps only its SHA-256
/// try file.revoke(id: record.id)
/// ```
///
/// Changes take an exclusive lock (`flock` on `<file>.lock`) and replace the file atomically
/// (written beside it, synced, renamed), so two commands at once lose nothing and a reader never
/// sees half a file.
public struct APIKeyFile: Sendable {
  /// Where the keys are.
  public let url: URL

  public init(url: URL) {
    self.url = url
  }

  /// The file's contents.
  struct Contents: Codable {
    var version: Int
    var keys: [APIKeyRecord]
  }

  /// The current file format.
  static let formatVersion = 1
  /// Every key starts with this, so secret scanners and people recognise it.
  public static let keyPrefix = "hai_"

  /// Every key in the file, revoked ones included; none when the file does not exist.
  public func records() throws(APIKeyFileError) -> [APIKeyRecord] {
    guard let data = try readData() else { return [] }
    return try Self.decode(data, path: url.path)
  }

  /// Makes a key with `scopes` (and limits other than the server's defaults), stores its hash
  /// and returns the record and the key — the only time the key is seen.
  public func create(name: String, scopes: Set<APIKeyScope>, requestsPerMinute: Int? = nil,
                     tokensPerMinute: Int? = nil, now: Date = Date()) throws(APIKeyFileError) -> (APIKeyRecord, String) {
    let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty, trimmed.count <= 100, !trimmed.contains(where: \.isNewline) else {
      throw .invalidName(name)
    }
    guard !scopes.isEmpty else { throw .noScopes }
    if let requestsPerMinute, requestsPerMinute <= 0 { throw .invalidLimit("requests per minute", requestsPerMinute) }
    if let tokensPerMinute, tokensPerMinute <= 0 { throw .invalidLimit("tokens per minute", tokensPerMinute) }
    return try modify { (records: inout [APIKeyRecord]) throws(APIKeyFileError) -> (APIKeyRecord, String) in
      var id: String
      repeat { id = Self.randomHex(bytes: 4) } while records.contains { $0.id == id }
      let key = Self.keyPrefix + id + "_" + Self.randomSecret()
      let record = APIKeyRecord(id: id, name: trimmed, scopes: scopes, sha256: Self.digestHex(of: key), created: now,
                                requestsPerMinute: requestsPerMinute, tokensPerMinute: tokensPerMinute)
      records.append(record)
      return (record, key)
    }
  }

  /// Revokes the key `id` (its record stays, marked, so `list` shows when); revoking a revoked
  /// key keeps the first date.
  @discardableResult
  public func revoke(id: String, now: Date = Date()) throws(APIKeyFileError) -> APIKeyRecord {
    try modify { (records: inout [APIKeyRecord]) throws(APIKeyFileError) -> APIKeyRecord in
      guard let index = records.firstIndex(where: { $0.id == id || $0.name == id }) else { throw .unknownKey(id) }
      if records.filter({ $0.id == id || $0.name == id }).count > 1 { throw .ambiguousName(id) }
      if records[index].revoked == nil { records[index].revoked = now }
      return records[index]
    }
  }

  /// The identifier inside a key of this format (`hai_<id>_…`), if it has one.
  public static func identifier(inKey key: String) -> String? {
    guard key.hasPrefix(keyPrefix) else { return nil }
    let rest = key.dropFirst(keyPrefix.count)
    guard let underscore = rest.firstIndex(of: "_") else { return nil }
    return String(rest[..<underscore])
  }

  /// SHA-256 of `key` in lowercase hex, as stored.
  public static func digestHex(of key: String) -> String {
    SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
  }

  // MARK: - Reading and writing

  static func decode(_ data: Data, path: String) throws(APIKeyFileError) -> [APIKeyRecord] {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let contents: Contents
    do {
      contents = try decoder.decode(Contents.self, from: data)
    } catch {
      throw .corrupt(path: path, reason: "\(error)")
    }
    guard contents.version == formatVersion else {
      throw .corrupt(path: path, reason: "format version \(contents.version); this hybrid reads version \(formatVersion)")
    }
    return contents.keys
  }

  private func readData() throws(APIKeyFileError) -> Data? {
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
      throw .unreadable(path: url.path, reason: "it is a folder; name the key file inside it (e.g. \(url.appendingPathComponent("api-keys.json").path))")
    }
    do {
      return try Data(contentsOf: url)
    } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
      return nil
    } catch {
      throw .unreadable(path: url.path, reason: FileSystemErrorText.describe(error))
    }
  }

  /// Runs `change` on the records under the lock and writes them back atomically.
  private func modify<T>(_ change: (inout [APIKeyRecord]) throws(APIKeyFileError) -> T) throws(APIKeyFileError) -> T {
    let directory = url.deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
      throw .unwritable(path: directory.path, reason: error.localizedDescription)
    }
    let lockPath = url.path + ".lock"
    let lock = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
    guard lock >= 0 else { throw .unwritable(path: lockPath, reason: String(cString: strerror(errno))) }
    defer { close(lock) }
    try keepOwner(of: lockPath, descriptor: lock, like: url.path)
    guard flock(lock, LOCK_EX) == 0 else { throw .unwritable(path: lockPath, reason: String(cString: strerror(errno))) }
    var records = try records()
    let result = try change(&records)
    try write(Contents(version: Self.formatVersion, keys: records))
    return result
  }

  private func write(_ contents: Contents) throws(APIKeyFileError) {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let data: Data
    do { data = try encoder.encode(contents) } catch { throw .unwritable(path: url.path, reason: "\(error)") }
    let staging = url.path + ".tmp-\(getpid())"
    let descriptor = open(staging, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw .unwritable(path: staging, reason: String(cString: strerror(errno))) }
    var failure: String?
    data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          failure = String(cString: strerror(errno))
          return
        }
        offset += written
      }
    }
    if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
    if failure == nil {
      do { try keepOwner(of: staging, descriptor: descriptor, like: url.path) } catch {
        close(descriptor)
        unlink(staging)
        throw error
      }
    }
    close(descriptor)
    if failure == nil, rename(staging, url.path) != 0 { failure = String(cString: strerror(errno)) }
    if let failure {
      unlink(staging)
      throw .unwritable(path: url.path, reason: failure)
    }
    let directory = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directory >= 0 {
      _ = fsync(directory)
      close(directory)
    }
  }

  /// Gives the file open as `descriptor` the owner, group and mode of `original`, or — when there
  /// is none yet — the owner and group of the folder, so that `hybrid keys` run as root (or any
  /// user allowed to) leaves a file the server's own user can still read. Without this a revocation
  /// by root would write a root-only file: the running server could not read it and would keep the
  /// keys it read before. A user who cannot give the file its owner gets an error, and nothing changes.
  private func keepOwner(of path: String, descriptor: CInt, like original: String) throws(APIKeyFileError) {
    var wanted = stat()
    var mode: mode_t?
    if stat(original, &wanted) == 0 {
      mode = wanted.st_mode & 0o777
    } else if stat(url.deletingLastPathComponent().path, &wanted) != 0 {
      return
    }
    var current = stat()
    guard fstat(descriptor, &current) == 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
    if current.st_uid != wanted.st_uid || current.st_gid != wanted.st_gid {
      guard fchown(descriptor, wanted.st_uid, wanted.st_gid) == 0 else {
        throw .unwritable(path: url.path, reason: "cannot give it the owner of \(original) (uid \(wanted.st_uid), gid \(wanted.st_gid)): "
          + "\(String(cString: strerror(errno))); run hybrid keys as the user who owns it (the server's user)")
      }
    }
    if let mode, current.st_mode & 0o777 != mode, fchmod(descriptor, mode) != 0 {
      throw .unwritable(path: path, reason: String(cString: strerror(errno)))
    }
  }

  private static func randomHex(bytes count: Int) -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
  }

  /// 32 random bytes (getrandom), base64url without padding: 43 characters.
  private static func randomSecret() -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    return Data(bytes).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }
}

/// Why the key file could not be read or changed.
public enum APIKeyFileError: Error, Sendable, Hashable, CustomStringConvertible {
  case unreadable(path: String, reason: String)
  case corrupt(path: String, reason: String)
  case unwritable(path: String, reason: String)
  case unknownKey(String)
  case ambiguousName(String)
  case invalidName(String)
  case invalidLimit(String, Int)
  case noScopes

  public var description: String {
    switch self {
    case .unreadable(let path, let reason): "cannot read the API key file \(path): \(reason)"
    case .corrupt(let path, let reason): "the API key file \(path) is not valid: \(reason)"
    case .unwritable(let path, let reason): "cannot write the API key file \(path): \(reason)"
    case .unknownKey(let id): "no API key has the id or name \(id) (see hybrid keys list)"
    case .ambiguousName(let name): "more than one API key is named \(name): revoke by id (see hybrid keys list)"
    case .invalidName(let name): "an API key's name must be 1 to 100 characters on one line, not \(name.debugDescription)"
    case .invalidLimit(let what, let value): "\(what) must be positive, not \(value)"
    case .noScopes: "an API key needs at least one scope (generate, registry-read, registry-admin)"
    }
  }
}
