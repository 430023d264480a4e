extension GenerativeModelSession {
  /// Marks where a ``ContextPolicy/summarizing(keepingLatestTurns:)`` summary starts in the instructions.
  public static let summaryHeading = "Summary of the earlier conversation:"

  /// The conversation to answer from: `transcript` (history and the new prompt) itself when it
  /// fits the model that would answer, else compacted per ``contextPolicy``. With
  /// ``ContextPolicy/fail`` nothing is checked here: the model's readiness check throws.
  ///
  /// `answering` is the model measured against and asked for a summary: the session's model, or
  /// one member of a hybrid (see ``refitForReachableModel(after:transcript:options:format:)``).
  func fitToContext(_ transcript: Transcript, options: GenerationOptions, format: ResponseFormat?,
                    answering: (any LanguageModel)? = nil) async throws
    -> (transcript: Transcript, compaction: ContextCompaction?)
  {
    guard contextPolicy != .fail else { return (transcript, nil) }
    let fitting = ContextFitting(session: self, model: answering ?? model, options: options, format: format)
    guard case .unsupported(.exceedsContextWindow(let used, let limit)) = await fitting.model.supports(fitting.request(transcript))
    else { return (transcript, nil) }
    let layout = TranscriptLayout(transcript)
    switch contextPolicy {
    case .fail:
      return (transcript, nil)
    case .rollingWindow:
      let (fitted, removed, after) = try await fitting.dropOldestTurns(of: layout, limit: limit, from: 1)
      let compaction = ContextCompaction(policy: contextPolicy, removedEntries: removed, promptTokensBefore: used,
                                         contextSize: limit, promptTokensAfter: after)
      logCompaction(compaction)
      return (fitted, compaction)
    case .summarizing(let keepingLatestTurns):
      let compaction = try await fitting.summarizeOldestTurns(of: layout, keeping: keepingLatestTurns,
                                                              used: used, limit: limit)
      logCompaction(compaction.1)
      return compaction
    }
  }

  /// The conversation compacted for the model of a hybrid that can still answer, after the first
  /// try failed before any answer because the other could not: the conversation fits only the
  /// model with the larger window (so nothing was compacted), and that model is offline. Prefer
  /// on-device sends a long conversation to the cloud; when the cloud cannot be reached, the
  /// policy makes it fit the on-device window instead, and the turn is tried again. `nil` when
  /// that does not apply (the policy is ``ContextPolicy/fail``, the model is not a hybrid, the
  /// error is not an offline model or a full window, or both members could take the conversation).
  func refitForReachableModel(after error: any Error, transcript: Transcript, options: GenerationOptions,
                              format: ResponseFormat?) async throws -> (transcript: Transcript, compaction: ContextCompaction)? {
    guard contextPolicy != .fail, let hybrid = model as? HybridModel else { return nil }
    let offline = (error as? any ReachabilityError)?.offlineReason != nil
    let overflowed = if case GenerationError.exceededContextWindowSize = error { true } else { false }
    guard offline || overflowed else { return nil }
    for member in [hybrid.primary, hybrid.secondary] {
      // No compaction: the conversation fits this member's window.
      let (fitted, compaction) = try await fitToContext(transcript, options: options, format: format, answering: member)
      guard let compaction else { continue }
      logger.info("the model with the larger window could not answer: compacted for the other", metadata: [
        "model": "\(member.modelIdentifier)", "error": "\(error)",
      ])
      return (fitted, compaction)
    }
    return nil
  }

  private func logCompaction(_ compaction: ContextCompaction) {
    logger.info("compacted the conversation to fit the context window", metadata: [
      "policy": "\(compaction.policy)", "removedEntries": "\(compaction.removedEntries)",
      "promptTokensBefore": "\(compaction.promptTokensBefore)", "contextSize": "\(compaction.contextSize)",
      "promptTokensAfter": "\(compaction.promptTokensAfter.map(String.init) ?? "unknown")",
    ])
  }
}

/// A transcript seen as its leading instructions and its turns: each turn is a prompt with the
/// tool calls, tool outputs and response that follow it. The last turn holds the new prompt.
struct TranscriptLayout {
  var head: [Transcript.Entry] = []
  var turns: [[Transcript.Entry]] = []

  init(_ transcript: Transcript) {
    for entry in transcript.entries {
      if case .prompt = entry {
        turns.append([entry])
      } else if turns.isEmpty {
        head.append(entry)
      } else {
        turns[turns.count - 1].append(entry)
      }
    }
  }

  /// The head followed by the turns from `index` on.
  func transcript(droppingTurnsBefore index: Int, head: [Transcript.Entry]? = nil) -> Transcript {
    Transcript(entries: (head ?? self.head) + turns[index...].joined())
  }

