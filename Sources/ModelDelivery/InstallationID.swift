import Foundation
import HybridAIWire

/// The installation id sent as `X-HybridAI-Installation-Id` (it picks the A/B roll-out bucket):
/// a random UUID created once and kept in the downloader's directory (`installation-id`).
enum InstallationID {
  static let fileName = "installation-id"

  /// The id stored in `directory`, creating it (and the directory) when there is none. Two
  /// processes creating it at once agree: the file is published with `link`, which fails when it
  /// exists, and the winner's id is read back.
  static func loadOrCreate(in directory: URL) throws(POSIXFile.Failure) -> String {
    let path = directory.appendingPathComponent(fileName).path
    if let existing = read(path) { return existing }
    try POSIXFile.makeDirectory(directory.path)
    let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: .min ... .max))"
    let fd = try POSIXFile.open(temporary, O_WRONLY | O_CREAT | O_EXCL)
    defer { POSIXFile.unlinkIfPresent(temporary) }
    let id = UUID().uuidString.lowercased()
    do throws(POSIXFile.Failure) {
      try POSIXFile.write(fd, Data("\(id)\n".utf8), at: 0, path: temporary)
      try POSIXFile.sync(fd, path: temporary)
      close(fd)
    } catch {
      close(fd)
      throw error
    }
    if link(temporary, path) != 0, errno != EEXIST {
      throw POSIXFile.Failure(operation: "link", path: path, code: errno)
    }
    POSIXFile.syncDirectory(directory.path)
    guard let stored = read(path) else { throw POSIXFile.Failure(operation: "read", path: path, code: EIO) }
    return stored
  }

  private static func read(_ path: String) -> String? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return RegistryIdentifiers.isValidInstallationId(text) ? text : nil
  }
}
