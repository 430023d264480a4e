import AsyncHTTPClient
import Foundation
import HybridAIWire
import Logging
import NIOCore
import NIOHTTP1

/// A client for the model registry's admin API (`/v1/admin/…`, `Authorization: Bearer <token>`):
/// create models, upload versions, publish them and set A/B roll-outs.
///
/// ```swift
/// let admin = ModelRegistryAdmin(server: URL(string: "http://127.0.0.1:8080")!, token: adminToken)
/// _ = try await admin.createModel(name: "selfie", description: "segmentation", tags: ["vision"])
/// let version = try await admin.uploadVersion(name: "selfie", fileAt: URL(fileURLWithPath: "selfie.tflite"))
/// _ = try await admin.publish(name: "selfie", version: version.version)
/// ```
///
/// Uploads stream the file from disk with a `Content-Length`; it is never read whole into memory.
/// Errors are ``ModelRegistryAdminError``s.
public struct ModelRegistryAdmin: Sendable {
  /// The registry's base URL.
  public let server: URL
  private let token: String
  private let httpClient: HTTPClient
  private let logger: Logger

  /// The most bytes read from an answer.
  static let maxBodyBytes = 16 << 20

  /// A client for the registry at `server`, authenticating with the admin `token`.
  public init(server: URL, token: String, httpClient: HTTPClient = DeliveryHTTPClient.shared,
              logger: Logger = Logger(label: "HybridAI.modelDelivery.admin")) {
    self.server = server
    self.token = token
    self.httpClient = httpClient
    self.logger = logger
  }

  // MARK: - Models

  /// Creates a model (no versions yet). `409` → ``ModelRegistryAdminError/alreadyExists(_:)``.
  public func createModel(name: String, description: String? = nil, tags: [String] = []) async throws -> RegistryModel {
    try validate(name)
    return try await send(.POST, "models", json: RegistryModelCreation(name: name, description: description, tags: tags),
                          expecting: [201, 200])
  }

  /// Every model.
  public func listModels() async throws -> [RegistryModel] {
    let list: RegistryModelList = try await send(.GET, "models", expecting: [200])
    return list.models
  }

  /// The model `name`.
  public func model(named name: String) async throws -> RegistryModel {
    try validate(name)
    return try await send(.GET, "models/\(name)", expecting: [200])
  }

  /// The model `name`, or `nil` when the registry has none of that name.
  public func modelIfExists(named name: String) async throws -> RegistryModel? {
    do {
      return try await model(named: name)
    } catch ModelRegistryAdminError.notFound {
      return nil
    }
  }

  /// Deletes the model `name` with all its versions.
  public func deleteModel(name: String) async throws {
    try validate(name)
    try await sendWithoutAnswer(.DELETE, "models/\(name)")
  }

  // MARK: - Versions

  /// Uploads the file at `fileAt` as a new (draft) version of `name`, streamed from disk.
  public func uploadVersion(name: String, fileAt file: URL) async throws -> RegistryModelVersion {
    try validate(name)
    let stream: FileBodyStream
    do {
      stream = try FileBodyStream.open(file.path)
    } catch {
      throw ModelRegistryAdminError.fileUnreadable(path: error.path, errno: error.code)
    }
    logger.info("uploading a model version", metadata: ["model": "\(name)", "file": "\(file.path)", "bytes": "\(stream.length)"])
    return try await send(.POST, "models/\(name)/versions", body: .stream(stream, length: .known(stream.length)),
                          contentType: "application/octet-stream", expecting: [201, 200])
  }

  /// Version `version` of `name`: its size, SHA-256, sniffed format and state.
  /// `404` → ``ModelRegistryAdminError/notFound(_:)``.
  public func version(_ version: String, ofModel name: String) async throws -> RegistryModelVersion {
    try validate(name, version: version)
    return try await send(.GET, "models/\(name)/versions/\(version)", expecting: [200])
  }

  /// Publishes version `version` of `name`: clients may get it.
  public func publish(name: String, version: String) async throws -> RegistryModel {
    try validate(name, version: version)
    return try await send(.POST, "models/\(name)/versions/\(version):publish", expecting: [200])
  }

  /// Unpublishes version `version` of `name` (a roll-out naming it is removed).
  public func unpublish(name: String, version: String) async throws -> RegistryModel {
    try validate(name, version: version)
    return try await send(.POST, "models/\(name)/versions/\(version):unpublish", expecting: [200])
  }

