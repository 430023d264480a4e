import Foundation
import HTTPTypes
import Hummingbird
import HybridAIServing
import HybridAIWire
import NIOCore

/// The model registry's HTTP API (docs/model-delivery.md), a product of ``HybridServer``: the
/// client's download info (`GET /v1/models/{name}:download`, behind the server's API keys), signed
/// blob downloads (`GET|HEAD /v1/blobs/{sha256}`), the admin API under `/v1/admin/` (its own
/// token) and the OpenAPI document (`GET /v1/openapi.yaml`).
///
/// It shares `/v1/models/…` with the Gemini API's `GET /v1/models/{model}`: put it before that
/// component in ``HybridServer/components``.
public struct RegistryAPI: ServerComponent {
  /// The registry answered.
  public let registry: ModelRegistry
  /// Download counters, when the server keeps metrics.
  let downloads: DownloadMetrics?
  /// ``RegistryConfiguration/publicURL`` without trailing slashes, worked out once.
  private let publicBaseURL: String?

  /// The API of `registry`; with `metrics`, downloads are counted there (bytes sent, resumes).
  public init(registry: ModelRegistry, metrics: ServerMetrics? = nil) {
    self.registry = registry
    self.downloads = metrics.map(DownloadMetrics.init)
    publicBaseURL = registry.configuration.publicURL.map { publicURL in
      var base = publicURL.absoluteString
      while base.hasSuffix("/") { base.removeLast() }
      return base
    }
  }

  static let installationIdHeader = HTTPField.Name("X-HybridAI-Installation-Id")!
  static let forwardedProtoHeader = HTTPField.Name("X-Forwarded-Proto")!
  static let forwardedHostHeader = HTTPField.Name("X-Forwarded-Host")!
  static let forwardedHeader = HTTPField.Name("Forwarded")!
  /// The largest JSON body the admin API reads.
  static let maxJSONBodyBytes = 64 << 10
  /// Blobs are read from disk and sent in chunks of this size.
  static let blobChunkBytes = 1 << 20
  static let maxDescriptionLength = 1024
  static let maxTagCount = 32
  static let maxTagLength = 64
  static let maxSplitCount = 100
  public func addRoutes(to router: Router<BasicRequestContext>, server: ServerConfiguration) {
    // The client API: behind the server's API keys, as the Gemini API is.
    let clients = router.group().add(middleware: server.authentication(requiring: .registryRead))
    clients.get("/v1/models/{name}:download") { request, context in
      try await download(try context.parameters.require("name"), request: request)
    }
    refuseOtherMethods(on: "/v1/models/{name}:download", allowing: [.get, .head], router: clients)
    router.get("/v1/openapi.yaml") { _, _ in try openAPIDocument() }
    router.get("/v1/blobs/{sha256}") { request, context in
      try await blob(try context.parameters.require("sha256"), request: request, context: context, includeBody: true)
    }
    router.head("/v1/blobs/{sha256}") { request, context in
      try await blob(try context.parameters.require("sha256"), request: request, context: context, includeBody: false)
    }

    let admin = router.group("/v1/admin")
      .add(middleware: AdminAuthorizationMiddleware<BasicRequestContext>(token: registry.configuration.adminToken, keys: server.keys))
    admin.post("models") { request, _ in try await createModel(request) }
    admin.get("models") { _, _ in try json(RegistryModelList(models: try await registry.models().map(RegistryModel.init))) }
    admin.get("models/{name}") { _, context in
      try json(RegistryModel(try await registry.model(named: try modelName(context))))
    }
    admin.delete("models/{name}") { _, context in
      try await registry.deleteModel(named: try modelName(context))
      return Response(status: .noContent)
    }
    admin.post("models/{name}/versions") { request, context in try await uploadVersion(try modelName(context), request: request) }
    // Here `{version}` holds `version:publish` or `version:unpublish` (Hummingbird matches whole
    // path components, and one position takes one parameter name).
    admin.post("models/{name}/versions/{version}") { _, context in
      try await changeVersionState(try modelName(context), versionAction: try context.parameters.require("version"))
    }
    admin.get("models/{name}/versions/{version}") { _, context in
      let name = try modelName(context), version: String = try context.parameters.require("version")
      guard !version.contains(":") else { throw GoogleAPIError.methodNotAllowed(allow: "POST") }
      return try json(RegistryModelVersion(try await registry.version(try versionNumber(version), ofModel: name)))
    }
    admin.delete("models/{name}/versions/{version}") { _, context in
      let name = try modelName(context), version: String = try context.parameters.require("version")
      guard !version.contains(":") else { throw GoogleAPIError.methodNotAllowed(allow: "POST") }
      try await registry.deleteVersion(try versionNumber(version), ofModel: name)
      return Response(status: .noContent)
    }
    admin.put("models/{name}/rollout") { request, context in try await setRollout(try modelName(context), request: request) }
    admin.delete("models/{name}/rollout") { _, context in
      try json(RegistryModel(try await registry.setRollout(nil, ofModel: try modelName(context))))
    }

    // Every other method is 405 with the methods that are there (before the admin token is checked).
    refuseOtherMethods(on: "/v1/openapi.yaml", allowing: [.get, .head], router: router)
    refuseOtherMethods(on: "/v1/blobs/{sha256}", allowing: [.get, .head], router: router)
    refuseOtherMethods(on: "/v1/admin/models", allowing: [.get, .head, .post], router: router)
    refuseOtherMethods(on: "/v1/admin/models/{name}", allowing: [.get, .head, .delete], router: router)
    refuseOtherMethods(on: "/v1/admin/models/{name}/versions", allowing: [.post], router: router)
    refuseOtherMethods(on: "/v1/admin/models/{name}/rollout", allowing: [.put, .delete], router: router)
    for method in Self.methods where ![.get, .head, .post, .delete].contains(method) {
      router.on("/v1/admin/models/{name}/versions/{version}", method: method) { _, context -> Response in
        let version: String = try context.parameters.require("version")
        throw GoogleAPIError.methodNotAllowed(allow: version.contains(":") ? "POST" : "GET, HEAD, DELETE")
      }
    }
  }

