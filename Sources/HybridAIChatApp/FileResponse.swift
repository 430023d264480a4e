import Foundation
import HTTPTypes
import Hummingbird
import HybridAI
import NIOCore

/// A session's file as an HTTP response: its true type, `nosniff`, shown inline only when a browser
/// can preview it safely (images but SVG, audio, video, plain text, PDF), downloaded otherwise
/// (HTML, SVG and everything else), with a sandboxing Content-Security-Policy.
enum FileResponse {
  /// The types a page may show inline.
  static let previewable: Set<String> = [
    "image/png", "image/jpeg", "image/webp", "image/gif", "audio/wav", "audio/mpeg", "audio/flac", "audio/ogg",
    "video/mp4", "text/plain", "application/pdf",
  ]

  static func response(for reference: ArtifactReference, data: Data) -> Response {
    var headers = HTTPFields()
    let inline = previewable.contains(reference.mimeType)
    headers[.contentType] = reference.mimeType == "text/plain" ? "text/plain; charset=utf-8" : reference.mimeType
    headers[.xContentTypeOptions] = "nosniff"
    headers[.contentDisposition] = (inline ? "inline" : "attachment") + "; filename=\"\(asciiName(reference.name))\"; "
      + "filename*=UTF-8''\(encoded(reference.name))"
    headers[.contentSecurityPolicy] = "default-src 'none'; img-src 'self'; media-src 'self'; sandbox"
    headers[.cacheControl] = "private, max-age=3600"
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }

  /// The name with anything but printable ASCII (and quotes, backslashes) as `_`.
  static func asciiName(_ name: String) -> String {
    String(name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" && $0.value != 0x7F ? Character($0) : "_" })
  }

  private static func encoded(_ name: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "file"
  }
}
