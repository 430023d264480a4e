import Crypto
import Foundation
import Synchronization

/// A stand-in for the Hugging Face Hub on loopback, speaking the part of its HTTP API that
/// huggingface_hub, llama.cpp's `-hf` and HybridAI use, checked against the official client:
///
/// - `GET /api/models/{repo}/revision/{rev}` → `{"id", "sha", "siblings": [{"rfilename"}]}`;
/// - `GET /api/models/{repo}/tree/{rev}?recursive=true` → entries with `type`, `path`, `size`,
///   `oid` and, for LFS files, `lfs: {oid, size, pointerSize}`;
/// - `GET /api/models/{repo}/refs` → `{"branches": [{"name", "ref", "targetCommit"}], "tags": []}`;
/// - `HEAD`/`GET /{repo}/resolve/{rev}/{file}`: an LFS file is a `302` to the second host
///   (``storage``) with `X-Repo-Commit`, `X-Linked-Etag` (its SHA-256) and `X-Linked-Size`; a small
///   file is its bytes with `ETag` (its Git blob id);
/// - errors as the Hub sends them: `404` with `X-Error-Code: RepoNotFound`, `RevisionNotFound` or
///   `EntryNotFound`; a gated repository is `401` without a token and `403` with one not granted.
///
/// The storage host serves blobs by SHA-256 with `Range`; ``cutNextTransfers`` cuts answers
/// halfway, ``corruptBlobs`` serves other bytes than the hash says.
public final class HuggingFaceHubStandIn: Sendable {
  /// One file of a repository.
  /// Its hashes are computed once, here: the stand-in answers on the event loops that the HTTP
  /// clients of every other test in the process share, and hashing a model file there for each
  /// request (a second or more on a busy machine) held their connections up until they timed out.
  public struct File: Sendable {
    public let path: String
    public let data: Data
    /// Kept in Git LFS (every GGUF on the Hub is); else in Git itself.
    public let isLFS: Bool
    /// The bytes' SHA-256 (an LFS file's oid), lowercase hex.
    public let sha256: String
    /// Git's blob id of the bytes (SHA-1 of `blob <size>\0` and the bytes).
    public let gitBlobID: String

    public init(_ path: String, _ data: Data, isLFS: Bool = true) {
      self.path = path
      self.data = data
      self.isLFS = isLFS
      sha256 = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
      var hasher = Insecure.SHA1()
      hasher.update(data: Data("blob \(data.count)\0".utf8))
      hasher.update(data: data)
      gitBlobID = hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
  }

  /// One repository at one commit, on branch `main`.
  public struct Repository: Sendable {
    public var id: String
    public var commit: String
    public var files: [File]
    /// Readable only with ``grantedToken``.
    public var isGated: Bool

    public init(_ id: String, commit: String? = nil, files: [File], isGated: Bool = false) {
      self.id = id
      self.commit = commit ?? SHA256.hash(data: Data(id.utf8)).map { String(format: "%02x", $0) }.joined().prefix(40).description
      self.files = files
      self.isGated = isGated
    }
  }

  private struct State {
    var cutNextTransfers = 0
    var corruptBlobs = false
  }

  public let hub: TestHTTPServer
  public let storage: TestHTTPServer
  public let repositories: [Repository]
  /// The token that may read gated repositories.
  public let grantedToken: String
  private let state = Mutex(State())

  private init(hub: TestHTTPServer, storage: TestHTTPServer, repositories: [Repository], grantedToken: String) {
    self.hub = hub
    self.storage = storage
    self.repositories = repositories
    self.grantedToken = grantedToken
  }

