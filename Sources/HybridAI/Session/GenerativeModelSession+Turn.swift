import Logging

extension GenerativeModelSession {
  /// The result of one `respond`: the answer's text, the transcript entries to add, and the
  /// completion of the model's last round (usage summed over all rounds of the tool loop).
  struct Turn {
    var text: String
    var entries: [Transcript.Entry]
    var rawResponse: RawResponse
    /// The artifacts the tools stored, with their file URLs.
    var artifacts: [ArtifactReference]
    /// The history the turn answered from when the context policy compacted it (it replaces the
    /// session's transcript before ``entries`` are added), and what was done.
    var compactedHistory: Transcript? = nil
    var compaction: ContextCompaction? = nil
  }

  /// Where a turn reports what happens while it runs. `text` gets each delta and the round's text
  /// so far; `tool` is called from the concurrent tool calls.
  struct TurnEvents: Sendable {
    var text: @Sendable (_ delta: String, _ text: String) -> Void
    var modelSelected: @Sendable (_ modelIdentifier: String, _ fallback: Fallback?) -> Void
    var tool: @Sendable (ToolActivity) -> Void
    /// A file the model made is stored (its reference carries the local file URL).
    var artifact: @Sendable (ArtifactReference) -> Void
  }

  /// One answer of the model: its text, its content in order (text and the files it made, stored),
  /// its tool calls and its completion.
  struct Round {
    var text = ""
    var segments: [Transcript.Segment] = []
    var artifacts: [ArtifactReference] = []
    var toolCalls: [Transcript.ToolCall] = []
    var completion: RawResponse

    /// The answer's text so far as segments, with `reference` after it.
    static func appending(_ reference: ArtifactReference, to segments: inout [Transcript.Segment], pendingText: inout String) {
      if !pendingText.isEmpty { segments.append(.text(Transcript.TextSegment(content: pendingText))) }
      pendingText = ""
      segments.append(.attachment(Transcript.AttachmentSegment(reference: reference)))
    }
  }

  /// Asks the model, running tool calls until it answers. Nothing is added to the session's
  /// transcript here: the caller commits ``Turn/entries`` once the answer is accepted.
  /// Artifacts stored on the way are recorded in `artifacts`, so the caller can remove them if it
  /// does not commit the turn.
  func runTurn(_ promptEntry: Transcript.Prompt, history: Transcript, artifacts turnArtifacts: TurnArtifacts,
               events: TurnEvents) async throws -> Turn {
    let tools = self.tools   // a catalog's change takes effect from the next turn
    var transcript = history
    transcript.append(.prompt(promptEntry))
    var (fitted, compaction) = try await fitToContext(transcript, options: promptEntry.options,
                                                      format: promptEntry.responseFormat)
    transcript = fitted
    var entries: [Transcript.Entry] = [.prompt(promptEntry)]
    var totalUsage = Usage.zero
    var rounds = 0
    let started = ContinuousClock.now
    var options = promptEntry.options
    var artifacts: [ArtifactReference] = []
    var madeByModel: [Transcript.Segment] = []   // files the model made in rounds that called tools

    while true {
      let request = GenerationRequest(
        transcript: transcript, options: options, sessionState: modelState,
        tools: tools.map(\.definition), responseFormat: promptEntry.responseFormat, artifactStore: artifactStore)
      var answered = false
      let round: Round
      do {
        round = try await generateRound(request, artifacts: turnArtifacts, events: events, answered: &answered)
      } catch {
        // A hybrid whose reachable model has the smaller window: compact for it and try once more.
        guard rounds == 0, compaction == nil, !answered, !Task.isCancelled,
              let refit = try await refitForReachableModel(after: error, transcript: transcript, options: options,
                                                           format: promptEntry.responseFormat)
        else { throw error }
        (fitted, compaction) = (refit.transcript, refit.compaction)
        transcript = fitted
        continue
      }
      totalUsage.add(round.completion.usage)
      artifacts += round.artifacts

      guard !round.toolCalls.isEmpty else {
        var raw = round.completion
        raw.usage = totalUsage
        entries.append(.response(Transcript.Response(
          segments: madeByModel + round.segments, modelVersion: raw.modelVersion, providerContent: raw.providerContent,
          finishReason: raw.finishReason, source: raw.source, usage: totalUsage, fallback: raw.fallback)))
        logger.debug("answered", metadata: [
          "modelVersion": "\(raw.modelVersion)", "source": "\(raw.source)",
          "promptTokens": "\(totalUsage.promptTokens)", "cachedPromptTokens": "\(totalUsage.cachedPromptTokens)",
          "outputTokens": "\(totalUsage.outputTokens)", "finishReason": "\(raw.finishReason)",
          "toolRounds": "\(rounds)", "seconds": "\((ContinuousClock.now - started).seconds)",
        ])
        return Turn(text: round.text, entries: entries, rawResponse: raw, artifacts: artifacts,
                    compactedHistory: compaction.map { _ in Transcript(entries: fitted.entries.dropLast()) },
                    compaction: compaction)
      }

      madeByModel += round.segments.filter { if case .attachment = $0 { true } else { false } }
      rounds += 1
      guard rounds <= toolPolicy.maximumRounds, options.toolChoice != ToolChoice.none else {
        throw GenerationError.toolCallLimitExceeded(rounds: toolPolicy.maximumRounds)
      }
      let callsEntry = Transcript.ToolCalls(
        calls: round.toolCalls, modelVersion: round.completion.modelVersion,
        providerContent: round.completion.providerContent)
      transcript.append(.toolCalls(callsEntry))
      entries.append(.toolCalls(callsEntry))
      let outputs = try await callTools(round.toolCalls, of: tools, transcript: transcript, artifacts: turnArtifacts, events: events)
      for (output, stored) in outputs {
        transcript.append(.toolOutput(output))
        entries.append(.toolOutput(output))
        artifacts += stored
      }
      // A required call has been made: now the model may answer.
      if case .required = options.toolChoice { options.toolChoice = .automatic }
      // The last round allowed: with `answerWithoutTools` the model must answer next.
      if rounds == toolPolicy.maximumRounds, toolPolicy.limit == .answerWithoutTools { options.toolChoice = ToolChoice.none }
    }
  }

