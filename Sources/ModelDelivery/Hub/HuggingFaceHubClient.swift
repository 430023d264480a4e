import AsyncHTTPClient
import Foundation
import HybridAIWire
import Logging
import NIOCore
import NIOHTTP1

/// Fetches GGUF models from the Hugging Face Hub into its shared cache, as llama.cpp's `-hf` and
/// huggingface_hub do, so that each finds what the others fetched.
///
/// ```swift
/// let client = HuggingFaceHubClient()                       // HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE
/// let model = try await client.fetch(try ModelReference("hf:ggml-org/SmolLM2-135M-Instruct-GGUF:Q8_0")) {
///   print("\($0.file): \($0.receivedBytes) of \($0.totalBytes) bytes")
/// }
/// ```
///
/// The revision is resolved to its commit (`/api/models/{repo}/revision/{rev}`), the files listed
/// (`/api/models/{repo}/tree/{commit}?recursive=true`), the GGUF picked by quantization as `-hf`
/// picks it (with every part of a split model and the `mmproj` projector beside it), and each file
/// downloaded from `/{repo}/resolve/{commit}/{file}` — following the Hub's redirect to its storage
/// host, resuming from `blobs/<sha256>.incomplete` after an interruption, and checked against its
/// LFS SHA-256 before it becomes `blobs/<sha256>`. A blob already in the cache with the right hash
/// is not downloaded again.
public struct HuggingFaceHubClient: Sendable {
  public var configuration: HuggingFaceHubConfiguration
  public var cache: HuggingFaceCache
  let httpClient: HTTPClient
  let retryPolicy: ModelDownloadRetryPolicy
  let logger: Logger

  /// The most bytes read from an API answer.
  static let maxAPIBodyBytes = 32 << 20

  /// A client for the Hub and cache the environment names.
  public init(configuration: HuggingFaceHubConfiguration = HuggingFaceHubConfiguration(),
              cache: HuggingFaceCache = HuggingFaceCache(),
              httpClient: HTTPClient = DeliveryHTTPClient.shared,
              retryPolicy: ModelDownloadRetryPolicy = .default,
              logger: Logger = Logger(label: "HybridAI.hub")) {
    self.configuration = configuration
    self.cache = cache
    self.httpClient = httpClient
    self.retryPolicy = retryPolicy
    self.logger = logger
  }

  /// The model `reference` (an `hf:` reference) names, from the cache when it is there, else
  /// fetched; offline (`HF_HUB_OFFLINE`), from the cache only.
  public func model(for reference: ModelReference,
                    progress: @escaping @Sendable (ModelFetchProgress) -> Void = { _ in }) async throws -> LocalModel {
    if let cached = try? cache.locate(reference) { return cached }
    return try await fetch(reference, progress: progress)
  }

  /// Fetches the files of `reference` (an `hf:` reference) that the cache lacks and returns the
  /// model in the cache. `progress` is called as bytes arrive.
  public func fetch(_ reference: ModelReference,
                    progress: @escaping @Sendable (ModelFetchProgress) -> Void = { _ in }) async throws -> LocalModel {
    guard case .huggingFace(let repository, let quantization, let asked) = reference else {
      preconditionFailure("not an hf: reference")
    }
    if configuration.isOffline {
      do { return try cache.locate(reference) } catch {
        if case .damaged = error { throw error }   // there, but unusable: say so
        throw HuggingFaceHubError.offlineAndNotCached(reference)
      }
    }
    let revision = asked ?? "main"
    let commit = try await commit(of: repository, revision: revision)
    let files = try await files(of: repository, commit: commit)
    let chosen = try Self.modelFiles(among: files, quantization: quantization, reference: reference,
                                     repository: repository, revision: revision)
    let total = chosen.reduce(Int64(0)) { $0 + $1.size }
    logger.info("fetching from the Hugging Face Hub", metadata: [
      "repository": "\(repository)", "commit": "\(commit)", "files": "\(chosen.map { $0.path })", "bytes": "\(total)",
    ])
    var done: Int64 = 0
    for file in chosen {
      let before = done
      try await ensureBlob(file, repository: repository, commit: commit) { received in
        progress(ModelFetchProgress(file: file.path, receivedBytes: before + received, totalBytes: total))
      }
      done += file.size
      try cache.linkSnapshot(of: repository, commit: commit, file: file)
    }
    if revision != commit { try cache.writeRef(of: repository, revision: revision, commit: commit) }
    return try cache.locate(.huggingFace(repository: repository, quantization: quantization, revision: commit))
  }

  // MARK: - The Hub's API

  /// The commit `revision` (a branch, tag or commit) points at.
  func commit(of repository: String, revision: String) async throws -> String {
    let data = try await get("api/models/\(repository)/revision/\(Self.escaped(revision))", repository: repository,
                             revision: revision)
    struct RevisionInfo: Decodable { let sha: String }
    guard let info = try? JSONDecoder().decode(RevisionInfo.self, from: data),
          info.sha.wholeMatch(of: /[0-9a-f]{40}/) != nil else {
      throw HuggingFaceHubError.invalidResponse("the revision answer names no commit")
    }
    return info.sha
  }

