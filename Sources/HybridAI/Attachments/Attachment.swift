import Foundation

/// A file the user gives the model with a prompt: an image, a recording, a video, a PDF or a
/// plain-text file.
///
/// Its kind is read from its bytes (magic numbers), never from its name: a mismatch with a
/// declared MIME type, a kind no model takes (HTML, archives, …) and a file cut short are typed
/// ``AttachmentError``s, thrown when the attachment is made. When the prompt is sent, the bytes go
/// into the session's ``ArtifactStore`` once and the transcript keeps a reference only
/// (``Transcript/AttachmentSegment``), so a saved session reopens with its attachments.
///
/// ```swift
/// let photo = try Attachment(contentsOf: URL(fileURLWithPath: "me.jpg"))
/// let answer = try await session.respond(to: Prompt { "What is in this photo?"; photo })
/// ```
public struct Attachment: Sendable, Hashable {
  /// Where the bytes are until the attachment is stored.
  enum Source: Sendable, Hashable {
    case data(Data)
    case file(URL)
    /// Already in the session's store (an earlier attachment, or an artifact a tool made).
    case stored(ArtifactReference)
    /// A file the cloud model fetches itself (a Gemini Files API URI, an `https` or `gs` URL).
    case remote(URL)
  }

  /// The file name (sanitised when stored).
  public let name: String
  /// What the bytes are.
  public let mediaType: MediaType
  /// The size in bytes.
  public let size: Int64
  let source: Source

  /// The MIME type read from the bytes.
  public var mimeType: String { mediaType.mimeType }
  /// The kind of content.
  public var modality: Modality { mediaType.modality }

  /// An attachment holding `data`.
  /// - Parameters:
  ///   - name: A file name for it (`attachment` plus the type's extension when omitted).
  ///   - mimeType: What the caller believes it is; checked against the bytes when given.
  public init(data: Data, name: String? = nil, mimeType: String? = nil) throws(AttachmentError) {
    let proposed = name ?? "attachment"
    guard !data.isEmpty else { throw .empty(name: proposed) }
    let type = try Self.check(head: data.prefix(MediaTypeSniffer.headLength), tail: data.suffix(MediaTypeSniffer.tailLength),
                              size: Int64(data.count), name: proposed, declared: mimeType)
    self.init(name: name ?? "attachment.\(type.fileExtension)", mediaType: type, size: Int64(data.count), source: .data(data))
  }

  /// An attachment holding the local file at `url` (read now for its kind; copied when stored).
  /// A path with `..` components is refused: resolve it first (`url.standardizedFileURL`).
  public init(contentsOf url: URL, mimeType: String? = nil) throws(AttachmentError) {
    guard url.isFileURL else { throw .unsafePath(url.absoluteString) }
    guard !url.pathComponents.contains("..") else { throw .unsafePath(url.path) }
    let name = url.lastPathComponent
    // The file a link points to (a link itself is no regular file, and its size is the target
    // path's length); the attachment keeps the name it was given.
    let file = url.resolvingSymlinksInPath()
    let size: Int64
    let head: Data
    let tail: Data
    do {
      let values = try file.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
      guard values.isRegularFile == true else { throw AttachmentError.unreadable(path: url.path, reason: "not a regular file") }
      size = Int64(values.fileSize ?? 0)
      guard size > 0 else { throw AttachmentError.empty(name: name) }
      let handle = try FileHandle(forReadingFrom: file)
      defer { try? handle.close() }
      head = try handle.read(upToCount: MediaTypeSniffer.headLength) ?? Data()
      try handle.seek(toOffset: UInt64(max(0, size - Int64(MediaTypeSniffer.tailLength))))
      tail = try handle.readToEnd() ?? Data()
    } catch let error as AttachmentError {
      throw error
    } catch {
      throw .unreadable(path: url.path, reason: error.localizedDescription)
    }
    let type = try Self.check(head: head, tail: tail, size: size, name: name, declared: mimeType)
    self.init(name: name, mediaType: type, size: size, source: .file(url))
  }

