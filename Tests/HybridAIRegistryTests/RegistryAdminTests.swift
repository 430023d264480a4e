import Foundation
import HybridAIServerTestSupport
import HybridAITestSupport
import NIOHTTP1
import Testing

/// The admin API: models, versions, publishing, roll-outs, authorization, name checks, upload limits.
@Suite("Registry admin API")
struct RegistryAdminTests {
  @Test("create, list, get, upload, publish, unpublish, delete", arguments: ServerTransport.allCases, StoreKind.allCases)
  func modelLifecycle(over transport: ServerTransport, store: StoreKind) async throws {
    try await RunningRegistry.with(transport: transport, store: store) { server in
      let created = try await server.createModel("selfie", description: "Segments people", tags: ["vision", "beta"])
      #expect(created.header("location") == "/v1/admin/models/selfie")
      let model = try created.json
      #expect(model["name"] as? String == "selfie")
      #expect(model["description"] as? String == "Segments people")
      #expect(model["tags"] as? [String] == ["vision", "beta"])
      #expect((model["versions"] as? [Any])?.isEmpty == true)
      #expect(model["rollout"] is NSNull)
      #expect(model["servedVersion"] is NSNull)
      #expect((model["createTime"] as? String)?.hasSuffix("Z") == true)

      let duplicate = try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models"), json: ["name": "selfie"])
      #expect(duplicate.status == 409)
      #expect(duplicate.errorStatus == "ALREADY_EXISTS")

      let first = try await server.upload(RegistryFixtures.tflite, to: "selfie")
      #expect(first["version"] as? String == "1")
      #expect(first["sha256"] as? String == RegistryFixtures.tfliteSHA256)
      #expect(first["sizeBytes"] as? Int == RegistryFixtures.tflite.count)
      #expect(first["format"] as? String == "tflite")
      #expect(first["state"] as? String == "draft")
      let second = try await server.upload(RegistryFixtures.gguf, to: "selfie")
      #expect(second["version"] as? String == "2")
      #expect(second["format"] as? String == "gguf")
      #expect(second["sha256"] as? String == RegistryFixtures.ggufSHA256)
      let third = try await server.upload(RegistryFixtures.other, to: "selfie")
      #expect(third["format"] as? String == "other")
      #expect(third["sha256"] as? String == RegistryFixtures.otherSHA256)
      #expect(server.files(in: server.blobsDirectory).contains(
        server.blobsDirectory.appending(path: "4c/\(RegistryFixtures.tfliteSHA256)").path))

      // Drafts are not served.
      let unpublished = try await server.downloadInfo("selfie")
      #expect(unpublished.status == 404)
      #expect(unpublished.errorStatus == "NOT_FOUND")

      #expect(try await server.publish("2", of: "selfie")["servedVersion"] as? String == "2")
      #expect(try await server.publish("3", of: "selfie")["servedVersion"] as? String == "3")
      #expect(try await server.publish("3", of: "selfie")["servedVersion"] as? String == "3", "publishing is idempotent")
      let unpublish = try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models/selfie/versions/3:unpublish"))
      #expect(unpublish.status == 200)
      #expect(try unpublish.json["servedVersion"] as? String == "2")
      #expect(try await server.downloadInfo("selfie").json["version"] as? String == "2")

