import Hummingbird
import NIOCore

extension Request {
  /// The request's body, at most `limit` bytes: a `Content-Length` above it is refused at once,
  /// before a byte of the body is read, and a body that grows past it as it arrives when it does
  /// (`413`, in either API's envelope through the error middleware).
  public mutating func collectBody(limitedTo limit: Int) async throws -> ByteBuffer {
    if let declared = headers[.contentLength].flatMap({ Int($0) }), declared > limit {
      throw NIOTooManyBytesError(maxBytes: limit)
    }
    return try await collectBody(upTo: limit)
  }
}
