import Foundation

extension Transcript {
  /// The model's request to call one or more tools (one turn of the model).
  public struct ToolCalls: Sendable, Hashable, Identifiable, Codable {
    public var id: String
    /// The calls, in the order the model made them.
    public var calls: [ToolCall]
    /// The model that asked (``RawResponse/modelVersion``), when known.
    public var modelVersion: String?
    /// The cloud model's turn in its wire form, sent back unchanged (Gemini's thought signatures).
    public var providerContent: ProviderContent?

    public init(id: String = UUID().uuidString, calls: [ToolCall], modelVersion: String? = nil,
                providerContent: ProviderContent? = nil) {
      self.id = id
      self.calls = calls
      self.modelVersion = modelVersion
      self.providerContent = providerContent
    }
  }

  /// One call of a tool by the model.
  public struct ToolCall: Sendable, Hashable, Identifiable, Codable {
    /// The call's id: the cloud's own id when it sent one, otherwise one made up locally.
    public var id: String
    /// The tool's name.
    public var toolName: String
    /// The arguments the model generated.
    public var arguments: GeneratedContent

    public init(id: String = "call_" + UUID().uuidString.prefix(8).lowercased(), toolName: String, arguments: GeneratedContent) {
      self.id = id
      self.toolName = toolName
      self.arguments = arguments
    }

    private enum CodingKeys: String, CodingKey { case id, toolName, arguments }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      id = try container.decode(String.self, forKey: .id)
      toolName = try container.decode(String.self, forKey: .toolName)
      let json = try container.decode(String.self, forKey: .arguments)
      do { arguments = try GeneratedContent(json: json) } catch {
        throw DecodingError.dataCorruptedError(forKey: .arguments, in: container, debugDescription: "\(error)")
      }
    }

    /// Arguments are stored as their JSON text, so the property order the model used is kept.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(id, forKey: .id)
      try container.encode(toolName, forKey: .toolName)
      try container.encode(arguments.jsonString, forKey: .arguments)
    }
  }

  /// What a tool returned for one call.
  ///
  /// When the tool made artifacts, ``segments`` end with one ``ArtifactReference/modelDescription``
  /// line per artifact (what the model reads) and ``artifacts`` records the references — without
  /// their local ``ArtifactReference/fileURL``, so a transcript never carries paths; resolve them
  /// with ``ArtifactStore/reference(id:)``. The `artifacts` field is written to JSON only when it
  /// is not empty, so entries without artifacts encode exactly as before and older transcripts
  /// (which lack the field) still decode.
  public struct ToolOutput: Sendable, Hashable, Identifiable, Codable {
    public var id: String
    /// The ``ToolCall/id`` this answers.
    public var callID: String
    /// The tool's name.
    public var toolName: String
    /// The output (text; structured output as its JSON text).
    public var segments: [Segment]
    /// Whether the tool failed and the output describes the error.
    public var isError: Bool
    /// The artifacts the call produced, in the order the tool returned them (empty if none).
    public var artifacts: [ArtifactReference]

    public init(id: String = UUID().uuidString, callID: String, toolName: String, segments: [Segment], isError: Bool = false,
                artifacts: [ArtifactReference] = []) {
      self.id = id
      self.callID = callID
      self.toolName = toolName
      self.segments = segments
      self.isError = isError
      self.artifacts = artifacts
    }

    public init(id: String = UUID().uuidString, callID: String, toolName: String, text: String, isError: Bool = false,
                artifacts: [ArtifactReference] = []) {
      self.init(id: id, callID: callID, toolName: toolName, segments: [.text(TextSegment(content: text))], isError: isError,
                artifacts: artifacts)
    }

    private enum CodingKeys: String, CodingKey { case id, callID, toolName, segments, isError, artifacts }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      id = try container.decode(String.self, forKey: .id)
      callID = try container.decode(String.self, forKey: .callID)
      toolName = try container.decode(String.self, forKey: .toolName)
      segments = try container.decode([Segment].self, forKey: .segments)
      isError = try container.decode(Bool.self, forKey: .isError)
      artifacts = try container.decodeIfPresent([ArtifactReference].self, forKey: .artifacts) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(id, forKey: .id)
      try container.encode(callID, forKey: .callID)
      try container.encode(toolName, forKey: .toolName)
      try container.encode(segments, forKey: .segments)
      try container.encode(isError, forKey: .isError)
      if !artifacts.isEmpty { try container.encode(artifacts, forKey: .artifacts) }
    }
  }
}
