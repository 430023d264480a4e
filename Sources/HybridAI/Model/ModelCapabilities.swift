import Foundation

/// What a ``LanguageModel`` can take and give. Routing uses it: a request whose newest prompt
/// holds an attachment of a kind the model does not take is not supported by that model
/// (``UnsupportedReason/unsupportedInput(_:)`` naming the MIME type), so a hybrid sends it to
/// the other model and says why.
public struct ModelCapabilities: Sendable, Hashable, Codable {
  /// Kinds of content the model reads.
  public var inputModalities: Set<Modality>
  /// Kinds of content the model can answer with.
  public var outputModalities: Set<Modality>
  /// Whether it can call tools.
  public var supportsTools: Bool
  /// Whether it can answer with JSON following a schema.
  public var supportsGuidedGeneration: Bool

  public init(inputModalities: Set<Modality>, outputModalities: Set<Modality> = [.text], supportsTools: Bool = true,
              supportsGuidedGeneration: Bool = true) {
    self.inputModalities = inputModalities.union([.text])
    self.outputModalities = outputModalities.union([.text])
    self.supportsTools = supportsTools
    self.supportsGuidedGeneration = supportsGuidedGeneration
  }

  /// Text in, text out, with tools and guided generation: the default of every model.
  public static let text = ModelCapabilities(inputModalities: [.text])

  /// Both models' capabilities together (what a hybrid can serve one way or the other).
  public func union(_ other: ModelCapabilities) -> ModelCapabilities {
    ModelCapabilities(inputModalities: inputModalities.union(other.inputModalities),
                      outputModalities: outputModalities.union(other.outputModalities),
                      supportsTools: supportsTools || other.supportsTools,
                      supportsGuidedGeneration: supportsGuidedGeneration || other.supportsGuidedGeneration)
  }
}

extension GenerationRequest {
  /// The attachments of the newest prompt: what the answering model must be able to read. Older
  /// attachments a model cannot take reach it as references (their description, not their bytes).
  public var newAttachments: [Transcript.AttachmentSegment] {
    for entry in transcript.reversed() {
      if case .prompt(let prompt) = entry { return prompt.segments.attachments }
    }
    return []
  }

  /// Why a model with `capabilities` cannot serve this request, or `nil` when it can: the first
  /// of the newest prompt's attachments it cannot take (``UnsupportedReason/unsupportedInput(_:)``
  /// naming the MIME type; unless the options let it read references instead,
  /// ``UnreadableAttachmentPolicy/reference``), or the first of the requested
  /// ``GenerationOptions/responseModalities`` it cannot give (``UnsupportedReason/unsupportedOutput(_:)``).
  public func unsupportedModality(for capabilities: ModelCapabilities) -> UnsupportedReason? {
    if options.unreadableAttachments != .reference,
       let attachment = newAttachments.first(where: { !capabilities.inputModalities.contains($0.modality) }) {
      return .unsupportedInput(attachment.mimeType)
    }
    let requested = options.responseModalities ?? []
    if let missing = Modality.allCases.first(where: { requested.contains($0) && !capabilities.outputModalities.contains($0) }) {
      return .unsupportedOutput(missing)
    }
    return nil
  }

  /// The bytes of one of the transcript's attachments, from ``artifactStore``.
  /// A remote file (``Transcript/AttachmentSegment/remoteURL``) has none here: that is
  /// ``AttachmentError/remoteFile(_:)``.
  public func contents(of attachment: Transcript.AttachmentSegment) throws(AttachmentError) -> Data {
    if let uri = attachment.remoteURL { throw .remoteFile(uri.absoluteString) }
    guard let store = artifactStore else { throw .unknownArtifact(id: attachment.reference.id) }
    do { return try store.contents(of: attachment.reference.id) } catch .unknownArtifact(let id) {
      throw .unknownArtifact(id: id)
    } catch {
      throw .unreadable(path: attachment.reference.name, reason: error.description)
    }
  }
}

extension GenerationRequest {
  /// The largest plain-text attachment inlined by ``readableText(of:)`` (bigger ones are referenced).
  public static let inlinedTextAttachmentLimit = 64 * 1024

  /// What a model that reads only text gets for `segments`: the text, then each attachment as a
  /// line naming it (``ArtifactReference/modelDescription``) and, for a plain-text file up to
  /// ``inlinedTextAttachmentLimit`` bytes, its contents after that line.
  public func readableText(of segments: [Transcript.Segment]) -> String {
    var pieces = [segments.text]
    for attachment in segments.attachments {
      var piece = attachment.modelDescription
      if attachment.modality == .text, !attachment.isRemote, attachment.reference.size <= Int64(Self.inlinedTextAttachmentLimit),
         let data = try? contents(of: attachment) {
        piece += "\n" + String(decoding: data, as: UTF8.self)
      }
      pieces.append(piece)
    }
    return pieces.filter { !$0.isEmpty }.joined(separator: "\n")
  }
}
