import Foundation

/// Session identifiers: 1 to 64 characters from `A-Z`, `a-z`, `0-9`, `_` and `-`, so that an id
/// is safe in a file name, a URL and a command line.
enum SessionID {
  /// The longest identifier allowed.
  static let maxLength = 64

  /// Whether `id` is a valid session identifier.
  static func isValid(_ id: String) -> Bool {
    let bytes = id.utf8
    guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
    return bytes.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
           UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
        true
      default:
        false
      }
    }
  }

  /// `id` if it is valid.
  /// - Throws: ``SessionStoreError/invalidID(_:)``.
  static func validated(_ id: String) throws(SessionStoreError) -> String {
    guard isValid(id) else { throw .invalidID(id) }
    return id
  }

  /// A new identifier: a lower-case UUID.
  static func generate() -> String { UUID().uuidString.lowercased() }
}

extension SessionStore {
  /// Whether `id` can name a session: 1 to 64 characters from `A-Z`, `a-z`, `0-9`, `_` and `-`.
  public static func isValidSessionID(_ id: String) -> Bool { SessionID.isValid(id) }
}