  /// Entries in the turns before `index`.
  func entryCount(beforeTurn index: Int) -> Int { turns[..<index].reduce(0) { $0 + $1.count } }
}

/// The measurements and model calls of one compaction.
struct ContextFitting {
  let session: GenerativeModelSession
  /// The model measured against and asked for summaries.
  let model: any LanguageModel
  let options: GenerationOptions
  let format: ResponseFormat?

  /// A summary's token budget (also the room kept for it before it is written): 160 tokens, at
  /// most a quarter of the window.
  static func summaryTokens(limit: Int) -> Int { min(160, limit / 4) }

  func request(_ transcript: Transcript, sessionState: ModelStateStore? = nil) -> GenerationRequest {
    GenerationRequest(transcript: transcript, options: options, sessionState: sessionState ?? session.modelState,
                      tools: session.tools.map(\.definition), responseFormat: format)
  }

  /// Room kept for the answer: its token limit, at most a quarter of the window (256 when unlimited).
  func answerRoom(limit: Int) -> Int { min(options.maximumResponseTokens ?? 256, limit / 4) }

  /// Whether `transcript` fits with `room` tokens to spare, and its prompt tokens when known.
  func measure(_ transcript: Transcript, limit: Int, room: Int) async -> (fits: Bool, tokens: Int?) {
    await measure(request(transcript), limit: limit, room: room)
  }

  func measure(_ request: GenerationRequest, limit: Int, room: Int) async -> (fits: Bool, tokens: Int?) {
    switch await model.supports(request) {
    case .unsupported(.exceedsContextWindow(let used, _)):
      return (false, used)
    case .unsupported:
      return (true, nil)   // another problem: the readiness check reports it
    case .supported:
      guard let count = try? await model.tokenCount(for: request) else { return (true, nil) }
      return (count + room <= limit, count)
    }
  }

  /// Drops the oldest turns, starting with `first` of them, until the rest fits with room for the
  /// answer. Returns the transcript, the entries dropped, and its tokens. Throws
  /// ``GenerationError/exceededContextWindowSize(promptTokens:contextSize:)`` (the tokens the
  /// instructions and the new prompt need, with the answer's room) when even those alone do not fit.
  func dropOldestTurns(of layout: TranscriptLayout, limit: Int, from first: Int, head: [Transcript.Entry]? = nil)
    async throws -> (Transcript, Int, Int?) {
    let room = answerRoom(limit: limit)
    var smallest: Int?
    for dropped in stride(from: max(1, first), to: layout.turns.count, by: 1) {
      let candidate = layout.transcript(droppingTurnsBefore: dropped, head: head)
      let (fits, tokens) = await measure(candidate, limit: limit, room: room)
      if fits { return (candidate, layout.entryCount(beforeTurn: dropped), tokens) }
      smallest = tokens
    }
    // Even the instructions and the new prompt alone do not fit.
    let alone = layout.transcript(droppingTurnsBefore: layout.turns.count - 1, head: head)
    let used = await measure(alone, limit: limit, room: 0).tokens ?? smallest ?? limit
    throw GenerationError.exceededContextWindowSize(promptTokens: used + room, contextSize: limit)
  }

  /// Folds the oldest turns (all but the latest `keeping`, or more when those and a summary do not
  /// fit) into a summary the model writes, kept in the instructions after
  /// ``GenerativeModelSession/summaryHeading``.
  func summarizeOldestTurns(of layout: TranscriptLayout, keeping: Int, used: Int, limit: Int) async throws
    -> (Transcript, ContextCompaction)
  {
    guard layout.turns.count > 1 else {
      // Only the instructions and the new prompt: nothing to fold.
      throw GenerationError.exceededContextWindowSize(promptTokens: used, contextSize: limit)
    }
    let roomWithSummary = answerRoom(limit: limit) + Self.summaryTokens(limit: limit)
    var folded = min(max(1, layout.turns.count - max(1, keeping)), layout.turns.count - 1)
    while folded < layout.turns.count - 1 {
      if await measure(layout.transcript(droppingTurnsBefore: folded), limit: limit, room: roomWithSummary).fits { break }
      folded += 1
    }
    let (instructions, earlierSummary) = splitInstructions(layout.head)
    let (summary, usage) = try await summary(of: Array(layout.turns[..<folded].joined()), earlierSummary: earlierSummary,
                                             limit: limit)
    let head = headWith(summary: summary, instructions: instructions, layout: layout)
    var fitted = layout.transcript(droppingTurnsBefore: folded, head: head)
    var (fits, after) = await measure(fitted, limit: limit, room: answerRoom(limit: limit))
    if !fits {
      // The summary came out longer than its budget: drop more turns.
      (fitted, _, after) = try await dropOldestTurns(of: layout, limit: limit, from: folded + 1, head: head)
    }
    let removed = layout.entryCount(beforeTurn: layout.turns.count) - (fitted.count - head.count)
    return (fitted, ContextCompaction(policy: .summarizing(keepingLatestTurns: keeping), removedEntries: removed,
                                      promptTokensBefore: used, contextSize: limit, promptTokensAfter: after,
                                      summary: summary, summaryUsage: usage))
  }

