import HybridAI

extension GenerateContentResponse {
  /// Folds the chunks of a streamed answer into the one response a unary call would have given.
  ///
  /// Per candidate (by `index`): parts are appended, adjacent text parts of the same kind (thought
  /// or answer) are joined — a part carrying a `thoughtSignature` ends a run, so every signature
  /// stays attached to the text it signs; citation sources are concatenated; finish reason,
  /// safety ratings and grounding/URL-context metadata take the last value sent (an empty
  /// grounding object never replaces a filled one). Usage, model version and response ID take the
  /// last value sent.
  public struct Accumulator: Sendable {
    /// The answer so far.
    public private(set) var response = GenerateContentResponse()
    /// How many chunks were added.
    public private(set) var chunkCount = 0

    public init() {}

    /// Adds the next chunk.
    public mutating func add(_ chunk: GenerateContentResponse) {
      chunkCount += 1
      for (position, candidate) in chunk.candidates.enumerated() {
        let index = candidate.index ?? position
        if let existing = response.candidates.firstIndex(where: { ($0.index ?? 0) == index }) {
          response.candidates[existing].merge(candidate)
        } else {
          var fresh = candidate
          fresh.index = candidate.index ?? (chunk.candidates.count > 1 ? position : nil)
          fresh.content = nil
          fresh.citationMetadata = nil
          fresh.merge(candidate)
          response.candidates.append(fresh)
        }
      }
      if let feedback = chunk.promptFeedback { response.promptFeedback = feedback }
      if let usage = chunk.usageMetadata { response.usageMetadata = usage }
      if let version = chunk.modelVersion { response.modelVersion = version }
      if let id = chunk.responseId { response.responseId = id }
      if let time = chunk.createTime { response.createTime = time }
    }
  }
}

extension Gemini.Candidate {
  /// Merges the next chunk of the same candidate into this one.
  mutating func merge(_ next: Gemini.Candidate) {
    if let nextContent = next.content {
      var merged = content ?? Gemini.Content(role: nextContent.role, parts: [])
      if merged.role == nil { merged.role = nextContent.role }
      merged.appendMerging(nextContent.parts)
      content = merged
    }
    if let reason = next.finishReason { finishReason = reason }
    if let message = next.finishMessage { finishMessage = message }
    if let ratings = next.safetyRatings { safetyRatings = ratings }
    if let citations = next.citationMetadata { citationMetadata = Self.mergeCitations(citationMetadata, citations) }
    if let grounding = next.groundingMetadata, grounding != .object([:]) || groundingMetadata == nil {
      groundingMetadata = grounding
    }
    if let urlContext = next.urlContextMetadata { urlContextMetadata = urlContext }
    if let average = next.avgLogprobs { avgLogprobs = average }
    if let logprobs = next.logprobsResult { logprobsResult = Self.mergeLogprobs(logprobsResult, logprobs) }
    if let count = next.tokenCount { tokenCount = count }
  }

  /// A stream's log probabilities so far and a chunk's: the chunk's when they repeat the ones so
  /// far and go on (a stream that sends them whole each time), else both lists joined (one that
  /// sends each chunk's own tokens); the chunk's as they are when either is not a `logprobsResult`.
  static func mergeLogprobs(_ current: JSONValue?, _ next: JSONValue) -> JSONValue {
    guard let current, let old = try? current.decode(as: LogprobsResult.self),
          let new = try? next.decode(as: LogprobsResult.self)
    else { return next }
    let oldChosen = old.chosenCandidates ?? [], newChosen = new.chosenCandidates ?? []
    if newChosen.count >= oldChosen.count, Array(newChosen.prefix(oldChosen.count)) == oldChosen { return next }
    let joined = LogprobsResult(
      chosenCandidates: oldChosen + newChosen, topCandidates: (old.topCandidates ?? []) + (new.topCandidates ?? []),
      logProbabilitySum: old.logProbabilitySum.flatMap { sum in new.logProbabilitySum.map { sum + $0 } })
    return (try? JSONValue(encoding: joined)) ?? next
  }

  private static func mergeCitations(_ current: JSONValue?, _ next: JSONValue) -> JSONValue {
    guard case .object(var merged)? = current,
          case .array(let old)? = merged["citationSources"],
          case .array(let new)? = next["citationSources"]
    else { return next }
    merged["citationSources"] = .array(old + new.filter { !old.contains($0) })
    return .object(merged)
  }
}

extension Gemini.Content {
  /// Appends parts, joining each text part to the previous one when both are text of the same
  /// kind (thought or answer), carry no other fields, and the previous one has no signature yet.
  public mutating func appendMerging(_ newParts: [Gemini.Part]) {
    for part in newParts {
      if let last = parts.last, case .text(let lastText) = last.data, case .text(let text) = part.data,
         last.thoughtSignature == nil, last.isThought == part.isThought,
         last.hasOnlyTextFields, part.hasOnlyTextFields {
        var joined = last
        joined.data = .text(lastText + text)
        joined.thoughtSignature = part.thoughtSignature
        parts[parts.count - 1] = joined
      } else {
        parts.append(part)
      }
    }
  }
}

extension Gemini.Part {
  fileprivate var hasOnlyTextFields: Bool {
    videoMetadata == nil && partMetadata == nil && mediaResolution == nil && otherFields.isEmpty
  }
}