  /// Starts the Hub and its storage host.
  public static func start(_ repositories: [Repository], grantedToken: String = "hf_granted") async throws -> HuggingFaceHubStandIn {
    let box = Mutex<HuggingFaceHubStandIn?>(nil)
    let blobs = Dictionary(repositories.flatMap(\.files).map { ($0.sha256, $0.data) }, uniquingKeysWith: { first, _ in first })
    let storage = try await TestHTTPServer.start { request, _ in
      guard let standIn = box.withLock({ $0 }) else { return .close }
      return standIn.serveBlob(request, blobs: blobs)
    }
    let hub = try await TestHTTPServer.start { request, _ in
      guard let standIn = box.withLock({ $0 }) else { return .close }
      return standIn.serveHub(request)
    }
    let standIn = HuggingFaceHubStandIn(hub: hub, storage: storage, repositories: repositories, grantedToken: grantedToken)
    box.withLock { $0 = standIn }
    return standIn
  }

  public func stop() async {
    await hub.stop()
    await storage.stop()
  }

  /// The Hub's endpoint (`HF_ENDPOINT`).
  public var endpoint: URL { hub.baseURL }

  /// The next `count` blob transfers stop halfway (the connection is cut).
  public func cutNextTransfers(_ count: Int) { state.withLock { $0.cutNextTransfers = count } }

  /// Serve blobs with one byte changed (their hash no longer matches).
  public func corruptBlobs(_ corrupt: Bool) { state.withLock { $0.corruptBlobs = corrupt } }

  // MARK: - The Hub

  private func serveHub(_ request: TestHTTPServer.Request) -> TestHTTPServer.Reply {
    let path = request.path.removingPercentEncoding ?? request.path
    if path.hasPrefix("/api/models/") {
      return serveAPI(String(path.dropFirst("/api/models/".count)), request: request)
    }
    // /{org}/{repo}/resolve/{rev}/{file…}
    let parts = path.split(separator: "/", maxSplits: 5, omittingEmptySubsequences: false).dropFirst()
    guard parts.count == 5, parts[parts.startIndex + 2] == "resolve" else { return Self.error(404, "EntryNotFound", "no such page") }
    let id = parts.prefix(2).joined(separator: "/")
    let revision = String(parts[parts.startIndex + 3]), file = String(parts[parts.startIndex + 4])
    let repository: Repository
    switch access(id, revision: revision, request: request) {
    case .failure(let error): return error.reply
    case .success(let found): repository = found
    }
    guard let entry = repository.files.first(where: { $0.path == file }) else {
      return Self.error(404, "EntryNotFound", "\(file) does not exist on \(revision)")
    }
    var headers = [("X-Repo-Commit", repository.commit)]
    if entry.isLFS {
      headers += [("X-Linked-Etag", "\"\(entry.sha256)\""), ("X-Linked-Size", String(entry.data.count)),
                  ("ETag", "\"\(entry.gitBlobID)\""), ("Location", "\(storage.baseURL.absoluteString)/\(entry.sha256)")]
      return request.method == "HEAD" ? .head(status: 302, headers: headers) : .body(status: 302, headers: headers, body: Data())
    }
    headers += [("ETag", "\"\(entry.gitBlobID)\""), ("Content-Length", String(entry.data.count))]
    return request.method == "HEAD" ? .head(status: 200, headers: headers) : .body(status: 200, headers: headers, body: entry.data)
  }

  private func serveAPI(_ rest: String, request: TestHTTPServer.Request) -> TestHTTPServer.Reply {
    // {org}/{repo}/{revision|tree|refs}[/{rev}]
    let parts = rest.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
    guard parts.count >= 3 else { return Self.error(404, "RepoNotFound", "Repository not found") }
    let id = parts.prefix(2).joined(separator: "/")
    let kind = parts[2]
    let revision = parts.count > 3 ? String(parts[3]) : "main"
    let repository: Repository
    switch access(id, revision: revision, request: request) {
    case .failure(let error): return error.reply
    case .success(let found): repository = found
    }
    let json: Any
    switch kind {
    case "revision":
      json = ["id": repository.id, "sha": repository.commit, "siblings": repository.files.map { ["rfilename": $0.path] }]
    case "tree":
      json = repository.files.map { file -> [String: Any] in
        var entry: [String: Any] = ["type": "file", "path": file.path, "oid": file.gitBlobID,
                                    "size": file.isLFS ? 134 : file.data.count]
        if file.isLFS {
          entry["size"] = file.data.count
          entry["lfs"] = ["oid": file.sha256, "size": file.data.count, "pointerSize": 134]
        }
        return entry
      }
    case "refs":
      json = ["branches": [["name": "main", "ref": "refs/heads/main", "targetCommit": repository.commit]],
              "converts": [], "tags": []]
    default:
      return Self.error(404, "EntryNotFound", "no such API")
    }
    let body = (try? JSONSerialization.data(withJSONObject: json)) ?? Data()
    return .body(status: 200, headers: [("Content-Type", "application/json")], body: body)
  }

