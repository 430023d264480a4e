import Foundation
import HybridAIServerTestSupport
import HybridAIServing
import HybridAITestSupport
import Testing

/// `GET|HEAD /v1/blobs/{sha256}`: signed URLs, expiry, ranges.
@Suite("Registry blob downloads")
struct RegistryBlobTests {
  /// `url` with its query item `name` set to `value`.
  private func replacing(_ name: String, with value: String, in url: URL) throws -> URL {
    var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
    components.queryItems = components.queryItems?.map { $0.name == name ? URLQueryItem(name: name, value: value) : $0 }
    return try #require(components.url)
  }

  @Test("a signed URL serves the file; a changed sha, expiry or signature, or an expired URL, is 403")
  func signedURLs() async throws {
    try await RunningRegistry.with { server in
      try await server.publishedModel("signed", files: [RegistryFixtures.tflite, RegistryFixtures.gguf])
      let uri = try await server.downloadURI("signed")
      let whole = try await TestHTTP.send(.GET, uri)
      #expect(whole.status == 200)
      #expect(whole.body == RegistryFixtures.gguf)
      #expect(whole.header("etag") == "\"\(RegistryFixtures.ggufSHA256)\"")
      #expect(whole.header("accept-ranges") == "bytes")
      #expect(whole.header("content-length") == String(RegistryFixtures.gguf.count))

      let query = try #require(uri.query)
      let otherBlob = server.url("/v1/blobs/\(RegistryFixtures.tfliteSHA256)?\(query)")
      let queryItems = URLComponents(url: uri, resolvingAgainstBaseURL: false)?.queryItems ?? []
      let expires = try #require(queryItems.first { $0.name == "expires" }?.value.flatMap { Int($0) })
      let signature = try #require(queryItems.first { $0.name == "signature" }?.value)
      let flipped = (signature.first == "0" ? "1" : "0") + signature.dropFirst()
      let tampered: [(String, URL)] = [
        ("another blob's sha", otherBlob),
        ("a later expiry", try replacing("expires", with: String(expires + 3600), in: uri)),
        ("an earlier expiry", try replacing("expires", with: String(expires - 1), in: uri)),
        ("a padded expiry", try replacing("expires", with: "0\(expires)", in: uri)),
        ("a changed signature", try replacing("signature", with: flipped, in: uri)),
        ("an uppercase signature", try replacing("signature", with: signature.uppercased(), in: uri)),
        ("a short signature", try replacing("signature", with: String(signature.dropLast(2)), in: uri)),
        ("no signature", server.url("/v1/blobs/\(RegistryFixtures.ggufSHA256)?expires=\(expires)")),
        ("no query", server.url("/v1/blobs/\(RegistryFixtures.ggufSHA256)")),
      ]
      for (change, url) in tampered {
        let reply = try await TestHTTP.send(.GET, url)
        #expect(reply.status == 403, "\(change)")
        #expect(reply.errorStatus == "PERMISSION_DENIED", "\(change)")
        #expect(reply.errorMessage?.contains("invalid") == true, "\(change): \(reply.errorMessage ?? "")")
        #expect(try await TestHTTP.send(.HEAD, url).status == 403, "HEAD with \(change)")
      }

      server.clock.advance(by: 599)
      #expect(try await TestHTTP.send(.GET, uri).status == 200, "still valid a second before expiry")
      server.clock.advance(by: 1)
      let expired = try await TestHTTP.send(.GET, uri)
      #expect(expired.status == 403)
      #expect(expired.errorStatus == "PERMISSION_DENIED")
      #expect(expired.errorMessage?.contains("expired") == true)
      // A fresh URL works again.
      #expect(try await TestHTTP.send(.GET, try await server.downloadURI("signed")).status == 200)
    }
  }

  @Test("downloads are counted in /metrics: whole ones, resumed ranges and the bytes sent")
  func downloadMetrics() async throws {
    try await RunningRegistry.with { server in
      let file = RegistryFixtures.bytes(3 << 20, seed: 5)
      try await server.publishedModel("counted", files: [file])
      let uri = try await server.downloadURI("counted")
      #expect(try await TestHTTP.send(.GET, uri).status == 200)
      #expect(try await TestHTTP.send(.GET, uri, headers: ["Range": "bytes=1000-"]).status == 206)   // a resume
      #expect(try await TestHTTP.send(.HEAD, uri).status == 200)   // no body: not a download
      let text = try await TestHTTP.send(.GET, server.baseURL.appendingPathComponent("metrics")).text
      func value(_ prefix: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
      }
      #expect(value(MetricName.downloadBytes) == Double(file.count + file.count - 1000), "\(text)")
      #expect(value(MetricName.downloadResumes) == 1)
      #expect(value(MetricName.downloads + #"{kind="whole"}"#) == 1)
      #expect(value(MetricName.downloads + #"{kind="range"}"#) == 1)
      #expect(text.contains(#"route="/v1/blobs/{sha256}""#) && text.contains(#"status="206""#), "\(text)")
    }
  }

