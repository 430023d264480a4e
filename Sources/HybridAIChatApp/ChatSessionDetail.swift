import Foundation
import HybridAI
import HybridAIPersistence

/// A conversation as the page shows it: its record and its entries in order, each with its text
/// and files.
public struct ChatSessionDetail: Sendable, Codable {
  /// One entry of the conversation.
  public struct Entry: Sendable, Codable, Equatable {
    /// `user`, `model`, `toolCalls` or `tool` (instructions are not shown).
    public var role: String
    public var text: String
    public var files: [ChatFile]
    /// The model that wrote a `model` entry.
    public var modelVersion: String?
    /// Why a `model` entry's answer ended (`stop`, `maxTokens`, `contextWindowFull`), when recorded.
    public var finishReason: String?
    /// Whether the on-device model (`on-device`) or the cloud (`cloud`) wrote a `model` entry, when recorded.
    public var source: String?
    /// A `model` entry's tokens, when recorded.
    public var usage: Usage?
    /// Why the preferred model did not write a `model` entry, when it did not.
    public var fallbackReason: String?
    /// A `tool` entry's tool, or the tools a `toolCalls` entry calls.
    public var toolName: String?
    /// Whether a `tool` entry is a failure.
    public var isError: Bool?
  }

  public var session: SessionRecord
  public var entries: [Entry]
  /// Files the transcript names that the store no longer has.
  public var missingFileIDs: [String]
  /// Whether an answer is being written now.
  public var isAnswering: Bool

  init(_ saved: SavedSession, isAnswering: Bool) {
    let id = saved.record.id
    session = saved.record
    missingFileIDs = saved.missingArtifactIDs
    self.isAnswering = isAnswering
    let missing = Set(saved.missingArtifactIDs)
    func files(_ references: [ArtifactReference]) -> [ChatFile] {
      references.filter { !missing.contains($0.id) }.map { ChatFile($0, sessionID: id) }
    }
    entries = saved.transcript.compactMap { entry -> Entry? in
      switch entry {
      case .instructions: nil
      case .prompt(let prompt):
        Entry(role: "user", text: prompt.segments.text, files: files(prompt.segments.storedAttachments.map(\.reference)))
      case .response(let response):
        Entry(role: "model", text: response.segments.text, files: files(response.segments.storedAttachments.map(\.reference)),
              modelVersion: response.modelVersion, finishReason: response.finishReason?.description,
              source: response.source?.rawValue, usage: response.usage, fallbackReason: response.fallback?.reason.description)
      case .toolCalls(let calls):
        Entry(role: "toolCalls", text: calls.calls.map { "\($0.toolName)(\($0.arguments.jsonString))" }.joined(separator: "\n"),
              files: [], toolName: calls.calls.map(\.toolName).joined(separator: ", "))
      case .toolOutput(let output):
        Entry(role: "tool", text: output.segments.text, files: files(output.artifacts), toolName: output.toolName,
              isError: output.isError)
      }
    }
  }
}
