import Foundation
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// `GET /v1/models/{name}:download`: which version an installation gets, 304s, and the URLs handed out.
@Suite("Registry client API")
struct RegistryDownloadTests {
  @Test("the download info names the served version; If-None-Match with it answers 304")
  func notModified() async throws {
    try await RunningRegistry.with { server in
      try await server.publishedModel("selfie", files: [RegistryFixtures.tflite])
      let info = try await server.downloadInfo("selfie", installationId: "device-1")
      #expect(info.status == 200)
      let json = try info.json
      #expect(json["name"] as? String == "selfie")
      #expect(json["version"] as? String == "1")
      #expect(json["sha256"] as? String == RegistryFixtures.tfliteSHA256)
      #expect(json["sizeBytes"] as? Int == RegistryFixtures.tflite.count)
      #expect(json["format"] as? String == "tflite")
      let expires = Int(server.clock.now.timeIntervalSince1970) + 600
      #expect(json["expireTime"] as? String == Date(timeIntervalSince1970: TimeInterval(expires)).formatted(.iso8601))
      #expect((json["downloadUri"] as? String)?.hasPrefix(
        "\(server.base)/v1/blobs/\(RegistryFixtures.tfliteSHA256)?expires=\(expires)&signature=") == true)
      let eTag = "\"\(RegistryFixtures.tfliteSHA256)\""
      #expect(info.header("etag") == eTag)

      let current = try await server.downloadInfo("selfie", installationId: "device-1", headers: ["If-None-Match": eTag])
      #expect(current.status == 304)
      #expect(current.body.isEmpty)
      #expect(current.header("etag") == eTag)
      let weakInList = try await server.downloadInfo("selfie", headers: ["If-None-Match": "\"abc\", W/\(eTag)"])
      #expect(weakInList.status == 304)

      // A newer version: the old ETag no longer matches.
      try await server.upload(RegistryFixtures.gguf, to: "selfie")
      try await server.publish("2", of: "selfie")
      let stale = try await server.downloadInfo("selfie", installationId: "device-1", headers: ["If-None-Match": eTag])
      #expect(stale.status == 200)
      #expect(try stale.json["version"] as? String == "2")
      #expect(try await server.downloadInfo("missing").status == 404)
    }
  }

  @Test("a 90/10 roll-out splits 1,000 installations within 3 points, the same way every time")
  func abSplit() async throws {
    try await RunningRegistry.with { server in
      try await server.publishedModel("ab_test", files: [RegistryFixtures.tflite, RegistryFixtures.gguf])
      let rollout = try await RegistryHTTP.admin(.PUT, server.url("/v1/admin/models/ab_test/rollout"),
                                                 json: ["splits": [["version": "1", "percent": 90], ["version": "2", "percent": 10]]])
      #expect(rollout.status == 200)
      let ids = (0..<1000).map { "installation-\($0)" }
      /// Every installation's version, asked 16 at a time.
      func versions() async throws -> [String: String] {
        try await withThrowingTaskGroup(of: (String, String).self) { group in
          var pending = ids.makeIterator()
          var result: [String: String] = [:]
          for _ in 0..<16 {
            guard let id = pending.next() else { break }
            group.addTask { (id, try #require(try await server.downloadInfo("ab_test", installationId: id).json["version"] as? String)) }
          }
          while let (id, version) = try await group.next() {
            result[id] = version
            if let id = pending.next() {
              group.addTask { (id, try #require(try await server.downloadInfo("ab_test", installationId: id).json["version"] as? String)) }
            }
          }
          return result
        }
      }
      let first = try await versions()
      let onFirst = first.values.filter { $0 == "1" }.count
      #expect(first.count == 1000)
      #expect(abs(onFirst - 900) <= 30, "\(onFirst) of 1000 on version 1")
      #expect(first.values.filter { $0 == "2" }.count == 1000 - onFirst)
      let again = try await versions()
      #expect(again.count == 1000)
      #expect(again == first, "each installation keeps its version")
    }
  }

  @Test("download URLs use the configured public URL, else Forwarded, else X-Forwarded-Proto/Host, else Host")
  func downloadURLBase() async throws {
    let sha = RegistryFixtures.otherSHA256
    try await RunningRegistry.with { server in
      try await server.publishedModel("located", files: [RegistryFixtures.other])
      func uri(_ headers: [String: String]) async throws -> String {
        try #require(try await server.downloadInfo("located", headers: headers).json["downloadUri"] as? String)
      }
      #expect(try await uri([:]).hasPrefix("http://127.0.0.1:\(server.port)/v1/blobs/\(sha)?"))
      #expect(try await uri(["Host": "models.example:9000"]).hasPrefix("http://models.example:9000/v1/blobs/\(sha)?"))
      #expect(try await uri(["X-Forwarded-Proto": "https", "X-Forwarded-Host": "cdn.example.com, proxy.internal"])
        .hasPrefix("https://cdn.example.com/v1/blobs/\(sha)?"))
      #expect(try await uri(["X-Forwarded-Proto": "https"]).hasPrefix("https://127.0.0.1:\(server.port)/v1/blobs/"))
      #expect(try await uri(["X-Forwarded-Host": "evil.example/path?x="]).hasPrefix("http://127.0.0.1:\(server.port)/v1/blobs/"),
              "a host that would change the URL's shape is ignored")
      #expect(try await uri(["X-Forwarded-Proto": "gopher"]).hasPrefix("http://"))
      // RFC 7239 Forwarded: the first element (the client-facing proxy's) wins over X-Forwarded-*.
      #expect(try await uri(["Forwarded": #"for=192.0.2.60;proto=https;host="models.example.com:8443", for=10.0.0.2;host=inner"#,
                             "X-Forwarded-Host": "ignored.example"])
        .hasPrefix("https://models.example.com:8443/v1/blobs/\(sha)?"))
      #expect(try await uri(["Forwarded": "Proto=HTTPS"]).hasPrefix("https://127.0.0.1:\(server.port)/v1/blobs/"))
      #expect(try await uri(["Forwarded": #"host="evil.example/x?y""#]).hasPrefix("http://127.0.0.1:\(server.port)/v1/blobs/"),
              "a Forwarded host that would change the URL's shape is ignored")
    }
    try await RunningRegistry.with(publicURL: URL(string: "https://models.example.com/registry/")!) { server in
      try await server.publishedModel("located", files: [RegistryFixtures.other])
      let uri = try #require(try await server.downloadInfo("located", headers: ["X-Forwarded-Host": "ignored.example"])
        .json["downloadUri"] as? String)
      #expect(uri.hasPrefix("https://models.example.com/registry/v1/blobs/\(sha)?expires="))
    }
  }

  @Test("with API keys configured, :download needs one but signed blob URLs and the admin API do not")
  func apiKeys() async throws {
    try await RunningRegistry.with(apiKeys: ["client-key"]) { server in
      try await server.publishedModel("keyed", files: [RegistryFixtures.other])
      #expect(try await server.downloadInfo("keyed").status == 403)
      let info = try await server.downloadInfo("keyed", headers: ["x-goog-api-key": "client-key"])
      #expect(info.status == 200)
      let uriText = try info.json["downloadUri"] as? String
      let uri = try #require(uriText.flatMap { URL(string: $0) })
      #expect(try await TestHTTP.send(.GET, uri).status == 200)
    }
  }
}
