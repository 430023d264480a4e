import Crypto
import Foundation
import HybridAI
import HybridAIFileStorage
import HybridAIWire
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Signs blob download URLs so that they work without credentials until they expire:
/// `signature = hex(HMAC-SHA256(key, "<sha256>\n<expires>"))`, `expires` in Unix seconds.
struct DownloadURLSigner: Sendable {
  static let keyByteCount = 32

  private let key: SymmetricKey
  /// The HMAC with the key already absorbed; each signature starts from a copy of it (the hash
  /// states are copied on write) instead of deriving the keyed state again.
  private let keyedMAC: HMAC<SHA256>

  init(key: SymmetricKey) {
    self.key = key
    keyedMAC = HMAC<SHA256>(key: key)
  }

  /// The signer with the key in `path` (32 raw bytes, mode 0600), generating the key first when
  /// the file does not exist.
  static func loadingOrCreatingKey(at path: String, logger: Logger) throws -> DownloadURLSigner {
    if !FileManager.default.fileExists(atPath: path) {
      try createKeyFile(at: path, logger: logger)
    }
    var status = stat()
    if stat(path, &status) == 0, status.st_mode & 0o077 != 0 {
      logger.warning("signing key was readable by others; restricting it to its owner", metadata: ["path": "\(path)"])
      chmod(path, 0o600)
    }
    let bytes = try Data(contentsOf: URL(filePath: path))
    guard bytes.count == keyByteCount else { throw SigningKeyError.unusable(path: path, byteCount: bytes.count) }
    return DownloadURLSigner(key: SymmetricKey(data: bytes))
  }

  /// Writes a new random key to a private temporary file, then links it into place, so that a
  /// crash never leaves a partial key and a racing process keeps the key that won.
  private static func createKeyFile(at path: String, logger: Logger) throws {
    let temporaryPath = "\(path).\(UUID().uuidString).tmp"
    let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw BlobStoreError(operation: "create", path: temporaryPath) }
    defer { unlink(temporaryPath) }
    let key = SymmetricKey(size: .bits256)
    let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    let flushed = fsync(descriptor) == 0
    close(descriptor)
    guard written == keyByteCount, flushed else { throw BlobStoreError(operation: "write", path: temporaryPath) }
    guard link(temporaryPath, path) == 0 || errno == EEXIST else { throw BlobStoreError(operation: "link", path: path) }
    logger.notice("generated a new URL signing key", metadata: ["path": "\(path)"])
  }

  /// The hex signature for a download of `sha256` valid until `expires`.
  func signature(sha256: String, expires: Int64) -> String {
    var mac = keyedMAC
    var message = Self.message(sha256: sha256, expires: expires)
    message.withUTF8 { mac.update(data: UnsafeRawBufferPointer($0)) }
    return Hex.encode(mac.finalize())
  }

  /// Whether a blob URL's `expires` and `signature` query parameters let it download `sha256` at `now`.
  func verify(sha256: String, expires: String?, signature: String?, now: Date) -> Verdict {
    guard let expires, let seconds = Self.unixSeconds(expires), let signature,
          let code = Hex.decode(signature), code.count == SHA256.byteCount
    else { return .invalid }
    // Constant-time comparison (swift-crypto compares MACs without early exit).
    guard HMAC<SHA256>.isValidAuthenticationCode(
      code, authenticating: Data(Self.message(sha256: sha256, expires: seconds).utf8), using: key)
    else { return .invalid }
    return Int64(now.timeIntervalSince1970.rounded(.down)) < seconds ? .valid : .expired
  }

  enum Verdict: Equatable {
    case valid
    /// Signed by this server but past its expiry.
    case expired
    /// Not signed by this server for this blob and expiry (or missing, or malformed).
    case invalid
  }

  private static func message(sha256: String, expires: Int64) -> String { "\(sha256)\n\(expires)" }

  /// `expires` as written by ``signature(sha256:expires:)``: decimal digits, no sign, no leading zero.
  private static func unixSeconds(_ text: String) -> Int64? {
    let bytes = Array(text.utf8)
    guard (1...18).contains(bytes.count), bytes.allSatisfy(RegistryIdentifiers.isASCIIDigit),
          bytes[0] != UInt8(ascii: "0") || bytes.count == 1 else { return nil }
    return Int64(text)
  }
}

/// The signing key file exists but cannot be used.
enum SigningKeyError: Error, CustomStringConvertible {
  case unusable(path: String, byteCount: Int)

  var description: String {
    switch self {
    case .unusable(let path, let byteCount):
      "the URL signing key \(path) has \(byteCount) bytes instead of \(DownloadURLSigner.keyByteCount); "
        + "delete it to generate a new one (download URLs handed out so far stop working)"
    }
  }
}
