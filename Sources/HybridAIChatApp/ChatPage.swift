import Foundation
import HTTPTypes
import Hummingbird
import HybridAIServing
import NIOCore

/// The page at `/` and its script, style sheet and icon, read once from the module's resources
/// (`Page/`): served by `hybrid serve` itself, with a Content-Security-Policy that allows no
/// inline script and nothing from other sites.
struct ChatPage: Sendable {
  /// A file of the page: its bytes and type.
  struct Asset: Sendable {
    var bytes: ByteBuffer
    var contentType: String
  }

  /// `index.html`, `app.js`, `app.css`, `icon.svg` by name; empty when the resources are not installed.
  let assets: [String: Asset]

  static let contentTypes = ["index.html": "text/html; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
                             "app.css": "text/css; charset=utf-8", "icon.svg": "image/svg+xml"]

  /// The page's policy: its own scripts, styles and files only; `blob:` for thumbnails of files
  /// being attached; no plugins, frames or foreign form targets.
  static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob:; "
    + "media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

  init() {
    let sourceDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    assets = Self.contentTypes.reduce(into: [:]) { assets, entry in
      guard let data = InstalledResource.contents(bundle: "HybridAI_HybridAIChatApp.resources", path: "Page/\(entry.key)",
                                                  sourceDirectory: sourceDirectory) else { return }
      assets[entry.key] = Asset(bytes: ByteBuffer(data: data), contentType: entry.value)
    }
  }

  /// The response for asset `name`, or a 404 naming what is missing.
  func response(_ name: String) -> Response {
    guard let asset = assets[name] else {
      return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                      body: ResponseBody(byteBuffer: ByteBuffer(string: "The chat page (\(name)) is not installed with this server.")))
    }
    var headers: HTTPFields = [.contentType: asset.contentType, .xContentTypeOptions: "nosniff", .cacheControl: "no-cache"]
    headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
    headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: asset.bytes))
  }
}