      let one = try await RegistryHTTP.admin(.GET, server.url("/v1/admin/models/selfie/versions/2"))
      #expect(one.status == 200)
      let oneVersion = try one.json
      #expect(oneVersion["version"] as? String == "2")
      #expect(oneVersion["state"] as? String == "published")
      #expect(oneVersion["format"] as? String == "gguf")
      #expect(oneVersion["sha256"] as? String == RegistryFixtures.ggufSHA256)
      #expect(oneVersion["sizeBytes"] as? Int == RegistryFixtures.gguf.count)
      #expect((oneVersion["createTime"] as? String)?.hasSuffix("Z") == true)
      #expect(try await RegistryHTTP.admin(.GET, server.url("/v1/admin/models/selfie/versions/3")).json["state"] as? String == "draft")
      let deleteVersion = try await RegistryHTTP.admin(.DELETE, server.url("/v1/admin/models/selfie/versions/3"))
      #expect(deleteVersion.status == 204)
      let deletedVersion = try await RegistryHTTP.admin(.GET, server.url("/v1/admin/models/selfie/versions/3"))
      #expect(deletedVersion.status == 404)
      #expect(deletedVersion.errorStatus == "NOT_FOUND")
      #expect(!server.files(in: server.blobsDirectory).contains { $0.hasSuffix(RegistryFixtures.otherSHA256) },
              "a blob no version uses is removed")
      #expect(try await server.upload(RegistryFixtures.other, to: "selfie")["version"] as? String == "4",
              "version numbers are never reused")

      try await server.createModel("other_model")
      let list = try await RegistryHTTP.admin(.GET, server.url("/v1/admin/models"))
      #expect(list.status == 200)
      let models = try #require(try list.json["models"] as? [[String: Any]])
      #expect(models.compactMap { $0["name"] as? String } == ["other_model", "selfie"])
      let selfie = try await RegistryHTTP.admin(.GET, server.url("/v1/admin/models/selfie"))
      let versions = try #require(try selfie.json["versions"] as? [[String: Any]])
      #expect(versions.compactMap { $0["version"] as? String } == ["1", "2", "4"])
      #expect(versions.compactMap { $0["state"] as? String } == ["draft", "published", "draft"])

      #expect(try await RegistryHTTP.admin(.DELETE, server.url("/v1/admin/models/selfie")).status == 204)
      let gone = try await RegistryHTTP.admin(.GET, server.url("/v1/admin/models/selfie"))
      #expect(gone.status == 404)
      #expect(gone.errorStatus == "NOT_FOUND")
      #expect(try await RegistryHTTP.admin(.DELETE, server.url("/v1/admin/models/selfie")).status == 404)
      #expect(try await server.downloadInfo("selfie").status == 404)
      #expect(server.files(in: server.blobsDirectory).isEmpty, "deleting the model removed its blobs")
      #expect(try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models/nope/versions/1:publish")).status == 404)
      #expect(try await RegistryHTTP.admin(.GET, server.url("/v1/admin/models/nope/versions/1")).status == 404)
      #expect(try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models/other_model/versions/7:publish")).status == 404)
    }
  }

  @Test("admin calls without a token, or with a wrong one, are refused; without a configured token the admin API is off", arguments: ServerTransport.allCases)
  func adminAuthorization(over transport: ServerTransport) async throws {
    try await RunningRegistry.with(transport: transport) { server in
      let url = server.url("/v1/admin/models")
      for headers in [[:], ["authorization": "Bearer wrong"], ["authorization": "Basic \(RunningRegistry.adminToken)"],
                      ["authorization": "Bearer"], ["authorization": "Bearer \(RunningRegistry.adminToken)x"]] {
        let reply = try await TestHTTP.send(.GET, url, headers: headers)
        #expect(reply.status == 401, "\(headers)")
        #expect(reply.errorStatus == "UNAUTHENTICATED")
        #expect(reply.header("www-authenticate")?.hasPrefix("Bearer") == true)
      }
      let refusedUpload = try await TestHTTP.send(.POST, server.url("/v1/admin/models/x/versions"), body: RegistryFixtures.other)
      #expect(refusedUpload.status == 401)
      #expect(try await TestHTTP.send(.GET, url, headers: ["authorization": "bearer \(RunningRegistry.adminToken)"]).status == 200,
              "the scheme is case-insensitive")
    }
    try await RunningRegistry.with(adminToken: nil, transport: transport) { server in
      let reply = try await RegistryHTTP.admin(.GET, server.url("/v1/admin/models"))
      #expect(reply.status == 403)
      #expect(reply.errorStatus == "PERMISSION_DENIED")
      #expect(try await TestHTTP.send(.POST, server.url("/v1/admin/models"), json: ["name": "x"]).status == 403)
    }
  }

  @Test("names, versions and blob ids with path tricks are refused with 400 INVALID_ARGUMENT", arguments: ServerTransport.allCases)
  func pathTricksAreRefused(over transport: ServerTransport) async throws {
    try await RunningRegistry.with(transport: transport) { server in
      let badNames = ["", ".", "..", "a/b", "../etc", "a\u{0}b", "a b", "%2F", "a%2Fb", "-lead", "_lead", ".hidden", "ü",
                      String(repeating: "a", count: 65), "a\nb", "a:b"]
      for name in badNames {
        let reply = try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models"), json: ["name": name])
        #expect(reply.status == 400, "name \(name.debugDescription): \(reply.text)")
        #expect(reply.errorStatus == "INVALID_ARGUMENT")
      }
      try await server.createModel(String(repeating: "a", count: 64))
      try await server.createModel("A-1_b")

      // Raw path components, as a client might send them.
      let badComponents = ["..", "%2E%2E", "a%2Fb", "..%2Fetc", "a%00b", "a%20b", "%C3%BC", String(repeating: "b", count: 65)]
      for component in badComponents {
        for path in ["/v1/admin/models/\(component)", "/v1/admin/models/\(component)/rollout"] {
          let reply = try await RegistryHTTP.admin(path.hasSuffix("rollout") ? .DELETE : .GET, server.url(path))
          #expect(reply.status == 400, "\(path): \(reply.status) \(reply.text)")
          #expect(reply.errorStatus == "INVALID_ARGUMENT")
        }
        let upload = try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models/\(component)/versions"), body: RegistryFixtures.other)
        #expect(upload.status == 400, "upload to \(component)")
        let download = try await TestHTTP.send(.GET, server.url("/v1/models/\(component):download"))
        #expect(download.status == 400, "download \(component): \(download.status)")
        #expect(download.errorStatus == "INVALID_ARGUMENT")
      }
      for version in ["0", "01", "-1", "1a", "%2E%2E", "..", "12345678901", "1.0"] {
        let publish = try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models/A-1_b/versions/\(version):publish"))
        #expect(publish.status == 400, "version \(version)")
        let delete = try await RegistryHTTP.admin(.DELETE, server.url("/v1/admin/models/A-1_b/versions/\(version)"))
        #expect(delete.status == 400, "version \(version)")
        let get = try await RegistryHTTP.admin(.GET, server.url("/v1/admin/models/A-1_b/versions/\(version)"))
        #expect(get.status == 400, "version \(version)")
      }
      for installationId in [String(repeating: "i", count: 129), "", "has space"] {
        let reply = try await server.downloadInfo("A-1_b", installationId: installationId)
        #expect(reply.status == 400, "installation id \(installationId.debugDescription)")
      }
      let sha = RegistryFixtures.tfliteSHA256
      for blob in [sha.uppercased(), String(sha.dropLast()), sha + "0", "..", "%2E%2E", String(sha.dropLast(2)) + "%2F"] {
        let reply = try await TestHTTP.send(.GET, server.url("/v1/blobs/\(blob)?expires=1&signature=00"))
        #expect(reply.status == 400, "blob \(blob)")
      }
      #expect(server.files(in: server.blobsDirectory).isEmpty)
    }
  }

  @Test("methods a resource does not have are 405 with Allow", arguments: ServerTransport.allCases)
  func methodNotAllowed(over transport: ServerTransport) async throws {
    try await RunningRegistry.with(transport: transport) { server in
      try await server.createModel("m")
      let cases: [(HTTPMethod, String, String)] = [
        (.PATCH, "/v1/admin/models", "GET, HEAD, POST"),
        (.PUT, "/v1/admin/models/m", "GET, HEAD, DELETE"),
        (.GET, "/v1/admin/models/m/versions", "POST"),
        (.GET, "/v1/admin/models/m/rollout", "PUT, DELETE"),
        (.POST, "/v1/admin/models/m/versions/1", "GET, HEAD, DELETE"),
        (.PUT, "/v1/admin/models/m/versions/1", "GET, HEAD, DELETE"),
        (.GET, "/v1/admin/models/m/versions/1:publish", "POST"),
        (.DELETE, "/v1/admin/models/m/versions/1:publish", "POST"),
        (.PUT, "/v1/admin/models/m/versions/1:unpublish", "POST"),
        (.POST, "/v1/models/m:download", "GET, HEAD"),
        (.DELETE, "/v1/models/m:download", "GET, HEAD"),
        (.PUT, "/v1/blobs/\(RegistryFixtures.otherSHA256)", "GET, HEAD"),
        (.POST, "/v1/openapi.yaml", "GET, HEAD"),
      ]
      for (method, path, allow) in cases {
        // GET, POST and DELETE on a version path reach the admin API (and its token check) first.
        let versionPathMethod = path.contains("/versions/") && [.GET, .POST, .DELETE].contains(method)
        for headers in versionPathMethod ? [RegistryHTTP.adminHeaders] : [RegistryHTTP.adminHeaders, [:]] {
          let reply = try await TestHTTP.send(method, server.url(path), headers: headers)
          #expect(reply.status == 405, "\(method) \(path)")
          #expect(reply.header("allow") == allow, "\(method) \(path)")
        }
      }
      #expect(try await TestHTTP.send(.PUT, server.url("/v1/models/m")).status == 404, "Gemini paths are as before")
    }
  }

  @Test("descriptions and tags with NUL characters are refused (SQLite would cut them short)", arguments: ServerTransport.allCases)
  func nulCharacters(over transport: ServerTransport) async throws {
    try await RunningRegistry.with(transport: transport) { server in
      for body in [["name": "n", "description": "a\u{0}b"], ["name": "n", "tags": ["x\u{0}"]]] as [[String: Any]] {
        let reply = try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models"), json: body)
        #expect(reply.status == 400)
      }
      let created = try await server.createModel("n", description: "tab\there, üñí, \"quoted\"", tags: ["ü"])
      let fetched = try await RegistryHTTP.admin(.GET, server.url("/v1/admin/models/n"))
      #expect(try fetched.json["description"] as? String == "tab\there, üñí, \"quoted\"")
      #expect(try fetched.json["description"] as? String == (try created.json["description"] as? String))
    }
  }

  @Test("uploads need a Content-Length within the limit; refused or broken ones leave nothing behind")
  func uploadLimits() async throws {
    try await RunningRegistry.with(maxUploadBytes: 64 << 10) { server in
      try await server.createModel("limited")
      let versions = server.url("/v1/admin/models/limited/versions")

      let chunked = try await TestHTTP.send(.POST, versions, headers: RegistryHTTP.adminHeaders,
                                                stream: [RegistryFixtures.other, RegistryFixtures.other])
      #expect(chunked.status == 411)
      #expect(chunked.errorStatus == "INVALID_ARGUMENT")

      let overLimit = try await RegistryHTTP.admin(.POST, versions, body: RegistryFixtures.bytes((64 << 10) + 1))
      #expect(overLimit.status == 413)
      #expect(overLimit.errorMessage?.contains("65536") == true)
      #expect(try await RegistryHTTP.admin(.POST, versions, body: RegistryFixtures.bytes(64 << 10)).status == 201, "the limit itself is fine")

      let empty = try await RegistryHTTP.admin(.POST, versions, body: Data())
      #expect(empty.status == 400)

      let unknownModel = try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models/nope/versions"), body: RegistryFixtures.other)
      #expect(unknownModel.status == 404)

      // A body shorter than its Content-Length: the client stops sending.
      let head = "POST /v1/admin/models/limited/versions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Authorization: Bearer \(RunningRegistry.adminToken)\r\nContent-Length: 5000\r\n\r\n"
      let answer = try RegistryHTTP.raw(port: server.port, Array(head.utf8) + Array(RegistryFixtures.bytes(1000, seed: 9)))
      #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 400"), "\(answer)")

      // The server notices the cut asynchronously; wait for its clean-up.
      for _ in 0..<100 where !server.stagingFiles.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
      #expect(server.stagingFiles.isEmpty)
      #expect(server.files(in: server.blobsDirectory).count == 1, "only the one accepted upload")
      let model = try await RegistryHTTP.admin(.GET, server.url("/v1/admin/models/limited")).json
      #expect((model["versions"] as? [Any])?.count == 1)
    }
  }

  @Test("roll-outs name distinct published versions whose percentages add up to 100",
        arguments: ServerTransport.allCases, StoreKind.allCases)
  func rolloutValidation(over transport: ServerTransport, store: StoreKind) async throws {
    try await RunningRegistry.with(transport: transport, store: store) { server in
      try await server.publishedModel("rolled", files: [RegistryFixtures.tflite, RegistryFixtures.gguf])
      try await server.upload(RegistryFixtures.other, to: "rolled")   // 3, a draft
      let rollout = server.url("/v1/admin/models/rolled/rollout")
      func put(_ splits: [[String: Any]]) async throws -> TestHTTP.Reply {
        try await RegistryHTTP.admin(.PUT, rollout, json: ["splits": splits])
      }
      let invalid: [[[String: Any]]] = [
        [["version": "1", "percent": 90], ["version": "2", "percent": 20]],
        [["version": "1", "percent": 50]],
        [["version": "1", "percent": 50], ["version": "1", "percent": 50]],
        [["version": "1", "percent": 0], ["version": "2", "percent": 100]],
        [["version": "1", "percent": 33.333], ["version": "2", "percent": 66.667]],
        [["version": "1", "percent": -10], ["version": "2", "percent": 110]],
        [["version": "x", "percent": 100]],
        [["version": 1, "percent": 100]],
        [["version": "1", "percent": "100"]],
        [],
      ]
      for splits in invalid {
        let reply = try await put(splits)
        #expect(reply.status == 400, "\(splits): \(reply.text)")
        #expect(reply.errorStatus == "INVALID_ARGUMENT")
      }
      let draft = try await put([["version": "1", "percent": 50], ["version": "3", "percent": 50]])
      #expect(draft.status == 400)
      #expect(draft.errorStatus == "FAILED_PRECONDITION")
      #expect(try await put([["version": "1", "percent": 50], ["version": "9", "percent": 50]]).status == 404)
      #expect(try await RegistryHTTP.admin(.PUT, rollout, json: ["splits": NSNull()]).status == 400)
      #expect(try await RegistryHTTP.admin(.PUT, rollout, body: Data("not json".utf8)).status == 400)
      #expect(try await RegistryHTTP.admin(.PUT, server.url("/v1/admin/models/nope/rollout"),
                                           json: ["splits": [["version": "1", "percent": 100]]]).status == 404)

      let thirds = try await put([["version": "2", "percent": 33.33], ["version": "1", "percent": 66.67]])
      #expect(thirds.status == 200, "\(thirds.text)")
      let splits = try #require((try thirds.json["rollout"] as? [String: Any])?["splits"] as? [[String: Any]])
      #expect(splits.compactMap { $0["version"] as? String } == ["2", "1"])
      #expect(splits.compactMap { ($0["percent"] as? NSNumber)?.doubleValue } == [33.33, 66.67])
      #expect(thirds.text.contains(#""percent":33.33"#))

      // Unpublishing a version the roll-out names removes the roll-out.
      let unpublished = try await RegistryHTTP.admin(.POST, server.url("/v1/admin/models/rolled/versions/2:unpublish"))
      #expect(try unpublished.json["rollout"] is NSNull)
      try await server.publish("2", of: "rolled")
      #expect(try await put([["version": "1", "percent": 90], ["version": "2", "percent": 10]]).text.contains(#""percent":90"#))
      // So does deleting one.
      #expect(try await RegistryHTTP.admin(.DELETE, server.url("/v1/admin/models/rolled/versions/2")).status == 204)
      #expect(try await RegistryHTTP.admin(.GET, server.url("/v1/admin/models/rolled")).json["rollout"] is NSNull)
      // And DELETE removes it outright.
      #expect(try await put([["version": "1", "percent": 100]]).status == 200)
      let removed = try await RegistryHTTP.admin(.DELETE, rollout)
      #expect(removed.status == 200)
      #expect(try removed.json["rollout"] is NSNull)
    }
  }
}
