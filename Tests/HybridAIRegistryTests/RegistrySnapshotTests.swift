import Foundation
import HybridAIServerTestSupport
import Testing

/// `:download` answers from the registry's in-memory snapshot (with SQLite; from the database
/// itself with PostgreSQL): every admin change must be in it by the time the change's reply
/// arrives, and it must always agree with the database.
@Suite("Registry snapshot")
struct RegistrySnapshotTests {
  @Test("each admin change is visible to the very next :download: publish, unpublish, delete, re-create",
        arguments: StoreKind.allCases)
  func versionChangesAreVisible(_ store: StoreKind) async throws {
    try await RunningRegistry.with(store: store) { server in
      func served(_ name: String = "live") async throws -> String? {
        let reply = try await server.downloadInfo(name, installationId: "device-1")
        guard reply.status == 200 else {
          #expect(reply.status == 404, "\(reply.status) \(reply.text)")
          return nil
        }
        return try reply.json["version"] as? String
      }
      #expect(try await served() == nil, "no such model")
      try await server.createModel("live")
      #expect(try await served() == nil, "no published version")
      try await server.upload(RegistryFixtures.tflite, to: "live")
      #expect(try await served() == nil, "a draft is not served")
      try await server.publish("1", of: "live")
      #expect(try await served() == "1")
      try await server.upload(RegistryFixtures.gguf, to: "live")
      #expect(try await served() == "1", "the new draft is not served")
      try await server.publish("2", of: "live")
      #expect(try await served() == "2")
      let eTag = "\"\(RegistryFixtures.ggufSHA256)\""
      #expect(try await server.downloadInfo("live", headers: ["If-None-Match": eTag]).status == 304)

      #expect(try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models/live/versions/2:unpublish")).status == 200)
      #expect(try await served() == "1", "back to the previous published version")
      #expect(try await server.downloadInfo("live", headers: ["If-None-Match": eTag]).status == 200, "the ETag changed back")
      try await server.publish("2", of: "live")
      #expect(try await RegistryHTTP.admin(.DELETE, server.url("/v1/admin/models/live/versions/2")).status == 204)
      #expect(try await served() == "1", "a deleted version is no longer served")
      #expect(try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models/live/versions/1:unpublish")).status == 200)
      #expect(try await served() == nil, "nothing published")
      try await server.publish("1", of: "live")
      #expect(try await served() == "1")

      #expect(try await RegistryHTTP.admin(.DELETE, server.url("/v1/admin/models/live")).status == 204)
      #expect(try await served() == nil, "a deleted model")
      #expect(try await RegistryHTTP.admin(.GET, server.url("/v1/admin/models/live")).status == 404)
      try await server.publishedModel("live", files: [RegistryFixtures.other])
      let info = try await server.downloadInfo("live")
      #expect(try info.json["version"] as? String == "1", "a re-created model starts again")
      #expect(try info.json["sha256"] as? String == RegistryFixtures.otherSHA256)

      // Refusals change nothing.
      #expect(try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models/live/versions/9:publish")).status == 404)
      #expect(try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models"), json: ["name": "live"]).status == 409)
      #expect(try await served() == "1")
    }
  }

