import HTTPTypes
import HybridAIServing
import Hummingbird

/// The part of the Hugging Face Hub's API that a download of one GGUF needs, serving one file from
/// disk: as the Hub, `revision`, `tree` and `resolve` (a `302` to the storage host, with the LFS
/// headers); as the storage host (``storage`` `nil`), the file. For ``HubDownloadBenchmark``; the
/// tests' stand-in covers the rest.
struct HubBenchmarkServer: ServerComponent {
  static let repository = "bench/Model-GGUF"
  static let fileName = "model-Q4_K_M.gguf"
  static let commit = String(repeating: "b3c4", count: 10)

  let path: String
  let sha256: String
  let size: Int64
  /// The storage host's base URL, another origin (huggingface_hub follows a redirect to its own
  /// origin as a renamed repository); `nil` for the storage host itself.
  let storage: String?

  func addRoutes(to router: Router<BasicRequestContext>, server: ServerConfiguration) {
    guard let storage else { return addStorageRoutes(to: router) }
    router.get("/api/models/\(Self.repository)/revision/{revision}") { _, _ in
      json(#"{"id": "\#(Self.repository)", "sha": "\#(Self.commit)", "siblings": [{"rfilename": "\#(Self.fileName)"}]}"#)
    }
    router.get("/api/models/\(Self.repository)/tree/{commit}") { _, _ in
      json(#"[{"type": "file", "path": "\#(Self.fileName)", "size": \#(size), "oid": "\#(String(repeating: "0", count: 40))", "#
        + #""lfs": {"oid": "\#(sha256)", "size": \#(size), "pointerSize": 134}}]"#)
    }
    let resolve: @Sendable (Request, BasicRequestContext) async throws -> Response = { _, _ in
      Response(status: .found, headers: [
        .location: "\(storage)/storage/\(sha256)", HTTPField.Name("X-Repo-Commit")!: Self.commit,
        HTTPField.Name("X-Linked-Etag")!: "\"\(sha256)\"", HTTPField.Name("X-Linked-Size")!: String(size),
        .eTag: "\"\(sha256)\"", .contentLength: "0",
      ])
    }
    router.get("/\(Self.repository)/resolve/{revision}/\(Self.fileName)", use: resolve)
    router.head("/\(Self.repository)/resolve/{revision}/\(Self.fileName)", use: resolve)
  }

  private func addStorageRoutes(to router: Router<BasicRequestContext>) {
    router.get("/storage/{sha256}") { _, context in
      Response(status: .ok, headers: [.contentLength: String(size), .eTag: "\"\(sha256)\"", .acceptRanges: "bytes"],
               body: try await FileIO().loadFile(path: path, context: context, chunkLength: 1 << 20))
    }
    router.head("/storage/{sha256}") { _, _ in
      Response(status: .ok, headers: [.contentLength: String(size), .eTag: "\"\(sha256)\"", .acceptRanges: "bytes"])
    }
  }

  private func json(_ text: String) -> Response {
    Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
  }
}