  /// One answer of the model: its text, the files it made (stored as they arrive, recorded in
  /// `turnArtifacts`), its tool calls and its completion.
  /// Reports ``TurnEvents/modelSelected``: the routing model's choice, or — for a model that does
  /// not route — the model itself before its first chunk.
  ///
  /// `answered` turns true with the first text, file or tool call: after that a failure is not
  /// retried.
  private func generateRound(_ request: GenerationRequest, artifacts turnArtifacts: TurnArtifacts,
                             events: TurnEvents, answered: inout Bool) async throws -> Round {
    try await checkModelCanServe(request)
    var text = ""
    var pendingText = ""
    var segments: [Transcript.Segment] = []
    var artifacts: [ArtifactReference] = []
    var toolCalls: [Transcript.ToolCall] = []
    var completion: RawResponse?
    var modelAnnounced = false
    for try await event in model.generate(request) {
      if case .routed(let chosen, let fallback) = event {
        modelAnnounced = true
        events.modelSelected(chosen, fallback)
        continue
      }
      if !modelAnnounced {
        modelAnnounced = true
        events.modelSelected(model.modelIdentifier, nil)
      }
      switch event {
      case .textDelta(let delta):
        answered = true
        text += delta
        pendingText += delta
        events.text(delta, text)
      case .artifact(let artifact):
        answered = true
        let reference = try storeModelArtifact(artifact, turn: turnArtifacts)
        artifacts.append(reference)
        Round.appending(reference, to: &segments, pendingText: &pendingText)
        events.artifact(reference)
      case .toolCalls(let calls):
        answered = true
        toolCalls += calls
      case .completed(let raw):
        completion = raw
      case .routed, .logProbabilities:
        break   // routed: handled above; log probabilities: all of them are in the completion
      }
    }
    try Task.checkCancellation()
    guard let completion else { throw GenerationError.incompleteResponse(modelVersion: model.modelIdentifier) }
    if !pendingText.isEmpty || segments.isEmpty { segments.append(.text(Transcript.TextSegment(content: pendingText))) }
    return Round(text: text, segments: segments, artifacts: artifacts, toolCalls: toolCalls, completion: completion)
  }

