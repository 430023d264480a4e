import Foundation
import HTTPTypes
import Hummingbird
import HybridAI
import HybridAIPersistence
import HybridAIServing
import NIOCore

/// The web chat of `hybrid serve`: the page at `/` (with `/chat/app.js`, `/chat/app.css`, `/chat/icon.svg`) and
/// its sessions API under `/v1/chat` (documented in the server's OpenAPI file).
///
/// - `GET /v1/chat/config`: the inference modes this server can answer in, the default one, what
///   each model reads, and the tool groups a message can switch on and off.
/// - `GET|POST /v1/chat/sessions`: list, create (`{"title"}`).
/// - `GET|PATCH|DELETE /v1/chat/sessions/{id}`: entries and files; rename (`{"title"}`); delete.
/// - `POST /v1/chat/sessions/{id}/files?name=NAME`: upload an attachment (the raw bytes).
/// - `GET /v1/chat/sessions/{id}/files/{fileID}`: a file's bytes, with its true type.
/// - `POST /v1/chat/sessions/{id}/messages` (`{"text", "files", "mode", "toolGroups"}`): the answer as
///   server-sent ``ChatEvent``s.
/// - `POST /v1/chat/sessions/{id}:stop`: stops the running answer.
/// - `POST /v1/chat/key-cookie`: the request's key as an `HttpOnly` cookie for the conversation's
///   file URLs (``ChatKeyCookie``), so media elements need no key in their URL.
///
/// The routes sit behind the server's API keys and refuse cross-site browser requests that
/// change state (``SameOriginMiddleware``); unknown or invalid session and file ids are `404`.
public struct ChatApp: ServerComponent {
  /// The conversations.
  public let sessions: ChatSessions
  /// The largest attachment accepted, in bytes.
  public let maxUploadBytes: Int

  public init(sessions: ChatSessions, maxUploadBytes: Int = 20 << 20) {
    self.sessions = sessions
    self.maxUploadBytes = maxUploadBytes
  }