  /// The instructions entry of the head (if any) and the summary an earlier compaction left in it.
  private func splitInstructions(_ head: [Transcript.Entry]) -> (Transcript.Instructions?, String?) {
    for entry in head {
      guard case .instructions(let instructions) = entry else { continue }
      let text = instructions.segments.text
      guard let marker = text.range(of: GenerativeModelSession.summaryHeading) else { return (instructions, nil) }
      var base = instructions
      base.segments = [.text(Transcript.TextSegment(content: String(text[..<marker.lowerBound])
        .trimmingCharacters(in: .whitespacesAndNewlines)))]
      return (base, String(text[marker.upperBound...]).trimmingCharacters(in: .whitespacesAndNewlines))
    }
    return (nil, nil)
  }

  /// The head with the instructions (made if there were none) ending in the summary.
  private func headWith(summary: String, instructions: Transcript.Instructions?, layout: TranscriptLayout)
    -> [Transcript.Entry]
  {
    let base = instructions?.segments.text ?? ""
    let text = (base.isEmpty ? "" : base + "\n\n") + GenerativeModelSession.summaryHeading + "\n" + summary
    var updated = instructions ?? Transcript.Instructions(text: "")
    updated.segments = [.text(Transcript.TextSegment(content: text))]
    var head = layout.head.filter { if case .instructions = $0 { false } else { true } }
    head.insert(.instructions(updated), at: 0)
    return head
  }

  /// The model's summary of `entries` (continuing `earlierSummary`), written in requests of their
  /// own with their own cache state, so the session's cache keeps the conversation. When the text
  /// does not fit the window at once, it is summarized in parts, each part with the summary so far.
  private func summary(of entries: [Transcript.Entry], earlierSummary: String?, limit: Int) async throws
    -> (String, Usage)
  {
    var pending = entries.compactMap(Self.line(for:))
    var summary = earlierSummary ?? ""
    var usage = Usage.zero
    let state = ModelStateStore()
    let budget = Self.summaryTokens(limit: limit)
    parts: while !pending.isEmpty {
      var part = pending.count
      var request = summaryRequest(summary, pending[..<part], budget: budget, state: state)
      while !(await measure(request, limit: limit, room: budget).fits) {
        if part > 1 {
          part -= 1
        } else if pending[0].count > 80 {
          pending[0] = String(pending[0].prefix(pending[0].count / 2)) + " …"   // one line longer than the window
        } else {
          break parts   // not even a short line fits beside the summary so far: keep that summary
        }
        request = summaryRequest(summary, pending[..<part], budget: budget, state: state)
      }
      var text = ""
      for try await event in model.generate(request) {
        switch event {
        case .textDelta(let delta): text += delta
        case .completed(let raw): usage.add(raw.usage)
        case .toolCalls, .routed, .artifact, .logProbabilities: break
        }
      }
      summary = text.trimmingCharacters(in: .whitespacesAndNewlines)
      pending.removeFirst(part)
    }
    return (summary, usage)
  }

  /// A request for the summary of `lines` after `earlier`. Measured with SmolLM2-135M: a plain
  /// request over prose ("The user said: …") gives a fair summary, where instructions and
  /// "User:/Assistant:" lines make it continue the dialogue instead.
  private func summaryRequest(_ earlier: String, _ lines: ArraySlice<String>, budget: Int,
                              state: ModelStateStore) -> GenerationRequest {
    let text = (earlier.isEmpty ? "" : "Earlier: \(earlier) ") + lines.joined(separator: " ")
    let prompt = """
      Write a short summary of the following conversation in one to three sentences. Keep names, numbers \
      and decisions.

      \(text)
      """
    return GenerationRequest(transcript: Transcript(entries: [.prompt(Transcript.Prompt(text: prompt))]),
                             options: GenerationOptions(sampling: .greedy, maximumResponseTokens: budget),
                             sessionState: state)
  }

  /// A transcript entry as one line of the text to summarize.
  private static func line(for entry: Transcript.Entry) -> String? {
    switch entry {
    case .prompt(let prompt): "The user said: \(prompt.segments.text)"
    case .response(let response): "The assistant replied: \(response.segments.text)"
    case .toolCalls(let calls): "The assistant called " + calls.calls.map { "\($0.toolName)(\($0.arguments.jsonString))" }
      .joined(separator: ", ") + "."
    case .toolOutput(let output): "The tool \(output.toolName) returned: \(output.segments.text)"
    case .instructions: nil
    }
  }
}
