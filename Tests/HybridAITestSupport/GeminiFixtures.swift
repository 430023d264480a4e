import Foundation
import HybridAI

/// The recorded Gemini responses (`shared/fixtures/gemini-mock-responses` of the workplace):
/// `$HYBRIDAI_GEMINI_FIXTURES`, else the copy `scripts/bootstrap` makes in
/// `.deps/fixtures/gemini-mock-responses`, else the first ancestor of this file that contains
/// `shared/fixtures/gemini-mock-responses`.
public enum GeminiFixtures {
  public struct NotFound: Error, CustomStringConvertible {
    public var description: String {
      "the Gemini fixtures were not found: HYBRIDAI_GEMINI_FIXTURES is not set, scripts/bootstrap made no "
        + ".deps/fixtures/gemini-mock-responses, and no ancestor of \(GeminiFixtures.sourceFile) contains "
        + "shared/fixtures/gemini-mock-responses. Run scripts/bootstrap with the shared directory beside the "
        + "repository, or set HYBRIDAI_GEMINI_FIXTURES."
    }
  }

  static let sourceFile = #filePath

  public static func directory() throws -> URL {
    if let path = ProcessInfo.processInfo.environment["HYBRIDAI_GEMINI_FIXTURES"], !path.isEmpty {
      return URL(fileURLWithPath: path, isDirectory: true)
    }
    var directory = URL(fileURLWithPath: sourceFile).deletingLastPathComponent()
    while directory.path != "/" {
      for relative in [".deps/fixtures/gemini-mock-responses", "shared/fixtures/gemini-mock-responses"] {
        let candidate = directory.appendingPathComponent(relative, isDirectory: true)
        if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("LICENSE").path) { return candidate }
      }
      directory = directory.deletingLastPathComponent()
    }
    throw NotFound()
  }

  public static func data(_ name: String) throws -> Data {
    try Data(contentsOf: directory().appendingPathComponent(name))
  }

  /// Every response file (everything but the licence).
  public static func allFileNames() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory().path)
      .filter { $0.hasSuffix(".json") || $0.hasSuffix(".txt") }
      .sorted()
  }
}

/// What a fixture says, read with the core's `JSONValue` and plain string handling only — not
/// with the module under test — so tests compare the client's results with independent values.
public struct GeminiFixtureFacts {
  /// The JSON objects: one for a unary body, one per `data:` line for a stream.
  public var chunks: [JSONValue]

  public init(_ data: Data, streaming: Bool) throws {
    let text = String(decoding: data, as: UTF8.self)
    if streaming, text.contains("data:") {
      chunks = try text.split(whereSeparator: \.isNewline)
        .filter { $0.hasPrefix("data:") }
        .map { try JSONDecoder().decode(JSONValue.self, from: Data($0.dropFirst(5).utf8)) }
    } else {
      chunks = [try JSONDecoder().decode(JSONValue.self, from: data)]
    }
  }

  private var firstCandidates: [JSONValue] {
    chunks.compactMap { chunk in
      if case .array(let candidates)? = chunk["candidates"] { return candidates.first }
      return nil
    }
  }

  private var parts: [JSONValue] {
    firstCandidates.flatMap { candidate -> [JSONValue] in
      if case .array(let parts)? = candidate["content"]?["parts"] { return parts }
      return []
    }
  }

  private func isThought(_ part: JSONValue) -> Bool { part["thought"] == .bool(true) }

  /// The answer's text (thoughts excluded).
  public var text: String { parts.filter { !isThought($0) }.compactMap { $0["text"]?.string }.joined() }
  /// The thoughts' text.
  public var thoughtText: String { parts.filter(isThought).compactMap { $0["text"]?.string }.joined() }
  /// Every thought signature, in order.
  public var signatures: [String] { parts.compactMap { $0["thoughtSignature"]?.string } }
  /// The kinds of non-text parts, in order.
  public var dataKinds: [String] {
    parts.compactMap { part in
      ["inlineData", "functionCall", "executableCode", "codeExecutionResult"].first { part[$0] != nil }
    }
  }
  /// The answer's inline files: MIME type and decoded bytes, in order.
  public var inlineFiles: [(mimeType: String, bytes: Data)] {
    parts.filter { !isThought($0) }.compactMap { part in
      guard let blob = part["inlineData"], let mimeType = blob["mimeType"]?.string,
            let bytes = blob["data"]?.string.flatMap({ Data(base64Encoded: $0) }) else { return nil }
      return (mimeType, bytes)
    }
  }

  public var finishReason: String? { firstCandidates.compactMap { $0["finishReason"]?.string }.last }
  public var finishMessage: String? { firstCandidates.compactMap { $0["finishMessage"]?.string }.last }
  public var modelVersion: String? { chunks.compactMap { $0["modelVersion"]?.string }.last }
  public var responseId: String? { chunks.compactMap { $0["responseId"]?.string }.last }
  public var usage: JSONValue? { chunks.compactMap { $0["usageMetadata"] }.last }
  public func usage(_ field: String) -> Int { usage?[field]?.int ?? 0 }
  /// The last non-empty grounding metadata.
  public var grounding: JSONValue? {
    firstCandidates.compactMap { $0["groundingMetadata"] }.last { $0 != .object([:]) }
      ?? firstCandidates.compactMap { $0["groundingMetadata"] }.last
  }
  public var urlContext: JSONValue? { firstCandidates.compactMap { $0["urlContextMetadata"] }.last }
  /// All citation sources, duplicates dropped.
  public var citationSources: [JSONValue] {
    var sources: [JSONValue] = []
    for candidate in firstCandidates {
      if case .array(let list)? = candidate["citationMetadata"]?["citationSources"] {
        for source in list where !sources.contains(source) { sources.append(source) }
      }
    }
    return sources
  }
  public var safetyRatings: JSONValue? { firstCandidates.compactMap { $0["safetyRatings"] }.last }
  public var blockReason: String? { chunks.compactMap { $0["promptFeedback"]?["blockReason"]?.string }.last }
  public var blockReasonMessage: String? { chunks.compactMap { $0["promptFeedback"]?["blockReasonMessage"]?.string }.last }
  /// The HTTP status of an error body (`error.code`), or `nil`.
  public var errorCode: Int? { chunks.first?["error"]?["code"]?.int }
}

extension JSONValue {
  public var string: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  public var int: Int? {
    if case .number(let value) = self { return Int(value) }
    return nil
  }
}
