import Foundation
import HybridAI
import HybridAITestSupport
@testable import HybridAIOnDevice
import Testing

@Suite("UTF-8 and stop sequences in streamed text")
struct TextStreamingTests {
  @Test("characters split across tokens are held until complete", arguments: ["héllo", "日本語", "👩‍💻 ok", "a🎉b"])
  func utf8Splits(text: String) {
    let bytes = Array(text.utf8)
    for split in 1..<bytes.count {        // every possible split point
      var decoder = UTF8StreamDecoder()
      let first = decoder.append(bytes[..<split])
      let second = decoder.append(bytes[split...])
      #expect(first + second + decoder.finish() == text)
      #expect(!first.contains("\u{FFFD}"))
    }
  }

  @Test("an incomplete character at the end (an answer cut inside an emoji) is left out; invalid bytes become U+FFFD")
  func incompleteTail() {
    var decoder = UTF8StreamDecoder()
    #expect(decoder.append([0x61, 0xE6, 0x97]) == "a")
    #expect(decoder.finish() == "")
    var cutEmoji = UTF8StreamDecoder()
    #expect(cutEmoji.append(Array("🌟".utf8) + Array("🎉".utf8).prefix(2)) == "🌟")
    #expect(cutEmoji.finish() == "")
    var invalid = UTF8StreamDecoder()
    #expect(invalid.append([0x61, 0xFF, 0x62]) == "a\u{FFFD}b")
  }

  @Test("stop sequences split across deltas are found; a near-miss is released")
  func stopAcrossDeltas() {
    var matcher = StopSequenceMatcher(stopSequences: ["END"])
    #expect(matcher.append("abc E") == .emit("abc "))
    #expect(matcher.append("N") == .emit(""))
    #expect(matcher.append("Dxyz") == .stop(""))

    var nearMiss = StopSequenceMatcher(stopSequences: ["END"])
    #expect(nearMiss.append("EN") == .emit(""))
    #expect(nearMiss.append("X") == .emit("ENX"))
    #expect(nearMiss.append("tail E") == .emit("tail "))
    #expect(nearMiss.finish() == "E")
  }

  @Test("without stop sequences text passes straight through")
  func noStops() {
    var matcher = StopSequenceMatcher(stopSequences: [])
    #expect(matcher.append("anything") == .emit("anything"))
  }
}

@Suite("ModelLocator")
struct ModelLocatorTests {
  @Test("HYBRIDAI_MODEL wins; otherwise .deps/models is found from a subdirectory")
  func lookupOrder() throws {
    #expect(ModelLocator.defaultModelPath(environment: ["HYBRIDAI_MODEL": "/x/y.gguf"]) == "/x/y.gguf")
    let found = ModelLocator.defaultModelPath(environment: [:], currentDirectory: TestModel.path)
    #expect(found.hasSuffix(".deps/models/\(ModelLocator.defaultModelFileName)"))
  }

  @Test("from any folder: the bootstrap's model above the running executable, else the user's model folder; else the first candidate")
  func lookupFromElsewhere() throws {
    let scratch = try TemporaryDirectory("locator")
    defer { scratch.remove() }
    let fileManager = FileManager.default
    let checkoutModel = scratch.appending("checkout/.deps/models/\(ModelLocator.defaultModelFileName)")
    let userModel = scratch.appending("data/hybridai/models/\(ModelLocator.defaultModelFileName)")
    for model in [checkoutModel, userModel] {
      try fileManager.createDirectory(at: model.deletingLastPathComponent(), withIntermediateDirectories: true)
      #expect(fileManager.createFile(atPath: model.path, contents: Data()))
    }
    let executable = scratch.appending("checkout/.build/x86_64-unknown-linux-gnu/debug/hybrid")
    let elsewhere = scratch.appending("elsewhere").path
    let environment = ["HOME": scratch.appending("home").path, "XDG_DATA_HOME": scratch.appending("data").path]
    #expect(ModelLocator.defaultModelPath(environment: environment, currentDirectory: elsewhere, executable: executable)
            == checkoutModel.path)
    #expect(ModelLocator.defaultModelPath(environment: environment, currentDirectory: elsewhere, executable: nil) == userModel.path)
    try fileManager.removeItem(at: userModel)
    #expect(ModelLocator.defaultModelPath(environment: environment, currentDirectory: elsewhere, executable: nil)
            == scratch.appending("elsewhere/.deps/models/\(ModelLocator.defaultModelFileName)").path)

    // Where ModelDownloader installs models, by the same rule ($XDG_CACHE_HOME, else ~/.cache).
    let downloaded = scratch.appending("cache/hybridai/models/\(ModelLocator.defaultModelFileName)")
    try fileManager.createDirectory(at: downloaded.deletingLastPathComponent(), withIntermediateDirectories: true)
    #expect(fileManager.createFile(atPath: downloaded.path, contents: Data()))
    var withCache = environment
    withCache["XDG_CACHE_HOME"] = scratch.appending("cache").path
    #expect(ModelLocator.defaultModelPath(environment: withCache, currentDirectory: elsewhere, executable: nil) == downloaded.path)
    #expect(UserModelFolders.downloaded(environment: withCache).path == downloaded.deletingLastPathComponent().path)
    #expect(UserModelFolders.downloaded(environment: ["HOME": "/u", "XDG_CACHE_HOME": "relative"]).path == "/u/.cache/hybridai/models")
  }
}