  /// The methods a client might try on a path (QUERY: RFC 9110's safe method with a body, in draft).
  static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete, .patch, .options, .trace,
                                              HTTPRequest.Method("QUERY")!]

  /// Answers every method but `allowed` on `path` with `405` and an `Allow` header.
  private func refuseOtherMethods<Routes: RouterMethods>(on path: RouterPath, allowing allowed: [HTTPRequest.Method],
                                                         router: Routes) {
    let allow = allowed.map(\.rawValue).joined(separator: ", ")
    for method in Self.methods where !allowed.contains(method) {
      router.on(path, method: method) { _, _ -> Response in throw GoogleAPIError.methodNotAllowed(allow: allow) }
    }
  }

  // MARK: - Client API

  /// `GET /v1/models/{name}:download`: which version this installation gets and a signed URL for it.
  ///
  /// The busiest request a registry answers (every installation asks at every check), so it does
  /// no I/O: the model comes from the registry's in-memory snapshot, and the body is written
  /// without `JSONEncoder`.
  func download(_ requestedName: String, request: Request) async throws -> Response {
    let name = try validatedModelName(requestedName)
    // Without the header, everyone shares the empty id's bucket; a header that is there must be valid.
    let installationId = request.headers[Self.installationIdHeader]
    guard installationId.map(RegistryIdentifiers.isValidInstallationId) ?? true else {
      throw GoogleAPIError.invalidArgument(
        "X-HybridAI-Installation-Id is 1–\(RegistryIdentifiers.maxInstallationIdLength) visible ASCII characters.")
    }
    let model = try await registry.model(named: name)
    guard let version = registry.servedVersion(of: model, installationId: installationId ?? "") else {
      throw GoogleAPIError.notFound("Model \(name) has no published version.")
    }
    guard registry.blobs.size(ofBlob: version.sha256) != nil else {
      throw missingFile(of: name, version: version)
    }
    let eTag = Self.eTag(version.sha256)
    var headers: HTTPFields = [.eTag: eTag, .cacheControl: "no-cache"]
    if Self.ifNoneMatch(request.headers[.ifNoneMatch], matches: eTag) {
      return Response(status: .notModified, headers: headers)
    }
    let (url, expires) = registry.signedBlobURL(sha256: version.sha256, baseURL: baseURL(for: request))
    registry.logger.debug("model download info", metadata: [
      "model": "\(name)", "version": "\(version.number)", "rollout": "\(model.rollout != nil)",
    ])
    headers[.contentType] = "application/json; charset=UTF-8"
    let info = ModelDownloadInfo(
      name: name, version: String(version.number), sizeBytes: version.sizeBytes, sha256: version.sha256,
      format: version.format.rawValue, downloadUri: url, expireTime: RegistryTimestamp.string(expires))
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: info.jsonBody))
  }

  /// A published version whose file was deleted behind the registry's back (by hand, a disk
  /// error): `500 INTERNAL` naming it, logged as an error; the record stays, so redeploying the
  /// same bytes repairs it.
  private func missingFile(of name: String, version: ModelRecord.Version) -> GoogleAPIError {
    registry.logger.error("a model file the registry refers to is missing from its directory", metadata: [
      "model": "\(name)", "version": "\(version.number)", "sha256": "\(version.sha256)",
    ])
    return GoogleAPIError.internal(
      "The file of model \(name) version \(version.number) (sha256 \(version.sha256)) is missing on the server; "
        + "an administrator must deploy it again.")
  }

  /// `GET|HEAD /v1/blobs/{sha256}?expires=…&signature=…`: the file, whole or a range, streamed from disk.
  func blob(_ sha256: String, request: Request, context: some RequestContext, includeBody: Bool) async throws -> Response {
    guard RegistryIdentifiers.isValidSHA256(sha256) else {
      throw GoogleAPIError.invalidArgument("Blob ids are lowercase hex SHA-256 (64 characters).")
    }
    let query = request.uri.queryParameters
    switch registry.signer.verify(sha256: sha256, expires: query.get("expires"), signature: query.get("signature"),
                                  now: registry.now()) {
    case .valid: break
    case .expired:
      registry.logger.debug("expired download URL refused", metadata: ["sha256": "\(sha256)"])
      throw GoogleAPIError.permissionDenied("The download URL has expired; fetch the model info again.")
    case .invalid:
      registry.logger.notice("download URL with a bad signature refused", metadata: ["sha256": "\(sha256)"])
      throw GoogleAPIError.permissionDenied("The download URL is invalid (its signature does not match).")
    }
    guard let size = registry.blobs.size(ofBlob: sha256), let path = registry.blobs.path(ofBlob: sha256) else {
      if try await registry.store.isBlobReferenced(sha256: sha256) {
        registry.logger.error("a model file the registry refers to is missing from its directory", metadata: ["sha256": "\(sha256)"])
        throw GoogleAPIError.internal("The model file \(sha256) is missing on the server; it must be deployed again.")
      }
      throw GoogleAPIError.notFound("Blob \(sha256) not found.")
    }
    let eTag = Self.eTag(sha256)
    var headers: HTTPFields = [.acceptRanges: "bytes", .eTag: eTag, .contentType: "application/octet-stream"]
    if Self.ifNoneMatch(request.headers[.ifNoneMatch], matches: eTag) {
      return Response(status: .notModified, headers: headers)
    }
    // A range applies only to the representation the client has: a different If-Range means "send it all".
    let ifRangeMatches = request.headers[.ifRange].map { $0.trimmingASCIISpaces() == eTag } ?? true
    let rangeHeader = ifRangeMatches ? request.headers[.range] : nil
    let range = ByteRangeRequest(header: rangeHeader, size: size)
    registry.logger.debug("blob download", metadata: [
      "sha256": "\(sha256)", "range": "\(rangeHeader ?? "-")", "method": "\(request.method)",
    ])
    switch range {
    case .unsatisfiable:
      throw GoogleAPIError.rangeNotSatisfiable(size: size)
    case .partial(let range):
      headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
      headers[.contentLength] = String(range.count)
      let body = includeBody
        ? try await FileIO().loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context,
                                     chunkLength: Self.blobChunkBytes)
        : ResponseBody()
      if includeBody { downloads?.started(resuming: range.lowerBound > 0) }
      return Response(status: .partialContent, headers: headers, body: includeBody ? downloads?.counting(body) ?? body : body)
    case .whole:
      headers[.contentLength] = String(size)
      let body = includeBody ? try await FileIO().loadFile(path: path, context: context, chunkLength: Self.blobChunkBytes)
        : ResponseBody()
      if includeBody { downloads?.started(resuming: false) }
      return Response(status: .ok, headers: headers, body: includeBody ? downloads?.counting(body) ?? body : body)
    }
  }

  /// `GET /v1/openapi.yaml`.
  func openAPIDocument() throws -> Response {
    guard let document = registry.openAPIDocument else {
      throw GoogleAPIError(status: .notFound, statusName: "NOT_FOUND",
                           message: "The OpenAPI document is not installed with this server.", reason: nil)
    }
    return Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"], body: ResponseBody(byteBuffer: document))
  }

  // MARK: - Admin API

  private func createModel(_ request: Request) async throws -> Response {
    let body = try await decodeJSON(RegistryModelCreation.self, from: request)
    let name = try validatedModelName(body.name)
    let description = body.description ?? ""
    guard description.unicodeScalars.count <= Self.maxDescriptionLength else {
      throw GoogleAPIError.invalidArgument("A description has at most \(Self.maxDescriptionLength) characters.")
    }
    let tags = body.tags ?? []
    guard tags.count <= Self.maxTagCount,
          tags.allSatisfy({ (1...Self.maxTagLength).contains($0.unicodeScalars.count) }) else {
      throw GoogleAPIError.invalidArgument("At most \(Self.maxTagCount) tags of 1–\(Self.maxTagLength) characters each.")
    }
    guard Set(tags).count == tags.count else { throw GoogleAPIError.invalidArgument("Tags must be unique.") }
    // SQLite text ends at a NUL; refuse rather than store less than was sent.
    guard !description.unicodeScalars.contains("\u{0}"), !tags.contains(where: { $0.unicodeScalars.contains("\u{0}") }) else {
      throw GoogleAPIError.invalidArgument("Descriptions and tags may not contain NUL characters.")
    }
    let model = try await registry.createModel(named: name, description: description, tags: tags)
    return try json(RegistryModel(model), status: .created, headers: [.location: "/v1/admin/models/\(name)"])
  }

  private func uploadVersion(_ name: String, request: Request) async throws -> Response {
    guard request.headers[.transferEncoding] == nil, let lengthText = request.headers[.contentLength] else {
      throw GoogleAPIError.lengthRequired
    }
    guard let declaredLength = Int64(lengthText), declaredLength >= 0 else {
      throw GoogleAPIError.invalidArgument("Content-Length is not a byte count.")
    }
    guard declaredLength <= registry.configuration.maxUploadBytes else {
      throw GoogleAPIError.uploadTooLarge(declared: declaredLength, limit: registry.configuration.maxUploadBytes)
    }
    guard declaredLength > 0 else { throw GoogleAPIError.invalidArgument("The upload is empty: send the model file as the body.") }
    let version = try await registry.addVersion(toModel: name, body: request.body, declaredLength: declaredLength)
    return try json(RegistryModelVersion(version), status: .created,
                    headers: [.location: "/v1/admin/models/\(name)/versions/\(version.number)"])
  }

  private func changeVersionState(_ name: String, versionAction: String) async throws -> Response {
    guard let colon = versionAction.lastIndex(of: ":") else {
      throw GoogleAPIError.methodNotAllowed(allow: "GET, HEAD, DELETE")
    }
    let version = try versionNumber(String(versionAction[..<colon]))
    let state: ModelRecord.Version.State
    switch versionAction[versionAction.index(after: colon)...] {
    case "publish": state = .published
    case "unpublish": state = .draft
    default: throw GoogleAPIError.methodNotFound("POST versions/\(versionAction)")
    }
    return try json(RegistryModel(try await registry.setState(state, ofVersion: version, inModel: name)))
  }

  private func setRollout(_ name: String, request: Request) async throws -> Response {
    let body = try await decodeJSON(RegistryRollout.self, from: request)
    guard (1...Self.maxSplitCount).contains(body.splits.count) else {
      throw GoogleAPIError.invalidArgument("A roll-out has 1–\(Self.maxSplitCount) splits.")
    }
    let splits = try body.splits.map { split in
      let version = try versionNumber(split.version)
      guard let basisPoints = split.basisPoints else {
        throw GoogleAPIError.invalidArgument("Invalid JSON payload received. A percentage has at most two decimals.")
      }
      guard (1...RolloutBucket.count).contains(basisPoints) else {
        throw GoogleAPIError.invalidArgument("Each split's percent is more than 0 and at most 100.")
      }
      return ModelRecord.Rollout.Split(version: version, basisPoints: basisPoints)
    }
    guard Set(splits.map(\.version)).count == splits.count else {
      throw GoogleAPIError.invalidArgument("A roll-out names each version at most once.")
    }
    let total = splits.reduce(0) { $0 + $1.basisPoints }
    guard total == RolloutBucket.count else {
      throw GoogleAPIError.invalidArgument("The splits add up to \(RolloutSplit.percentText(basisPoints: total)) %, not 100 %.")
    }
    return try json(RegistryModel(try await registry.setRollout(ModelRecord.Rollout(splits: splits), ofModel: name)))
  }

  // MARK: - Helpers

  private func modelName(_ context: some RequestContext) throws -> String {
    try validatedModelName(try context.parameters.require("name"))
  }

  private func validatedModelName(_ name: String) throws -> String {
    guard RegistryIdentifiers.isValidModelName(name) else {
      throw GoogleAPIError.invalidArgument(
        "Model names are 1–\(RegistryIdentifiers.maxModelNameLength) characters of [A-Za-z0-9_-], starting with a letter or digit.")
    }
    return name
  }

  private func versionNumber(_ text: String) throws -> Int {
    guard let number = RegistryIdentifiers.version(from: text) else {
      throw GoogleAPIError.invalidArgument("Versions are positive decimal integers, e.g. \"1\".")
    }
    return number
  }

  /// Where clients reach this server: the configured public URL, else the scheme and host the
  /// reverse proxy reports — RFC 7239 `Forwarded` (`proto=`, `host=`), else `X-Forwarded-Proto` /
  /// `X-Forwarded-Host` — else the request's `Host`. Of a list, the first element counts (the
  /// client-facing proxy's); values that could change the URL's shape are ignored.
  func baseURL(for request: Request) -> String {
    if let publicBaseURL { return publicBaseURL }
    let forwarded = request.headers[Self.forwardedHeader].map(ForwardedHeader.init) ?? ForwardedHeader()
    let proto = (forwarded.proto ?? request.headers[Self.forwardedProtoHeader].map(Self.firstListElement))?.lowercased()
    let scheme = proto.flatMap { ["http", "https"].contains($0) ? $0 : nil } ?? "http"
    let host = (forwarded.host ?? request.headers[Self.forwardedHostHeader].map(Self.firstListElement)).flatMap(Self.plausibleHost)
      ?? request.head.authority.flatMap(Self.plausibleHost) ?? "localhost"
    return "\(scheme)://\(host)"
  }

  /// The first of a comma-separated header list (proxies append theirs).
  private static func firstListElement(_ value: String) -> String {
    String((value.split(separator: ",", maxSplits: 1).first ?? "").trimmingASCIISpaces())
  }

  /// `host`, `host:port` or `[v6]:port`, nothing that could change the URL's shape.
  private static func plausibleHost(_ value: String) -> String? {
    guard (1...255).contains(value.utf8.count), value.utf8.allSatisfy(isHostByte) else { return nil }
    return value
  }

  /// `[A-Za-z0-9._:\[\]-]`.
  private static func isHostByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
         UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
      true
    default:
      false
    }
  }

  static func eTag(_ sha256: String) -> String { "\"\(sha256)\"" }

  /// `If-None-Match` (a list of entity tags or `*`, weak ones compared weakly) names `eTag`.
  static func ifNoneMatch(_ header: String?, matches eTag: String) -> Bool {
    guard let header else { return false }
    return header.split(separator: ",").contains { candidate in
      let tag = candidate.trimmingASCIISpaces()
      return tag == "*" || tag == eTag || tag == "W/\(eTag)"
    }
  }

  private func decodeJSON<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
    let body: ByteBuffer
    do {
      body = try await request.body.collect(upTo: Self.maxJSONBodyBytes)
    } catch is NIOTooManyBytesError {
      throw GoogleAPIError.payloadTooLarge(limit: Self.maxJSONBodyBytes)
    }
    do {
      return try JSONDecoder().decode(T.self, from: Data(buffer: body))
    } catch let error as DecodingError {
      throw GoogleAPIError.invalidArgument("Invalid JSON payload received. \(error.briefDescription)")
    } catch {
      throw GoogleAPIError.invalidArgument("Invalid JSON payload received.")
    }
  }

  private func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
    var headers = headers
    headers[.contentType] = "application/json; charset=UTF-8"
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONEncoder.registry.encode(value))))
  }
}
