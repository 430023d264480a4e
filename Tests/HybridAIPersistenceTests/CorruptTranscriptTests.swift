import Foundation
import HybridAI
import HybridAIPersistence
import HybridAITestSupport
import Testing

@Suite("SessionStore with a damaged database")
struct CorruptTranscriptTests {
  @Test("a corrupt transcript row gives a typed error")
  func corruptTranscript() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    do {
      let store = try SessionStore(directory: directory.url)
      try store.save(Fixtures.transcript(), id: "broken")
      try store.save(Fixtures.transcript(), id: "fine")
    }  // The store is closed here: SQLite checkpoints the WAL into the database file.

    // Damage the stored JSON in place (same length, so the SQLite page stays well-formed):
    // `..."version":2}` becomes `..."version":?}`, which is not JSON.
    let databaseURL = directory.url.appendingPathComponent(SessionStore.databaseFileName)
    var bytes = try Data(contentsOf: databaseURL)
    let marker = Data(#""version":2}"#.utf8)
    let found = try #require(bytes.firstRange(of: marker), "the transcript JSON is in the database file")
    bytes[found.upperBound - 2] = UInt8(ascii: "?")
    try bytes.write(to: databaseURL)

    let store = try SessionStore(directory: directory.url)
    #expect(try store.list().count == 2, "listing does not read transcripts")
    let damaged = try store.list().filter { (try? store.load(id: $0.id)) == nil }.map(\.id)
    #expect(damaged.count == 1)
    let id = try #require(damaged.first)
    #expect {
      try store.load(id: id)
    } throws: { error in
      guard case SessionStoreError.corruptTranscript(id, _) = error else { return false }
      return true
    }
    #expect(throws: SessionStoreError.self) { try store.makeSession(id: id, model: ScriptedLanguageModel(identifier: "stub-model")) }
    // A damaged session can still be deleted.
    try store.delete(id: id)
    #expect(try store.list().count == 1)
  }
}
