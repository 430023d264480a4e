import Foundation

extension Transcript {
  /// One entry of a transcript.
  public enum Entry: Sendable, Hashable, Identifiable, Codable {
    /// How the model should behave, given by the app.
    case instructions(Instructions)
    /// What the user asked.
    case prompt(Prompt)
    /// What the model answered.
    case response(Response)
    /// The model asked for tools to be called.
    case toolCalls(ToolCalls)
    /// What a called tool returned.
    case toolOutput(ToolOutput)

    public var id: String {
      switch self {
      case .instructions(let entry): entry.id
      case .prompt(let entry): entry.id
      case .response(let entry): entry.id
      case .toolCalls(let entry): entry.id
      case .toolOutput(let entry): entry.id
      }
    }

    /// The text of all text segments of the entry.
    public var text: String {
      switch self {
      case .instructions(let entry): entry.segments.text
      case .prompt(let entry): entry.segments.text
      case .response(let entry): entry.segments.text
      case .toolCalls(let entry): entry.calls.map { "\($0.toolName)(\($0.arguments.jsonString))" }.joined(separator: "\n")
      case .toolOutput(let entry): entry.segments.text
      }
    }

    private enum CodingKeys: String, CodingKey { case type }
    private enum Kind: String, Codable { case instructions, prompt, response, toolCalls, toolOutput }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      switch try container.decode(Kind.self, forKey: .type) {
      case .instructions: self = .instructions(try Instructions(from: decoder))
      case .prompt: self = .prompt(try Prompt(from: decoder))
      case .response: self = .response(try Response(from: decoder))
      case .toolCalls: self = .toolCalls(try ToolCalls(from: decoder))
      case .toolOutput: self = .toolOutput(try ToolOutput(from: decoder))
      }
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      switch self {
      case .instructions(let entry):
        try container.encode(Kind.instructions, forKey: .type)
        try entry.encode(to: encoder)
      case .prompt(let entry):
        try container.encode(Kind.prompt, forKey: .type)
        try entry.encode(to: encoder)
      case .response(let entry):
        try container.encode(Kind.response, forKey: .type)
        try entry.encode(to: encoder)
      case .toolCalls(let entry):
        try container.encode(Kind.toolCalls, forKey: .type)
        try entry.encode(to: encoder)
      case .toolOutput(let entry):
        try container.encode(Kind.toolOutput, forKey: .type)
        try entry.encode(to: encoder)
      }
    }
  }

  /// Instructions given to the model for the whole session.
  public struct Instructions: Sendable, Hashable, Identifiable, Codable {
    public var id: String
    public var segments: [Segment]
    /// The tools the session offered the model.
    public var toolDefinitions: [ToolDefinition]

    public init(id: String = UUID().uuidString, segments: [Segment], toolDefinitions: [ToolDefinition] = []) {
      self.id = id
      self.segments = segments
      self.toolDefinitions = toolDefinitions
    }

    public init(id: String = UUID().uuidString, text: String, toolDefinitions: [ToolDefinition] = []) {
      self.init(id: id, segments: text.isEmpty ? [] : [.text(TextSegment(content: text))], toolDefinitions: toolDefinitions)
    }

    private enum CodingKeys: String, CodingKey { case id, segments, toolDefinitions }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      id = try container.decode(String.self, forKey: .id)
      segments = try container.decode([Segment].self, forKey: .segments)
      toolDefinitions = try container.decodeIfPresent([ToolDefinition].self, forKey: .toolDefinitions) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(id, forKey: .id)
      try container.encode(segments, forKey: .segments)
      if !toolDefinitions.isEmpty { try container.encode(toolDefinitions, forKey: .toolDefinitions) }
    }
  }

  /// A prompt from the user, with the options it was asked with.
  public struct Prompt: Sendable, Hashable, Identifiable, Codable {
    public var id: String
    public var segments: [Segment]
    public var options: GenerationOptions
    /// The shape the answer had to have, when the prompt asked for structured output.
    public var responseFormat: ResponseFormat?

    public init(id: String = UUID().uuidString, segments: [Segment], options: GenerationOptions = GenerationOptions(),
                responseFormat: ResponseFormat? = nil) {
      self.id = id
      self.segments = segments
      self.options = options
      self.responseFormat = responseFormat
    }

    public init(id: String = UUID().uuidString, text: String, options: GenerationOptions = GenerationOptions(),
                responseFormat: ResponseFormat? = nil) {
      self.init(id: id, segments: [.text(TextSegment(content: text))], options: options, responseFormat: responseFormat)
    }
  }

  /// An answer from a model, and which model gave it.
  public struct Response: Sendable, Hashable, Identifiable, Codable {
    public var id: String
    public var segments: [Segment]
    /// The model that answered (``RawResponse/modelVersion``), when known.
    public var modelVersion: String?
    /// The cloud model's answer in its wire form, sent back as it came when the conversation
    /// continues on that kind of model (keeps thoughts and thought signatures).
    public var providerContent: ProviderContent?
    /// Why the answer ended (``RawResponse/finishReason``), when a session recorded it: a saved
    /// conversation still shows which answers were cut off (``FinishReason/maxTokens``).
    public var finishReason: FinishReason?
    /// Whether the on-device or the cloud model answered (``RawResponse/source``), when recorded.
    public var source: ModelSource?
    /// The turn's tokens, tool rounds included (``RawResponse/usage``), when recorded.
    public var usage: Usage?
    /// Set when a ``HybridModel`` answered with its secondary model (``RawResponse/fallback``).
    public var fallback: Fallback?

    public init(id: String = UUID().uuidString, segments: [Segment], modelVersion: String? = nil,
                providerContent: ProviderContent? = nil, finishReason: FinishReason? = nil,
                source: ModelSource? = nil, usage: Usage? = nil, fallback: Fallback? = nil) {
      self.id = id
      self.segments = segments
      self.modelVersion = modelVersion
      self.providerContent = providerContent
      self.finishReason = finishReason
      self.source = source
      self.usage = usage
      self.fallback = fallback
    }

    public init(id: String = UUID().uuidString, text: String, modelVersion: String? = nil,
                providerContent: ProviderContent? = nil, finishReason: FinishReason? = nil,
                source: ModelSource? = nil, usage: Usage? = nil, fallback: Fallback? = nil) {
      self.init(id: id, segments: [.text(TextSegment(content: text))], modelVersion: modelVersion,
                providerContent: providerContent, finishReason: finishReason, source: source, usage: usage, fallback: fallback)
    }
  }

  /// A piece of an entry's content.
  public enum Segment: Sendable, Hashable, Identifiable, Codable {
    case text(TextSegment)
    /// A file given with a prompt (or a tool output, or a response): a reference to its bytes in
    /// the session's ``ArtifactStore``.
    case attachment(AttachmentSegment)

    public var id: String {
      switch self {
      case .text(let segment): segment.id
      case .attachment(let segment): segment.id
      }
    }

    private enum CodingKeys: String, CodingKey { case type }
    private enum Kind: String, Codable { case text, attachment }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      switch try container.decode(Kind.self, forKey: .type) {
      case .text: self = .text(try TextSegment(from: decoder))
      case .attachment: self = .attachment(try AttachmentSegment(from: decoder))
      }
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      switch self {
      case .text(let segment):
        try container.encode(Kind.text, forKey: .type)
        try segment.encode(to: encoder)
      case .attachment(let segment):
        try container.encode(Kind.attachment, forKey: .type)
        try segment.encode(to: encoder)
      }
    }
  }

  /// A file in the conversation: what the transcript keeps of an ``Attachment`` once stored (the
  /// reference, without a local path).
  public struct AttachmentSegment: Sendable, Hashable, Identifiable, Codable {
    public var id: String
    /// The stored bytes: id, name, MIME type and size (``ArtifactReference/fileURL`` is `nil`;
    /// resolve it with ``ArtifactStore/reference(id:)``).
    public var reference: ArtifactReference

    public init(id: String = UUID().uuidString, reference: ArtifactReference) {
      self.id = id
      var reference = reference
      reference.fileURL = nil
      self.reference = reference
    }

    /// The URI the cloud model fetches the file from, for a remote file
    /// (``HybridAI/Attachment/init(fileURI:mimeType:)``): nothing is in the store then, and
    /// ``reference`` only names it (size 0).
    public var remoteURL: URL?

    /// A remote file's segment: its reference has a stable id made from the URI.
    public static func remote(_ uri: URL, name: String, mimeType: String) -> AttachmentSegment {
      var segment = AttachmentSegment(reference: ArtifactReference(id: remoteID(for: uri), name: name, mimeType: mimeType, size: 0))
      segment.remoteURL = uri
      return segment
    }

    /// `remote-` and a 64-bit FNV-1a hash of the URI, in hex: the same URI, the same id.
    static func remoteID(for uri: URL) -> String {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in uri.absoluteString.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
      }
      return "remote-" + String(hash, radix: 16)
    }

    /// Whether the bytes are elsewhere (``remoteURL``), not in the session's store.
    public var isRemote: Bool { remoteURL != nil }

    /// What a model that does not get the bytes reads in the attachment's place: `[attachment]`
    /// and the stored file's ``ArtifactReference/modelDescription``, or the remote file's URI.
    public var modelDescription: String {
      guard let remoteURL else { return "[attachment] " + reference.modelDescription }
      return "[attachment] [file \"\(reference.name)\" \(reference.mimeType) at \(remoteURL.absoluteString)]"
    }

    /// The kind of content, from its MIME type.
    public var modality: Modality { MediaType.named(reference.mimeType)?.modality ?? .document }
    /// Its MIME type.
    public var mimeType: String { reference.mimeType }
  }

  /// Plain text.
  public struct TextSegment: Sendable, Hashable, Identifiable, Codable {
    public var id: String
    public var content: String

    public init(id: String = UUID().uuidString, content: String) {
      self.id = id
      self.content = content
    }
  }
}

