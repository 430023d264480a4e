// Attachment bytes → `Attachment(data:name:mimeType:)`, which tells a file's media type from its
// bytes (PNG, JPEG, GIF, WebP, HEIC, WAV, MP3, FLAC, Ogg, MP4, PDF, plain text), refuses markup
// and cut-short files, and checks a declared MIME type against what it finds; and
// `MediaType.named(_:)`, which reads declared MIME types.
//
// Properties: bytes accepted as type T are accepted again when declared as T, and refused as a
// mismatch when declared as any other known type.
import Foundation
import FuzzDriver
import HybridAI

@_cdecl("FuzzAttachmentSniffing_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let data = Data(UnsafeRawBufferPointer(start: start, count: count))
  // The first line, read as a declared MIME type (a Content-Type header, a form field).
  let declared = String(decoding: data.prefix(64).prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
  _ = MediaType.named(declared)
  _ = try? Attachment(data: data, name: "upload", mimeType: declared)

  guard let attachment = try? Attachment(data: data) else { return 0 }
  let type = attachment.mediaType
  precondition(attachment.size == Int64(data.count), "the attachment's size is \(attachment.size), not \(data.count)")
  precondition(MediaType.named(type.mimeType) == type, "\(type.mimeType) does not name \(type)")
  do {
    let again = try Attachment(data: data, mimeType: type.mimeType)
    precondition(again.mediaType == type, "declared as \(type.mimeType), the bytes became \(again.mediaType)")
  } catch {
    fatalError("bytes detected as \(type.mimeType) are refused when declared so: \(error)")
  }
  if let other = MediaType.all.first(where: { $0 != type }) {
    do {
      _ = try Attachment(data: data, mimeType: other.mimeType)
      fatalError("bytes detected as \(type.mimeType) were accepted as \(other.mimeType)")
    } catch {
      guard case .mismatch = error else { fatalError("declared as \(other.mimeType): \(error), not a mismatch") }
    }
  }
  _ = attachment.name
  _ = attachment.modality
  return 0
}