  /// Every file of the repository at `commit` (following the tree API's `Link: rel="next"` pages).
  func files(of repository: String, commit: String) async throws -> [HuggingFaceHubFile] {
    struct Entry: Decodable {
      struct LFS: Decodable { let oid: String; let size: Int64 }
      let type: String
      let path: String
      let size: Int64?
      let oid: String?
      let lfs: LFS?
    }
    var files: [HuggingFaceHubFile] = []
    var next: String? = "api/models/\(repository)/tree/\(commit)?recursive=true"
    var pages = 0
    while let path = next, pages < 1000 {
      pages += 1
      var link: String?
      let data = try await get(path, repository: repository, revision: commit) { link = $0 }
      guard let entries = try? JSONDecoder().decode([Entry].self, from: data) else {
        throw HuggingFaceHubError.invalidResponse("the file list is not a list of entries")
      }
      for entry in entries where entry.type == "file" {
        // A path becomes a link below the snapshot, a hash a file name in blobs/: neither may lead elsewhere.
        guard Self.isInsideRepository(entry.path) else {
          throw HuggingFaceHubError.invalidResponse("the file list names a path outside the repository: \"\(entry.path.prefix(200))\"")
        }
        if let oid = entry.lfs?.oid, !VerifiedBlob.isSHA256(oid.lowercased()) {
          throw HuggingFaceHubError.invalidResponse("\(entry.path) is listed with an LFS hash that is not a SHA-256")
        }
        let size = entry.lfs?.size ?? entry.size ?? 0
        files.append(HuggingFaceHubFile(path: entry.path, size: size, sha256: entry.lfs?.oid.lowercased(),
                                        gitBlobID: entry.oid?.lowercased()))
      }
      next = link.flatMap(Self.nextPage(inLinkHeader:))
    }
    return files
  }

  /// Whether `path` names a file inside a repository: relative, with no empty, `.` or `..` part,
  /// no backslash or NUL.
  static func isInsideRepository(_ path: String) -> Bool {
    guard !path.isEmpty, path.utf8.count <= 4096, !path.hasPrefix("/"), !path.contains("\\"), !path.contains("\0") else {
      return false
    }
    return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
  }

  /// The model's files among `files`: the GGUF of `quantization` (every part of a split one) and
  /// the projector beside it.
  static func modelFiles(among files: [HuggingFaceHubFile], quantization: String?, reference: ModelReference,
                         repository: String, revision: String) throws -> [HuggingFaceHubFile] {
    let paths = files.map(\.path)
    let models = paths.filter(HuggingFaceCache.isModel)
    guard !models.isEmpty else { throw HuggingFaceHubError.noModel(repository: repository, revision: revision) }
    guard let chosen = HuggingFaceCache.model(among: models, quantization: quantization) else {
      throw HuggingFaceHubError.quantizationNotFound(reference, available: HuggingFaceCache.quantizations(in: models))
    }
    var wanted = HuggingFaceCache.splitParts(of: chosen, among: models)
    if let projector = HuggingFaceCache.projector(among: paths, for: chosen) { wanted.append(projector) }
    return wanted.compactMap { path in files.first { $0.path == path } }
  }

  /// `GET <endpoint>/<path>` with the token; the body of a `200`, else the typed error.
  private func get(_ path: String, repository: String, revision: String,
                   link: (String?) -> Void = { _ in }) async throws -> Data {
    let url = path.hasPrefix("http://") || path.hasPrefix("https://") ? path : "\(configuration.endpoint.absoluteString)/\(path)"
    var request = HTTPClientRequest(url: url)
    request.headers.add(name: "Accept", value: "application/json")
    request.headers.add(name: "User-Agent", value: ModelDownloader.userAgent)
    if let token = configuration.token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
    let response: HTTPClientResponse
    let body: ByteBuffer
    do {
      response = try await httpClient.execute(request, timeout: .seconds(60), logger: logger)
      body = try await response.body.collect(upTo: Self.maxAPIBodyBytes)
    } catch {
      if TransportErrors.isCancellation(error) { throw CancellationError() }
      throw HuggingFaceHubError.transferFailed(file: url, TransportErrors.beforeResponse(error, host: URL(string: url)?.host ?? ""))
    }
    link(response.headers.first(name: "Link"))
    let data = Data(body.readableBytesView)
    let status = Int(response.status.code)
    guard status != 200 else { return data }
    let code = response.headers.first(name: "X-Error-Code") ?? ""
    let message = response.headers.first(name: "X-Error-Message") ?? Self.message(in: data)
    switch (status, code) {
    case (_, "RepoNotFound"), (404, ""): throw HuggingFaceHubError.repositoryNotFound(repository)
    case (_, "RevisionNotFound"), (404, _): throw HuggingFaceHubError.revisionNotFound(repository: repository, revision: revision)
    case (401, _): throw HuggingFaceHubError.authenticationRequired(repository: repository, message: message)
    case (403, _): throw HuggingFaceHubError.accessDenied(repository: repository, message: message)
    default: throw HuggingFaceHubError.serverError(status: status, message: message)
    }
  }

  /// The `error` of a Hub error body (`{"error": "…"}`), else the body's start.
  static func message(in data: Data) -> String {
    struct Body: Decodable { let error: String }
    if let body = try? JSONDecoder().decode(Body.self, from: data) { return body.error }
    return String(decoding: data.prefix(300), as: UTF8.self)
  }

  /// The URL of `rel="next"` in a `Link` header.
  static func nextPage(inLinkHeader header: String) -> String? {
    for part in header.split(separator: ",") where part.contains("rel=\"next\"") {
      guard let start = part.firstIndex(of: "<"), let end = part.firstIndex(of: ">"), start < end else { continue }
      return String(part[part.index(after: start)..<end])
    }
    return nil
  }

  /// `text` percent-encoded for one path segment (a revision such as `refs/pr/1` included).
  static func escaped(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
  }

  /// `<endpoint>/<repository>/resolve/<commit>/<file>`.
  func downloadURL(repository: String, commit: String, file: String) -> URL {
    let path = file.split(separator: "/").map { Self.escaped(String($0)) }.joined(separator: "/")
    return URL(string: "\(configuration.endpoint.absoluteString)/\(repository)/resolve/\(commit)/\(path)")!
  }
}