  /// An artifact already in the session's store (one a tool made, or an earlier attachment),
  /// attached again without copying its bytes.
  public init(artifact: ArtifactReference) throws(AttachmentError) {
    guard let type = MediaType.named(artifact.mimeType) else {
      throw .unsupportedContent(name: artifact.name, detected: artifact.mimeType)
    }
    self.init(name: artifact.name, mediaType: type, size: artifact.size, source: .stored(artifact))
  }

  /// A file the cloud model reads from `uri` itself — a Gemini Files API URI, a Cloud Storage
  /// `gs://` URL or an `https` URL — sent as Gemini's `fileData` (and as a URL to OpenAI-compatible
  /// servers for images). Its bytes are never fetched here, so its kind is the declared
  /// `mimeType`, which must be one an attachment may have (``MediaType/all``).
  /// - Throws: ``AttachmentError/unsafePath(_:)`` for another scheme (a local file is
  ///   ``init(contentsOf:mimeType:)``), ``AttachmentError/unsupportedContent(name:detected:)``
  ///   for an unknown MIME type.
  public init(fileURI uri: URL, mimeType: String) throws(AttachmentError) {
    guard let scheme = uri.scheme?.lowercased(), Self.remoteSchemes.contains(scheme), uri.host != nil else {
      throw .unsafePath(uri.absoluteString)
    }
    let name = uri.lastPathComponent.isEmpty || uri.lastPathComponent == "/" ? (uri.host ?? "file") : uri.lastPathComponent
    guard let type = MediaType.named(mimeType) else { throw .unsupportedContent(name: name, detected: mimeType) }
    self.init(name: name, mediaType: type, size: 0, source: .remote(uri))
  }

  /// The schemes ``init(fileURI:mimeType:)`` takes.
  static let remoteSchemes: Set<String> = ["https", "http", "gs"]

  /// The URI the cloud model fetches, for an attachment made with ``init(fileURI:mimeType:)``.
  public var fileURI: URL? {
    if case .remote(let uri) = source { uri } else { nil }
  }

  private init(name: String, mediaType: MediaType, size: Int64, source: Source) {
    self.name = name
    self.mediaType = mediaType
    self.size = size
    self.source = source
  }

  /// The media type of these bytes, checked against `declared` and for completeness.
  private static func check(head: Data, tail: Data, size: Int64, name: String, declared: String?) throws(AttachmentError) -> MediaType {
    guard let detected = MediaTypeSniffer.detect(head: head) else {
      throw .unsupportedContent(name: name, detected: MediaTypeSniffer.describeUnsupported(head: head))
    }
    if let declared, MediaType.named(declared) != detected {
      throw .mismatch(name: name, declared: declared, detected: detected.mimeType)
    }
    guard MediaTypeSniffer.isComplete(detected, head: head, tail: tail, totalSize: size) else {
      throw .truncated(name: name, mimeType: detected.mimeType)
    }
    return detected
  }

  /// Puts the bytes into `store` (once: identical bytes share their space) and returns the
  /// reference the transcript keeps. Nothing is left behind when it throws. A remote file is not
  /// stored: its reference names the URI (``Transcript/AttachmentSegment/remote(_:name:mimeType:)``).
  /// Sessions call it when a prompt is sent; a server that takes files ahead of the message
  /// (the web chat's uploads) calls it itself.
  public func store(in store: any ArtifactStore) throws(AttachmentError) -> ArtifactReference {
    let artifact: Artifact
    switch source {
    case .stored(let reference):
      guard let known = store.reference(id: reference.id) else { throw .unknownArtifact(id: reference.id) }
      return known
    case .remote(let uri):
      return Transcript.AttachmentSegment.remote(uri, name: name, mimeType: mimeType).reference
    case .data(let data): artifact = Artifact(data: data, mimeType: mimeType, name: name)
    case .file(let url): artifact = Artifact(fileAt: url, mimeType: mimeType, name: name)
    }
    do {
      return try store.store(artifact)
    } catch .artifactTooLarge(let size, let limit) {
      throw .tooLarge(name: name, size: size, limit: limit)
    } catch {
      throw .storeFailed(name: name, error)
    }
  }
}
