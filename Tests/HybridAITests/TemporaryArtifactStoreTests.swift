import Foundation
@testable import HybridAI
import HybridAITestSupport
import Testing

/// HybridAI's, not Swift Testing's `Attachment`.
private typealias Attachment = HybridAI.Attachment

/// The store a session makes for itself when none is given: in a folder only its user can enter
/// (another user's folder, or a planted link, is never used), and the copies of attached files
/// removed when the conversation is over while the model's files stay.
@Suite("Temporary artifact store")
struct TemporaryArtifactStoreTests {
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

  @Test("a session without a store keeps attachments privately; at the end the copies go, the model's files stay")
  func copiesRemovedModelFilesKept() async throws {
    let picture = Artifact(data: Data("the model's picture".utf8), mimeType: "image/png", name: "answer.png")
    let model = ScriptedLanguageModel { _, _ in [.textDelta("Here it is."), .artifact(picture)] }
    let session = GenerativeModelSession(model: model)
    let response = try await session.respond(to: Prompt {
      "Draw this again"
      try Attachment(data: Data("the user's text".utf8), name: "notes.txt", mimeType: "text/plain")
    })
    let store = try #require(session.artifactStore)
    defer { try? FileManager.default.removeItem(at: store.directory) }
    let root = store.directory.deletingLastPathComponent()
    #expect(root.lastPathComponent == "HybridAI-artifacts-\(getuid())")
    #expect(Self.mode(root.path).mode == 0o700)
    #expect(store.allReferences().count == 2)
    let answerFile = try #require(response.artifacts.first?.fileURL)

    #expect(session.removeTemporaryAttachmentCopies() == 1)
    #expect(store.allReferences().map(\.name) == ["answer.png"])
    #expect(FileManager.default.contents(atPath: answerFile.path) == Data("the model's picture".utf8))
    #expect(session.removeTemporaryAttachmentCopies() == 0, "nothing left to remove")
  }

  @Test("with only attachments, the whole temporary folder goes; a store the app gave is never touched")
  func folderRemovedGivenStoreUntouched() async throws {
    let model = ScriptedLanguageModel { _, _ in [.textDelta("Read it.")] }
    let note = try Attachment(data: Data("a note".utf8), name: "note.txt", mimeType: "text/plain")
    let temporary = GenerativeModelSession(model: model)
    _ = try await temporary.respond(to: Prompt { "Read this"; note })
    let folder = try #require(temporary.artifactStore?.directory)
    #expect(temporary.removeTemporaryAttachmentCopies() == 1)
    #expect(!FileManager.default.fileExists(atPath: folder.path))

    let directory = try TemporaryDirectory("given-store")
    defer { directory.remove() }
    let given = try ArtifactStore(directory: directory.url)
    let kept = GenerativeModelSession(model: model, artifactStore: given)
    _ = try await kept.respond(to: Prompt { "Read this"; note })
    #expect(kept.removeTemporaryAttachmentCopies() == 0)
    #expect(given.allReferences().count == 1)
  }
}
