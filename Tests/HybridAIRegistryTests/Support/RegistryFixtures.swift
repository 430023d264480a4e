import Foundation
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// Model files for registry tests, with their SHA-256 computed independently (Python's hashlib).
enum RegistryFixtures {
  /// A FlatBuffer-shaped file with the TFLite identifier `TFL3` at offset 4: 1,008 bytes.
  static let tflite = Data([0x1C, 0, 0, 0] + Array("TFL3".utf8) + (0..<1000).map { UInt8(($0 * 7) % 251) })
  static let tfliteSHA256 = "4cd6c0d88c51980d1b06adf0a210272835f7ae857da25711f799914592aefb7e"

  /// A GGUF-shaped file (magic `GGUF`, version 3): 508 bytes.
  static let gguf = Data(Array("GGUF".utf8) + [3, 0, 0, 0] + (0..<500).map { (i: Int) -> UInt8 in UInt8((i * 13) % 251) })
  static let ggufSHA256 = "f1b11a6420f2f5432d9548ee89e02d5e04dc3fe3053fad566b894d4f9dcf6851"

  /// Anything else: 300 bytes.
  static let other = Data((0..<300).map { (i: Int) -> UInt8 in UInt8((i * 31 + 5) % 256) })
  static let otherSHA256 = "302f1eb58a0a92285672fdc7858d09293409d0bc39cf3351ea94302fbe4d3f4c"

  /// `count` bytes, different for each `seed`.
  static func bytes(_ count: Int, seed: UInt8 = 0) -> Data {
    Data((0..<count).map { (i: Int) -> UInt8 in UInt8(truncatingIfNeeded: i &* 31 &+ Int(seed) &* 7 &+ (i >> 8)) })
  }
}

/// Admin steps shared by the registry tests.
extension RunningRegistry {
  @discardableResult
  func createModel(_ name: String, description: String? = nil, tags: [String]? = nil) async throws -> TestHTTP.Reply {
    var body: [String: Any] = ["name": name]
    if let description { body["description"] = description }
    if let tags { body["tags"] = tags }
    let reply = try await RegistryHTTP.admin(.POST, url("/v1/admin/models"), json: body)
    try #require(reply.status == 201, "create \(name): \(reply.status) \(reply.text)")
    return reply
  }

  /// Uploads `data` as a new version; returns the version's JSON.
  @discardableResult
  func upload(_ data: Data, to name: String) async throws -> [String: Any] {
    let reply = try await RegistryHTTP.admin(.POST, url("/v1/admin/models/\(name)/versions"), body: data)
    try #require(reply.status == 201, "upload to \(name): \(reply.status) \(reply.text)")
    return try reply.json
  }

  @discardableResult
  func publish(_ version: String, of name: String) async throws -> [String: Any] {
    let reply = try await RegistryHTTP.admin(.POST, url("/v1/admin/models/\(name)/versions/\(version):publish"))
    try #require(reply.status == 200, "publish \(name)/\(version): \(reply.status) \(reply.text)")
    return try reply.json
  }

  /// A model with the given files uploaded and published, versions "1", "2", ….
  func publishedModel(_ name: String, files: [Data]) async throws {
    try await createModel(name)
    for file in files {
      let version = try await upload(file, to: name)
      try await publish(try #require(version["version"] as? String), of: name)
    }
  }

  func downloadInfo(_ name: String, installationId: String? = nil,
                    headers: [String: String] = [:]) async throws -> TestHTTP.Reply {
    var headers = headers
    if let installationId { headers["X-HybridAI-Installation-Id"] = installationId }
    return try await TestHTTP.send(.GET, url("/v1/models/\(name):download"), headers: headers)
  }

  /// The `downloadUri` the registry hands out for `name` right now.
  func downloadURI(_ name: String, installationId: String = "test-installation") async throws -> URL {
    let reply = try await downloadInfo(name, installationId: installationId)
    try #require(reply.status == 200, "download info \(name): \(reply.status) \(reply.text)")
    let uri = try reply.json["downloadUri"] as? String
    return try #require(uri.flatMap { URL(string: $0) })
  }
}

extension Array where Element: Sendable {
  /// The elements as an async sequence.
  var async: AsyncStream<Element> {
    AsyncStream { continuation in
      for element in self { continuation.yield(element) }
      continuation.finish()
    }
  }
}
