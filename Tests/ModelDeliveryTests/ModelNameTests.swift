import Foundation
import ModelDelivery
import Testing

/// Names are checked before any file or network I/O.
@Suite struct ModelNameTests {
  static let invalidNames = [
    "", ".", "..", "../etc", "a/b", "a%2Fb", "%2e%2e", "a b", "a\u{0}b", "-leading", "_leading", "a.b", "é",
    String(repeating: "a", count: 65), "name\n", "/abs",
  ]

  @Test(arguments: invalidNames)
  func invalidNamesAreRefusedBeforeAnyIO(name: String) async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let downloader = environment.downloader()

    for type in ModelDownloadType.allCases {
      await #expect(throws: ModelDownloadError.invalidModelName(name)) {
        try await downloader.getModel(name: name, downloadType: type)
      }
    }
    await #expect(throws: ModelDownloadError.invalidModelName(name)) {
      try await downloader.deleteDownloadedModel(name: name)
    }
    if case .failed = downloader.modelFile(named: name).fileState {} else { Issue.record("expected .failed") }
    downloader.modelFile(named: name).prepareFile()
    var progress: [ModelDownloadProgress] = []
    for await step in downloader.progress(for: name) { progress.append(step) }   // ends at once

    #expect(progress.isEmpty)
    #expect(environment.server.requests.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: environment.modelsDirectory.path))
  }

  @Test(arguments: ["a", "A9", "selfie_segmentation", "x-1", "0", String(repeating: "z", count: 64)])
  func validNamesAreAccepted(name: String) async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish(name, data: Data("weights".utf8))
    let model = try await environment.downloader().getModel(name: name, downloadType: .latestModel)
    #expect(model.name == name)
  }
}
