import Foundation
import HTTPTypes
import Hummingbird
import HybridAIServing

/// The web chat's API key as a cookie, for the requests a page cannot add a header to: the
/// `<img>`, `<audio>` and `<video>` sources and download links of a conversation's files. The page
/// asks for it (`POST /v1/chat/key-cookie`, with the key in its header); the cookie is `HttpOnly`
/// (no script reads it), `SameSite=Strict` (no other site's page sends it) and sent only under
/// `/v1/chat/sessions/`; ``Middleware`` accepts it only for `GET` and `HEAD` of a file. So the key
/// never goes into a URL, where proxy logs, the browser's history and its download list would keep it.
enum ChatKeyCookie {
  static let name = "hybridai_chat_key"
  /// How long a browser keeps it: a working day.
  static let lifetime = 12 * 3600

  /// The `Set-Cookie` value carrying `key`; `Secure` when the page was reached over HTTPS (a proxy's
  /// `X-Forwarded-Proto`).
  static func setCookie(for key: String, request: Request) -> String {
    let value = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    let secure = request.headers[HTTPField.Name("x-forwarded-proto")!]?.lowercased() == "https" || request.head.scheme == "https"
    return "\(name)=\(value); Path=\(ChatRoutes.apiRoot)/sessions/; Max-Age=\(lifetime); HttpOnly; SameSite=Strict"
      + (secure ? "; Secure" : "")
  }

  /// The key in a request's `Cookie` header, if it has this cookie.
  static func key(in request: Request) -> String? {
    for header in request.headers[values: .cookie] {
      for pair in header.split(separator: ";") {
        let parts = pair.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
        return String(parts[1]).trimmingCharacters(in: .whitespaces).removingPercentEncoding
      }
    }
    return nil
  }

  /// Whether `request` fetches a conversation's file (`GET`/`HEAD …/sessions/{id}/files/{fileID}`).
  static func isFileRequest(_ request: Request) -> Bool {
    guard request.method == .get || request.method == .head else { return false }
    let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
    let root = ChatRoutes.apiRoot.split(separator: "/", omittingEmptySubsequences: false)   // "", "v1", "chat"
    return parts.count == root.count + 4 && Array(parts.prefix(root.count)) == root
      && parts[root.count] == "sessions" && parts[root.count + 2] == "files"
  }

  /// Puts the cookie's key in the `x-goog-api-key` header of a file request that carries no key of
  /// its own, before the API key check sees it.
  struct Middleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
      guard ChatKeyCookie.isFileRequest(request), request.headers[APIKeyMiddleware<Context>.headerName] == nil,
            request.headers[.authorization] == nil, request.uri.queryParameters.get("key") == nil,
            let key = ChatKeyCookie.key(in: request) else { return try await next(request, context) }
      var head = request.head
      head.headerFields[APIKeyMiddleware<Context>.headerName] = key
      return try await next(Request(head: head, body: request.body), context)
    }
  }
}