  public func addRoutes(to router: Router<BasicRequestContext>, server: ServerConfiguration) {
    // The page itself needs no key: it asks for one when the API does.
    let page = ChatPage()
    router.get("/") { _, _ in page.response("index.html") }
    router.get("/chat/app.js") { _, _ in page.response("app.js") }
    router.get("/chat/app.css") { _, _ in page.response("app.css") }
    router.get("/chat/icon.svg") { _, _ in page.response("icon.svg") }

    let api = router.group(RouterPath(ChatRoutes.apiRoot))
      .add(middleware: ChatKeyCookie.Middleware())
      .add(middleware: server.authentication(requiring: .generate))
      .add(middleware: SameOriginMiddleware())
      .add(middleware: ChatErrorMiddleware())
    let sessions = self.sessions
    let maxRequestBytes = server.maxRequestBytes
    let maxUploadBytes = self.maxUploadBytes

    api.get("config") { _, _ in
      try Self.json(ChatConfig(modes: sessions.models.availableModes.map(\.rawValue),
                               defaultMode: sessions.models.defaultMode?.rawValue, maxUploadBytes: maxUploadBytes,
                               onDeviceReads: sessions.models.onDevice.map(ChatConfig.reads), cloudReads: sessions.models.cloud.map(ChatConfig.reads),
                               toolGroups: sessions.toolGroups.map { ChatConfig.ToolGroup(name: $0.name, tools: $0.tools.map(\.name)) }))
    }
    // The key as a cookie for the page's media and download links (ChatKeyCookie); 204 either way.
    api.post("key-cookie") { request, _ in
      var response = Response(status: .noContent)
      if let key = request.headers[APIKeyMiddleware<BasicRequestContext>.headerName] ?? APIKeyMiddleware<BasicRequestContext>.bearerToken(request) {
        response.headers[.setCookie] = ChatKeyCookie.setCookie(for: key, request: request)
      }
      return response
    }
    api.get("sessions") { _, _ in try Self.json(SessionList(sessions: try await sessions.list())) }
    api.post("sessions") { request, _ in
      let body = try await Self.decode(TitleBody.self, from: request, limit: maxRequestBytes, allowEmpty: true)
      return try Self.json(try await sessions.create(title: body?.title), status: .created)
    }
    api.get("sessions/{id}") { _, context in
      try Self.json(try await sessions.detail(id: try context.parameters.require("id")))
    }
    api.patch("sessions/{id}") { request, context in
      guard let body = try await Self.decode(TitleBody.self, from: request, limit: maxRequestBytes), let title = body.title else {
        throw ChatAppError.invalidRequest("send {\"title\": \"…\"}")
      }
      return try Self.json(try await sessions.rename(id: try context.parameters.require("id"), title: title))
    }
    api.delete("sessions/{id}") { _, context in
      try await sessions.delete(id: try context.parameters.require("id"))
      return Response(status: .noContent)
    }
    // `{id}:stop`: Hummingbird matches the whole segment, so the action is split off here.
    api.post("sessions/{id}") { _, context in
      let action = try context.parameters.require("id")
      guard action.hasSuffix(":stop") else { throw ChatAppError.invalidRequest("unknown action \(action)") }
      let stopped = try await sessions.stop(sessionID: String(action.dropLast(":stop".count)))
      return try Self.json(["stopped": stopped])
    }
    api.post("sessions/{id}/files") { request, context in
      let id = try context.parameters.require("id")
      var request = request
      let body: ByteBuffer
      do {
        body = try await request.collectBody(limitedTo: maxUploadBytes)
      } catch is NIOTooManyBytesError {
        throw GoogleAPIError(status: .contentTooLarge, statusName: "INVALID_ARGUMENT",
                             message: "The file is larger than this server takes (\(maxUploadBytes) bytes).", reason: nil)
      }
      let name = request.uri.queryParameters.get("name") ?? "attachment"
      return try Self.json(try await sessions.upload(sessionID: id, data: Data(buffer: body), name: name), status: .created)
    }
    api.get("sessions/{id}/files/{fileID}") { _, context in
      let reference = try await sessions.file(sessionID: try context.parameters.require("id"),
                                              fileID: try context.parameters.require("fileID"))
      guard let url = reference.fileURL, let data = try? Data(contentsOf: url) else {
        throw ChatAppError.fileNotFound(reference.id)
      }
      return FileResponse.response(for: reference, data: data)
    }
    api.post("sessions/{id}/messages") { request, context in
      guard let message = try await Self.decode(MessageBody.self, from: request, limit: maxRequestBytes) else {
        throw ChatAppError.emptyMessage
      }
      let mode = try message.mode.map { name in
        guard let mode = InferenceMode(rawValue: name) else {
          throw ChatAppError.invalidRequest("mode must be one of \(InferenceMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return mode
      }
      let id = try context.parameters.require("id")
      let events = try await sessions.send(sessionID: id, text: message.text ?? "", fileIDs: message.files ?? [], mode: mode,
                                           toolGroups: message.toolGroups)
      let body = ResponseBody { writer in
        do {
          for await event in events {
            try await writer.write(ByteBuffer(string: event.serverSentEvent))
          }
        } catch {
          // The client went away (a closed tab, a network cut): nobody reads the answer, so stop it.
          _ = try? await sessions.stop(sessionID: id)
          throw error
        }
        try await writer.finish(nil)
      }
      return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }
  }

  // MARK: - Bodies

  struct TitleBody: Decodable { var title: String? }
  struct MessageBody: Decodable {
    var text: String?
    var files: [String]?
    var mode: String?
    /// The tool groups this message offers; all when absent.
    var toolGroups: [String]?
  }
  struct SessionList: Encodable { var sessions: [SessionRecord] }
  struct ChatConfig: Encodable {
    var modes: [String]
    var defaultMode: String?
    var maxUploadBytes: Int
    /// What each model reads besides text (`image`, `audio`, …), so the page can say where a file goes.
    var onDeviceReads: [String]?
    var cloudReads: [String]?
    /// The tool groups the page shows a switch for, each with its tools' names.
    var toolGroups: [ToolGroup]

    struct ToolGroup: Encodable {
      var name: String
      var tools: [String]
    }

    static func reads(_ model: any LanguageModel) -> [String] {
      model.capabilities.inputModalities.subtracting([.text]).map(\.rawValue).sorted()
    }
  }

  static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
             body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONEncoder.chat.encode(value))))
  }

  /// The JSON body, or `nil` when there is none and `allowEmpty`.
  static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int, allowEmpty: Bool = false) async throws -> T? {
    var request = request
    let body = try await request.collectBody(limitedTo: limit)
    if body.readableBytes == 0 {
      if allowEmpty { return nil }
      throw ChatAppError.invalidRequest("the body is empty")
    }
    do {
      return try JSONDecoder().decode(T.self, from: Data(buffer: body))
    } catch {
      throw ChatAppError.invalidRequest("the body is not the JSON this endpoint takes")
    }
  }
}

/// Maps the chat's errors (and the attachment and storage errors it passes on) to HTTP errors.
struct ChatErrorMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
    do {
      return try await next(request, context)
    } catch let error as ChatAppError {
      throw error.apiError
    } catch let error as AttachmentError {
      if case .tooLarge = error {
        throw GoogleAPIError(status: .contentTooLarge, statusName: "INVALID_ARGUMENT", message: error.description, reason: nil)
      }
      throw GoogleAPIError.invalidArgument(error.description)
    } catch let error as SessionStoreError {
      throw GoogleAPIError.internal("The chat's storage failed: \(error)")
    }
  }
}