  @Test("roll-out changes are visible to the very next :download: set, replace, clear, dropped by unpublish",
        arguments: StoreKind.allCases)
  func rolloutChangesAreVisible(_ store: StoreKind) async throws {
    try await RunningRegistry.with(store: store) { server in
      try await server.publishedModel("ab", files: [RegistryFixtures.tflite, RegistryFixtures.gguf, RegistryFixtures.other])
      func rollout(_ splits: [(String, Int)]) async throws -> Int {
        try await RegistryHTTP.admin(.PUT, server.url("/v1/admin/models/ab/rollout"),
                                     json: ["splits": splits.map { ["version": $0.0, "percent": $0.1] }]).status
      }
      /// The versions that 200 installations get.
      func served() async throws -> Set<String> {
        var versions = Set<String>()
        for id in 0..<200 {
          let reply = try await server.downloadInfo("ab", installationId: "installation-\(id)")
          try #require(reply.status == 200, "\(reply.status) \(reply.text)")
          versions.insert(try #require(try reply.json["version"] as? String))
        }
        return versions
      }
      #expect(try await served() == ["3"])
      #expect(try await rollout([("1", 100)]) == 200)
      #expect(try await served() == ["1"])
      #expect(try await rollout([("1", 50), ("2", 50)]) == 200)
      #expect(try await served() == ["1", "2"])
      #expect(try await rollout([("2", 100)]) == 200)
      #expect(try await served() == ["2"])
      #expect(try await RegistryHTTP.admin(.DELETE, server.url("/v1/admin/models/ab/rollout")).status == 200)
      #expect(try await served() == ["3"], "without a roll-out, the newest published version")

      #expect(try await rollout([("1", 100)]) == 200)
      #expect(try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models/ab/versions/1:unpublish")).status == 200)
      #expect(try await served() == ["3"], "unpublishing the roll-out's version removes the roll-out")
      try await server.publish("1", of: "ab")
      #expect(try await rollout([("1", 100)]) == 200)
      #expect(try await RegistryHTTP.admin(.DELETE, server.url("/v1/admin/models/ab/versions/1")).status == 204)
      #expect(try await served() == ["3"], "deleting the roll-out's version removes the roll-out")
      #expect(try await rollout([("2", 100)]) == 200)
      #expect(try await rollout([("2", 50), ("9", 50)]) == 404, "a refused roll-out leaves the old one")
      #expect(try await served() == ["2"])
    }
  }

  @Test("concurrent admin changes and downloads leave the snapshot equal to the database")
  func concurrentChangesMatchTheDatabase() async throws {
    let first = try await RunningRegistry.start()
    defer { try? FileManager.default.removeItem(at: first.dataDirectory) }
    let names = (0..<4).map { "model\($0)" }
    for name in names {
      try await first.publishedModel(name, files: [RegistryFixtures.tflite, RegistryFixtures.gguf, RegistryFixtures.other])
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (index, name) in names.enumerated() {
        group.addTask {
          for step in 0..<12 {
            let version = (step + index) % 3 + 1
            switch step % 4 {
            case 0: _ = try await RegistryHTTP.admin(.POST, first.url("/v1/admin/models/\(name)/versions/\(version):unpublish"))
            case 1: _ = try await RegistryHTTP.admin(.POST, first.url("/v1/admin/models/\(name)/versions/\(version):publish"))
            case 2:
              _ = try await RegistryHTTP.admin(.PUT, first.url("/v1/admin/models/\(name)/rollout"), json: [
                "splits": [["version": "\(version)", "percent": 60], ["version": "\(version % 3 + 1)", "percent": 40]],
              ])
            default: _ = try await RegistryHTTP.admin(.DELETE, first.url("/v1/admin/models/\(name)/rollout"))
            }
          }
        }
        group.addTask {
          for id in 0..<40 { _ = try await first.downloadInfo(name, installationId: "reader-\(id)") }
        }
      }
      try await group.waitForAll()
    }
    let fromSnapshot = try await RegistryHTTP.admin(.GET, first.url("/v1/admin/models")).text
    var answers: [String: Int] = [:]
    for name in names { answers[name] = try await first.downloadInfo(name, installationId: "final").status }
    await first.stop()

    // A new registry on the same directory reads everything from the database.
    let second = try await RunningRegistry.start(dataDirectory: first.dataDirectory, clock: first.clock)
    let fromDatabase = try await RegistryHTTP.admin(.GET, second.url("/v1/admin/models")).text
    #expect(fromSnapshot == fromDatabase)
    for name in names {
      #expect(try await second.downloadInfo(name, installationId: "final").status == answers[name])
    }
    await second.stop()
  }
}