extension [Transcript.Segment] {
  /// The text segments' contents, joined (attachments left out).
  public var text: String {
    compactMap { segment in
      if case .text(let text) = segment { text.content } else { nil }
    }.joined()
  }

  /// The attachment segments, in order.
  public var attachments: [Transcript.AttachmentSegment] {
    compactMap { segment in
      if case .attachment(let attachment) = segment { attachment } else { nil }
    }
  }

  /// The attachments whose bytes are in the session's store (all but remote files).
  public var storedAttachments: [Transcript.AttachmentSegment] {
    attachments.filter { !$0.isRemote }
  }

  /// The text, with one ``Transcript/AttachmentSegment/modelDescription`` line per attachment
  /// after it: what a model that cannot take an attachment's kind reads in its place.
  public var textWithAttachmentReferences: String {
    let references = attachments.map(\.modelDescription)
    return ([text] + references).filter { !$0.isEmpty }.joined(separator: "\n")
  }
}

extension Transcript {
  /// Every stored file the transcript refers to, each once, oldest first: the attachments of its
  /// instructions, prompts and responses and the artifacts of its tool outputs (references
  /// without local paths; resolve them with ``ArtifactStore/reference(id:)``). Remote files
  /// (``AttachmentSegment/remoteURL``) are not among them.
  public var fileReferences: [ArtifactReference] {
    var seen: Set<String> = []
    var files: [ArtifactReference] = []
    func add(_ reference: ArtifactReference) {
      if seen.insert(reference.id).inserted { files.append(reference) }
    }
    for entry in self {
      switch entry {
      case .instructions(let entry): entry.segments.storedAttachments.forEach { add($0.reference) }
      case .prompt(let entry): entry.segments.storedAttachments.forEach { add($0.reference) }
      case .response(let entry): entry.segments.storedAttachments.forEach { add($0.reference) }
      case .toolOutput(let entry): entry.artifacts.forEach(add)
      case .toolCalls: break
      }
    }
    return files
  }
}