  /// Deletes version `version` of `name`.
  public func deleteVersion(name: String, version: String) async throws {
    try validate(name, version: version)
    try await sendWithoutAnswer(.DELETE, "models/\(name)/versions/\(version)")
  }

  // MARK: - Roll-outs

  /// Sets an A/B roll-out: `splits` name published versions and sum to 100 %.
  public func setRollout(name: String, splits: [RolloutSplit]) async throws -> RegistryModel {
    try validate(name)
    return try await send(.PUT, "models/\(name)/rollout", json: RegistryRollout(splits: splits), expecting: [200])
  }

  /// Removes the roll-out: clients get the newest published version.
  public func clearRollout(name: String) async throws -> RegistryModel {
    try validate(name)
    return try await send(.DELETE, "models/\(name)/rollout", expecting: [200])
  }

  // MARK: - Transport

  private func validate(_ name: String, version: String? = nil) throws {
    guard ModelName.isValid(name) else { throw ModelRegistryAdminError.invalidModelName(name) }
    if let version, RegistryIdentifiers.version(from: version) == nil {
      throw ModelRegistryAdminError.invalidArgument("version \(String(reflecting: version)) is not a decimal integer")
    }
  }

  private func url(_ path: String) -> String {
    var base = server.absoluteString
    while base.hasSuffix("/") { base.removeLast() }
    return "\(base)/v1/admin/\(path)"
  }

  private func send<Answer: Decodable>(_ method: HTTPMethod, _ path: String, json: some Encodable,
                                       expecting statuses: Set<Int>) async throws -> Answer {
    let data: Data
    do { data = try JSONEncoder().encode(json) } catch { throw ModelRegistryAdminError.invalidArgument("\(error)") }
    return try await send(method, path, body: .bytes(ByteBuffer(bytes: data)), contentType: "application/json",
                          expecting: statuses)
  }

  private func send<Answer: Decodable>(_ method: HTTPMethod, _ path: String, body: HTTPClientRequest.Body? = nil,
                                       contentType: String? = nil, expecting statuses: Set<Int>) async throws -> Answer {
    let (status, data) = try await exchange(method, path, body: body, contentType: contentType)
    guard statuses.contains(status) else { throw ModelRegistryAdminError.http(status: status, body: data) }
    do {
      return try JSONDecoder().decode(Answer.self, from: data)
    } catch {
      throw ModelRegistryAdminError.invalidResponse("\(method) \(path): \(error)")
    }
  }

  private func sendWithoutAnswer(_ method: HTTPMethod, _ path: String) async throws {
    let (status, data) = try await exchange(method, path, body: nil, contentType: nil)
    guard (200..<300).contains(status) else { throw ModelRegistryAdminError.http(status: status, body: data) }
  }

  private func exchange(_ method: HTTPMethod, _ path: String, body: HTTPClientRequest.Body?,
                        contentType: String?) async throws -> (Int, Data) {
    var request = HTTPClientRequest(url: url(path))
    request.method = method
    request.headers.add(name: "Authorization", value: "Bearer \(token)")
    request.headers.add(name: "Accept", value: "application/json")
    request.headers.add(name: "User-Agent", value: ModelDownloader.userAgent)
    if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
    request.body = body
    logger.debug("registry admin request", metadata: ["method": "\(method)", "path": "/v1/admin/\(path)"])
    do {
      let response = try await httpClient.execute(request, deadline: .distantFuture, logger: logger)
      let data = Data(try await response.body.collect(upTo: Self.maxBodyBytes).readableBytesView)
      let status = Int(response.status.code)
      if !(200..<300).contains(status) {
        logger.debug("registry admin request failed", metadata: [
          "method": "\(method)", "path": "/v1/admin/\(path)", "status": "\(status)",
          "message": "\(GoogleErrorEnvelope.message(from: data))",
        ])
      }
      return (status, data)
    } catch let failure as POSIXFile.Failure {
      throw ModelRegistryAdminError.fileUnreadable(path: failure.path, errno: failure.code)
    } catch {
      if TransportErrors.isCancellation(error) || Task.isCancelled { throw CancellationError() }
      if error is NIOTooManyBytesError { throw ModelRegistryAdminError.invalidResponse("the answer is too large") }
      switch TransportErrors.beforeResponse(error, host: server.host ?? "") {
      case .offline(let reason, let detail): throw ModelRegistryAdminError.offline(reason, detail: detail)
      case let other: throw ModelRegistryAdminError.transportFailure(other.description)
      }
    }
  }
}
