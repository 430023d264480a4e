import Foundation
import Hummingbird
import HybridAI
import HybridAIGeminiWire
import HybridAIHTTP
import HybridAIServing
import Logging

/// Answers one `generateContent`, `streamGenerateContent` or `countTokens` call with a served model.
struct ContentGeneration: Sendable {
  let model: ServedModel
  let logger: Logger

  /// `countTokens`: the prompt tokens of `contents` or of a whole `generateContentRequest` (one of
  /// the two). Any conversation counts, also one that ends with the model's turn (a chat's history).
  func countTokens(_ request: CountTokensRequest) async throws -> CountTokensResponse {
    if request.generateContentRequest != nil, !(request.contents ?? []).isEmpty {
      throw GoogleAPIError.invalidArgument("Give either contents or generateContentRequest, not both.")
    }
    let wire = request.generateContentRequest ?? GenerateContentRequest(contents: request.contents ?? [])
    guard !wire.contents.isEmpty else {
      throw GoogleAPIError.invalidArgument("contents is empty: give the contents to count (or a generateContentRequest).")
    }
    let media = RequestMedia.store(holdingMedia: wire.holdsMedia, for: model)
    let generationRequest = try makeGenerationRequest(from: wire, media: media, endingWithUserTurn: false)
    return CountTokensResponse(totalTokens: try await model.countTokens(generationRequest))
  }

  /// `generateContent`: the whole answer in one response; `candidateCount` candidates generated
  /// side by side, the usage counting the prompt once.
  func generate(_ wire: GenerateContentRequest) async throws -> GenerateContentResponse {
    let media = RequestMedia.store(holdingMedia: wire.holdsMedia, for: model)
    let request = try await checkedGenerationRequest(from: wire, media: media)
    let chunks = ResponseChunks(modelVersion: model.modelVersion)
    var finals: [GenerateContentResponse] = [], completions: [RawResponse] = []
    for answer in try await model.wholeAnswers(to: request, count: wire.generationConfig?.candidateCount ?? 1) {
      guard let completion = answer.completion else {
        throw GoogleAPIError.internal("The model ended its answer without completing it.")
      }
      finals.append(try chunks.final(text: answer.text, files: answer.files, toolCalls: answer.toolCalls, completion: completion))
      completions.append(completion)
    }
    return chunks.combined(finals, completions: completions)
  }

  /// `streamGenerateContent`: one chunk per text delta (and per file the model made, as
  /// `inlineData`), the last one with the model's function calls (if any), the finish reason and
  /// usage — as server-sent events (`alt=sse`) or as the elements of one JSON array written as
  /// they come (Google's default). With `candidateCount` > 1 the candidates' chunks interleave as
  /// they come, each with its `index`, and one chunk after them all carries the usage. Errors
  /// before the first delta get a normal error response; later ones are the last chunk; when the
  /// client goes away, the write fails and generation is cancelled.
  func stream(_ wire: GenerateContentRequest, framing: GeminiStreamFraming = .serverSentEvents) async throws -> Response {
    let received = ContinuousClock.now
    let media = RequestMedia.store(holdingMedia: wire.holdsMedia, for: model)
    let request = try await checkedGenerationRequest(from: wire, media: media)
    let checked = ContinuousClock.now
    // Failures before the first chunk become HTTP errors.
    let (answers, firsts) = try await model.startedAnswers(to: request, count: wire.generationConfig?.candidateCount ?? 1)
    let firstEvent = ContinuousClock.now
    let modelVersion = model.modelVersion
    let logger = self.logger
    let body = ResponseBody { writer in
      let chunks = ResponseChunks(modelVersion: modelVersion)
      var candidates = answers.indices.map { CandidateStream(chunks: chunks, index: $0, carriesUsage: answers.count == 1) }
      var completions: [RawResponse] = []
      var textWritten = false
      var chunksWritten = 0
      func write(_ chunk: some Encodable) async throws {
        try await writer.write(try framing.chunk(chunk, first: chunksWritten == 0))
        chunksWritten += 1
      }
      func write(_ event: GenerationEvent, of index: Int) async throws {
        if case .completed(let raw) = event { completions.append(raw) }
        if let chunk = try candidates[index].chunk(for: event) { try await write(chunk) }
        if case .textDelta = event, !textWritten {
          textWritten = true
          // Beside the model's own timeToFirstTokenMs and a client's TTFT: where the time goes
          // between the request reaching this handler, the first token, and the client.
          let milliseconds = { (instant: ContinuousClock.Instant) in "\(Int(((instant - received).seconds * 1000).rounded()))" }
          logger.debug("first text written", metadata: [
            "checkedMs": "\(milliseconds(checked))", "firstEventMs": "\(milliseconds(firstEvent))",
            "sinceRequestMs": "\(milliseconds(.now))",
          ])
        }
      }
      let merged = answers.count == 1 ? nil : MergedGenerationEvents(answers, firsts: firsts)
      do {
        if let merged {
          while let (index, event) = try await merged.next() { try await write(event, of: index) }
          try await write(chunks.usage(Usage(answersTo: completions)))
        } else {
          var event = firsts[0]
          while let current = event {
            try await write(current, of: 0)
            event = try await answers[0].next()
          }
        }
      } catch {
        if let merged { merged.cancel() } else { answers[0].cancel() }
        logger.info("stream ended early", metadata: ["error": "\(error)"])
        // Headers are gone already: end the stream with Google's error envelope as the last event.
        if !(error is CancellationError) {
          try? await write(GoogleAPIError.from(generationError: error).envelope)
        }
      }
      if let end = framing.end(afterChunks: chunksWritten) { try? await writer.write(end) }
      try await writer.finish(nil)
    }
    return Response(status: .ok, headers: [.contentType: framing.contentType, .cacheControl: "no-cache"], body: body)
  }

  // MARK: - Requests

  /// The HybridAI request of a Gemini request: transcript, options, tools and response format.
  /// `endingWithUserTurn`: a generation's contents must end with the user's turn (what to answer).
  private func makeGenerationRequest(from wire: GenerateContentRequest, media: RequestMedia? = nil,
                                     endingWithUserTurn: Bool = true) throws -> GenerationRequest {
    do {
      let request = try wire.generationRequest(media: media?.store)
      if endingWithUserTurn {
        switch request.transcript.last {
        case .prompt?, .toolOutput?: break
        default: throw GoogleAPIError.invalidArgument("contents must end with a user turn (text or function responses).")
        }
      }
      if case .required(let names?)? = request.options.toolChoice {
        for name in names where !request.tools.contains(where: { $0.name == name }) {
          throw GoogleAPIError.invalidArgument("allowedFunctionNames names \(name), which is not a declared function.")
        }
      }
      return request
    } catch let error as GoogleAPIError {
      throw error
    } catch {
      throw GoogleAPIError.invalidArgument("\(error)")
    }
  }

  private func checkedGenerationRequest(from wire: GenerateContentRequest, media: RequestMedia?) async throws -> GenerationRequest {
    try await model.checked(try makeGenerationRequest(from: wire, media: media), logger: logger)
  }
}
