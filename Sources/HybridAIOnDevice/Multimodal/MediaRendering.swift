import HybridAI

/// Which attachments of a transcript a model with a projector reads itself, and the marker that
/// stands for each in the rendered prompt (libmtmd replaces it with the medium's embeddings).
struct MediaRendering: Sendable {
  /// libmtmd's media marker.
  let marker: String
  /// What the projector reads besides text.
  let modalities: Set<Modality>

  /// The file types libmtmd decodes without external tools: stb_image's images and miniaudio's sounds.
  static let readableMIMETypes: Set<String> = ["image/png", "image/jpeg", "image/gif", "audio/wav", "audio/mpeg", "audio/flac"]

  init(projector: MultimodalProjector) {
    marker = projector.marker
    modalities = projector.modalities
  }

  init(marker: String, modalities: Set<Modality>) {
    self.marker = marker
    self.modalities = modalities
  }

  /// Whether the model reads `attachment` itself (its bytes are here and of a type it decodes).
  func reads(_ attachment: Transcript.AttachmentSegment) -> Bool {
    !attachment.isRemote && modalities.contains(attachment.modality)
      && Self.readableMIMETypes.contains(MediaType.named(attachment.mimeType)?.mimeType ?? attachment.mimeType)
  }

  /// A prompt's content in segment order: text as it is, a ``marker`` for each attachment the
  /// model reads, and for any other attachment the line a text-only model gets.
  func content(of segments: [Transcript.Segment], in request: GenerationRequest) -> String {
    var content = ""
    for segment in segments {
      switch segment {
      case .text(let text):
        content += text.content
      case .attachment(let attachment) where reads(attachment):
        content += marker
      case .attachment(let attachment):
        if !content.isEmpty { content += "\n" }
        content += request.readableText(of: [.attachment(attachment)])
      }
    }
    return content
  }

  /// The attachments the model reads, in the order of their markers in the rendered prompt.
  func attachments(in transcript: Transcript) -> [Transcript.AttachmentSegment] {
    transcript.flatMap { entry -> [Transcript.AttachmentSegment] in
      guard case .prompt(let prompt) = entry else { return [] }
      return prompt.segments.attachments.filter(reads)
    }
  }
}