  /// Runs the calls concurrently and returns their outputs, with the artifacts each stored, in
  /// the calls' order.
  private func callTools(_ calls: [Transcript.ToolCall], of tools: [any Tool], transcript: Transcript, artifacts: TurnArtifacts,
                         events: TurnEvents) async throws -> [(Transcript.ToolOutput, [ArtifactReference])]
  {
    var toolsByName: [String: any Tool] = [:]
    for tool in tools { toolsByName[tool.name] = tool }
    var resolved: [(Transcript.ToolCall, any Tool)] = []
    for call in calls {
      guard let tool = toolsByName[call.toolName] else {
        throw GenerationError.unknownTool(name: call.toolName, arguments: call.arguments.jsonString)
      }
      resolved.append((call, tool))
    }
    return try await withThrowingTaskGroup(of: (Int, (Transcript.ToolOutput, [ArtifactReference])).self) { group in
      for (index, (call, tool)) in resolved.enumerated() {
        group.addTask {
          (index, try await self.call(tool, for: call, transcript: transcript, artifacts: artifacts, events: events))
        }
      }
      var outputs = [(Transcript.ToolOutput, [ArtifactReference])?](repeating: nil, count: resolved.count)
      for try await (index, output) in group { outputs[index] = output }
      return outputs.compactMap { $0 }
    }
  }

  /// Calls one tool and stores the artifacts it returned. The model's text is the tool's output
  /// followed by one ``ArtifactReference/modelDescription`` line per artifact; the transcript
  /// entry records the references without file URLs; the returned references carry them.
  private func call(_ tool: any Tool, for call: Transcript.ToolCall, transcript: Transcript, artifacts: TurnArtifacts,
                    events: TurnEvents) async throws -> (Transcript.ToolOutput, [ArtifactReference])
  {
    let report = events.tool
    let callID = call.id
    let context = ToolContext(callID: call.id, transcript: transcript, artifactStore: artifactStore) { fraction, message in
      report(.progress(callID: callID, fraction: fraction, message: message))
    }
    let started = ContinuousClock.now
    report(.started(toolName: call.toolName, callID: call.id))
    var isError = true
    defer { report(.finished(callID: callID, isError: isError)) }
    let output: ToolOutput
    do {
      output = try await tool.call(with: call.arguments, context: context)
    } catch let error as GenerationError {
      throw error   // invalid arguments: the model's fault, not the tool's
    } catch is CancellationError {
      throw CancellationError()
    } catch {
      logger.warning("tool failed", metadata: ["tool": "\(call.toolName)", "callID": "\(call.id)", "error": "\(error)"])
      return (try failedOutput(for: call, error: error, modelText: "error: \(error)"), [])
    }
    // Only a tool that returned keeps its artifacts; a cancelled request stores nothing.
    try Task.checkCancellation()
    let references: [ArtifactReference]
    do {
      references = try storeArtifacts(output.artifacts, callID: call.id, turn: artifacts, report: report)
    } catch {
      logger.warning("tool artifacts not stored", metadata: [
        "tool": "\(call.toolName)", "callID": "\(call.id)", "error": "\(error)",
      ])
      return (try failedOutput(for: call, error: error, modelText: Self.modelMessage(for: error)), [])
    }
    logger.debug("tool called", metadata: [
      "tool": "\(call.toolName)", "callID": "\(call.id)", "artifacts": "\(references.count)",
      "seconds": "\((ContinuousClock.now - started).seconds)",
    ])
    isError = false
    var text = output.description
    if !references.isEmpty {
      let lines = references.map(\.modelDescription).joined(separator: "\n")
      text = text.isEmpty ? lines : text + "\n" + lines
    }
    let recorded = references.map { ArtifactReference(id: $0.id, name: $0.name, mimeType: $0.mimeType, size: $0.size) }
    return (Transcript.ToolOutput(callID: call.id, toolName: call.toolName, text: text, artifacts: recorded), references)
  }

  /// A failed call, per ``ToolExecutionPolicy/failure``: a ``ToolCallError`` wrapping `error`, or
  /// an error output whose text is `modelText`.
  private func failedOutput(for call: Transcript.ToolCall, error: any Error, modelText: String) throws -> Transcript.ToolOutput {
    switch toolPolicy.failure {
    case .rethrow:
      throw ToolCallError(toolName: call.toolName, arguments: call.arguments.jsonString, underlyingError: error)
    case .reportToModel:
      return Transcript.ToolOutput(callID: call.id, toolName: call.toolName, text: modelText, isError: true)
    }
  }

  func checkModelCanServe(_ request: GenerationRequest) async throws {
    if let error = await model.readiness(for: request).error(modelIdentifier: model.modelIdentifier) { throw error }
  }
}