  /// The repository when the request may read it at `revision`, else the Hub's error.
  private func access(_ id: String, revision: String,
                      request: TestHTTPServer.Request) -> Result<Repository, ErrorReply> {
    guard let repository = repositories.first(where: { $0.id == id }) else {
      return .failure(ErrorReply(Self.error(404, "RepoNotFound", "Repository not found")))
    }
    if repository.isGated {
      guard let authorization = request.header("Authorization") else {
        return .failure(ErrorReply(Self.error(401, "GatedRepo",
          "Access to model \(id) is restricted. You must have access to it and be authenticated to access it. Please log in.")))
      }
      guard authorization == "Bearer \(grantedToken)" else {
        return .failure(ErrorReply(Self.error(403, "GatedRepo",
          "Access to model \(id) is restricted and you are not in the authorized list.")))
      }
    }
    guard revision == "main" || revision == repository.commit else {
      return .failure(ErrorReply(Self.error(404, "RevisionNotFound", "Invalid rev id: \(revision)")))
    }
    return .success(repository)
  }

  /// A reply as an `Error`, for ``access(_:revision:request:)``'s result.
  private struct ErrorReply: Error, @unchecked Sendable {
    let reply: TestHTTPServer.Reply
    init(_ reply: TestHTTPServer.Reply) { self.reply = reply }
  }

  private static func error(_ status: Int, _ code: String, _ message: String) -> TestHTTPServer.Reply {
    let body = (try? JSONSerialization.data(withJSONObject: ["error": message])) ?? Data()
    return .body(status: status, headers: [("Content-Type", "application/json"), ("X-Error-Code", code),
                                           ("X-Error-Message", message)], body: body)
  }

  // MARK: - The storage host

  private func serveBlob(_ request: TestHTTPServer.Request, blobs: [String: Data]) -> TestHTTPServer.Reply {
    let name = String(request.path.dropFirst())
    guard var data = blobs[name] else { return .body(status: 404, headers: [], body: Data("NoSuchKey".utf8)) }
    let (cut, corrupt) = state.withLock { state -> (Bool, Bool) in
      defer { if state.cutNextTransfers > 0 { state.cutNextTransfers -= 1 } }
      return (state.cutNextTransfers > 0, state.corruptBlobs)
    }
    if corrupt, !data.isEmpty { data[data.startIndex] ^= 0xFF }
    var status = 200, start = 0
    var headers = [("Accept-Ranges", "bytes"), ("ETag", "\"cdn-\(name.prefix(8))\"")]
    if let range = request.header("Range"), let match = range.wholeMatch(of: /bytes=(\d+)-/), let from = Int(match.1) {
      guard from < data.count else {
        return .body(status: 416, headers: [("Content-Range", "bytes */\(data.count)")], body: Data())
      }
      status = 206
      start = from
      headers.append(("Content-Range", "bytes \(from)-\(data.count - 1)/\(data.count)"))
    }
    let body = data.subdata(in: start..<data.count)
    if request.method == "HEAD" { return .head(status: status, headers: headers + [("Content-Length", String(body.count))]) }
    if cut {
      let half = body.prefix(max(1, body.count / 2))
      return .stream(status: status, headers: headers, chunks: [Data(half)], delay: .zero, end: .cut)
    }
    return .body(status: status, headers: headers, body: body)
  }
}
