import Foundation

/// The record of a conversation: instructions, prompts and responses, in order.
///
/// A transcript belongs to a session, not to a model, so a conversation can move between models.
/// It is `Codable` with a stable, versioned JSON form (see ``jsonData()``), and a session can be
/// created from one to continue the conversation.
public struct Transcript: Sendable, Hashable, Codable, RandomAccessCollection {
  /// The JSON format version written by ``encode(to:)`` (2 added tool calls, tool outputs and response formats; version 1 is read too).
  public static let formatVersion = 2

  /// The entries, oldest first.
  public private(set) var entries: [Entry]

  public init(entries: [Entry] = []) { self.entries = entries }

  public var startIndex: Int { entries.startIndex }
  public var endIndex: Int { entries.endIndex }
  public subscript(position: Int) -> Entry { entries[position] }

  /// Adds an entry at the end.
  public mutating func append(_ entry: Entry) { entries.append(entry) }
  /// Adds entries at the end.
  public mutating func append(contentsOf newEntries: some Sequence<Entry>) { entries.append(contentsOf: newEntries) }

  /// The stable JSON form: sorted keys, so the same transcript always gives the same bytes.
  public func jsonData(prettyPrinted: Bool = false) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = prettyPrinted ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(self)
  }

  /// Reads a transcript from its JSON form.
  public init(jsonData: Data) throws {
    self = try JSONDecoder().decode(Transcript.self, from: jsonData)
  }

  private enum CodingKeys: String, CodingKey { case version, entries }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let version = try container.decode(Int.self, forKey: .version)
    guard version <= Self.formatVersion else {
      throw DecodingError.dataCorruptedError(
        forKey: .version, in: container,
        debugDescription: "transcript format \(version) is newer than this library reads (\(Self.formatVersion))")
    }
    entries = try container.decode([Entry].self, forKey: .entries)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(Self.formatVersion, forKey: .version)
    try container.encode(entries, forKey: .entries)
  }
}