  @Test("Range answers 206 with Content-Range, unsatisfiable ones 416; If-Range and HEAD")
  func ranges() async throws {
    try await RunningRegistry.with { server in
      let file = RegistryFixtures.bytes(3 << 20, seed: 3)   // 3 MiB: streamed in several chunks
      let size = file.count
      try await server.publishedModel("ranged", files: [file])
      let uri = try await server.downloadURI("ranged")
      let eTag = try #require(try await TestHTTP.send(.HEAD, uri).header("etag"))

      let whole = try await TestHTTP.send(.GET, uri)
      #expect(whole.status == 200)
      #expect(whole.body == file)

      let cases: [(range: String, bytes: ClosedRange<Int>)] = [
        ("bytes=0-99", 0...99),
        ("bytes=1000-", 1000...(size - 1)),
        ("bytes=-10", (size - 10)...(size - 1)),
        ("bytes=100-99999999", 100...(size - 1)),
        ("bytes=-99999999", 0...(size - 1)),
        ("bytes=\(size - 1)-\(size - 1)", (size - 1)...(size - 1)),
      ]
      for (range, bytes) in cases {
        let reply = try await TestHTTP.send(.GET, uri, headers: ["Range": range])
        #expect(reply.status == 206, "\(range)")
        #expect(reply.header("content-range") == "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)", "\(range)")
        #expect(reply.header("content-length") == String(bytes.count), "\(range)")
        #expect(reply.body == file[bytes], "\(range)")
      }
      for range in ["bytes=\(size)-", "bytes=\(size)-\(size + 10)", "bytes=-0", "bytes=99999999999999999999999-"] {
        let reply = try await TestHTTP.send(.GET, uri, headers: ["Range": range])
        #expect(reply.status == 416, "\(range)")
        #expect(reply.header("content-range") == "bytes */\(size)", "\(range)")
        #expect(reply.errorStatus == "OUT_OF_RANGE")
      }
      for ignored in ["bytes=0-1,5-6", "items=0-1", "bytes=5-1", "bytes=a-b"] {
        let reply = try await TestHTTP.send(.GET, uri, headers: ["Range": ignored])
        #expect(reply.status == 200, "\(ignored)")
        #expect(reply.body.count == size, "\(ignored)")
      }

      let resumed = try await TestHTTP.send(.GET, uri, headers: ["Range": "bytes=10-", "If-Range": eTag])
      #expect(resumed.status == 206)
      #expect(resumed.body == file[10...])
      let changed = try await TestHTTP.send(.GET, uri, headers: ["Range": "bytes=10-", "If-Range": "\"\(String(repeating: "0", count: 64))\""])
      #expect(changed.status == 200, "a different If-Range gets the whole file")
      #expect(changed.body == file)

      let head = try await TestHTTP.send(.HEAD, uri)
      #expect(head.status == 200)
      #expect(head.body.isEmpty)
      #expect(head.header("content-length") == String(size))
      #expect(head.header("accept-ranges") == "bytes")
      let headRange = try await TestHTTP.send(.HEAD, uri, headers: ["Range": "bytes=5-9"])
      #expect(headRange.status == 206)
      #expect(headRange.header("content-range") == "bytes 5-9/\(size)")
      #expect(headRange.header("content-length") == "5")
      #expect(try await TestHTTP.send(.HEAD, uri, headers: ["Range": "bytes=\(size)-"]).status == 416)

      let notModified = try await TestHTTP.send(.GET, uri, headers: ["If-None-Match": eTag])
      #expect(notModified.status == 304)
      #expect(notModified.body.isEmpty)
    }
  }

  @Test("a signed URL for a blob that was deleted since is 404")
  func deletedBlob() async throws {
    try await RunningRegistry.with { server in
      try await server.publishedModel("fleeting", files: [RegistryFixtures.other])
      let uri = try await server.downloadURI("fleeting")
      #expect(try await RegistryHTTP.admin(.DELETE, server.url("/v1/admin/models/fleeting")).status == 204)
      let reply = try await TestHTTP.send(.GET, uri)
      #expect(reply.status == 404)
      #expect(reply.errorStatus == "NOT_FOUND")
    }
  }

  @Test("a model file deleted behind the server's back: download info and the blob answer 500 naming the version (logged), the record stays, redeploying the bytes repairs it")
  func fileDeletedBehindTheServer() async throws {
    try await RunningRegistry.with { server in
      try await server.publishedModel("fragile", files: [RegistryFixtures.gguf])
      let uri = try await server.downloadURI("fragile")
      let blob = server.dataDirectory.appending(path: "blobs/sha256/\(RegistryFixtures.ggufSHA256.prefix(2))/\(RegistryFixtures.ggufSHA256)")
      try FileManager.default.removeItem(at: blob)

      let info = try await server.downloadInfo("fragile", installationId: "device")
      #expect(info.status == 500 && info.errorStatus == "INTERNAL", "\(info.text)")
      #expect(info.errorMessage?.contains("version 1") == true && info.errorMessage?.contains("missing on the server") == true)
      let download = try await TestHTTP.send(.GET, uri)
      #expect(download.status == 500 && download.errorMessage?.contains("missing on the server") == true, "\(download.text)")

      _ = try await server.upload(RegistryFixtures.gguf, to: "fragile")   // the same bytes again: version 2, the file is back
      #expect(try await server.downloadInfo("fragile", installationId: "device").status == 200, "version 1 is whole again")
      #expect(try await TestHTTP.send(.GET, uri).body == RegistryFixtures.gguf)
    }
  }
}
