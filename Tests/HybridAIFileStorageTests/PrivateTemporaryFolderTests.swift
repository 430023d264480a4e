import Foundation
import HybridAIFileStorage
import HybridAITestSupport
import Testing

/// The folder the command line keeps a conversation's temporary files in: one only its user can
/// enter (another user's folder, or a planted link, is never used).
@Suite("Private temporary folder")
struct PrivateTemporaryFolderTests {
  private static func mode(_ path: String) -> (mode: mode_t, owner: uid_t, isLink: Bool) {
    var status = stat()
    guard lstat(path, &status) == 0 else { return (0, 0, false) }
    return (status.st_mode & 0o777, status.st_uid, (status.st_mode & S_IFMT) == S_IFLNK)
  }

  @Test("the folder is <tmp>/<prefix>-<uid>, mode 0700; a wider existing one is narrowed")
  func privateFolder() throws {
    let temporary = try TemporaryDirectory("private-folder")
    defer { temporary.remove() }
    let folder = try PrivateTemporaryFolder.url(prefix: "HybridAI-artifacts", in: temporary.url)
    #expect(folder.lastPathComponent == "HybridAI-artifacts-\(getuid())")
    #expect(Self.mode(folder.path).mode == 0o700)

    chmod(folder.path, 0o755)
    let again = try PrivateTemporaryFolder.url(prefix: "HybridAI-artifacts", in: temporary.url)
    #expect(again == folder)
    #expect(Self.mode(folder.path).mode == 0o700, "narrowed, so other users cannot read the copies")
  }

  @Test("a link planted under the name is not followed: a fresh private folder is made instead")
  func plantedLink() throws {
    let temporary = try TemporaryDirectory("private-link")
    defer { temporary.remove() }
    let elsewhere = temporary.appending("attacker")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    let name = temporary.appending("HybridAI-artifacts-\(getuid())")
    try FileManager.default.createSymbolicLink(at: name, withDestinationURL: elsewhere)

    let folder = try PrivateTemporaryFolder.url(prefix: "HybridAI-artifacts", in: temporary.url)
    #expect(folder.path != name.path && folder.lastPathComponent.hasPrefix("HybridAI-artifacts-\(getuid())-"), "\(folder.path)")
    #expect(!Self.mode(folder.path).isLink && Self.mode(folder.path).mode == 0o700)
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
  }

  @Test("another user's folder under the name is left alone (a second user can still attach)",
        .enabled(if: getuid() == 0, "giving a folder to another user needs root"))
  func anotherUsersFolder() throws {
    let temporary = try TemporaryDirectory("private-other")
    defer { temporary.remove() }
    let name = temporary.appending("HybridAI-artifacts-\(getuid())")
    try FileManager.default.createDirectory(at: name, withIntermediateDirectories: true)
    #expect(chown(name.path, 65534, 65534) == 0)   // nobody's

    let folder = try PrivateTemporaryFolder.url(prefix: "HybridAI-artifacts", in: temporary.url)
    #expect(folder.path != name.path)
    #expect(Self.mode(folder.path).owner == getuid() && Self.mode(folder.path).mode == 0o700)
  }
}
