import Foundation
import HybridAI
import HybridAIMCP
import HybridAIGemini
import HybridAIOnDevice
import HybridAIOpenAI
import HybridCommandLine

/// The machine-readable form of an answer, printed by `--json`.
struct ResponseReport: Encodable {
  struct Timings: Encodable {
    var promptEvaluationMs: Double
    var timeToFirstTokenMs: Double?
    var generationMs: Double
    var promptTokensPerSecond: Double?
    var generationTokensPerSecond: Double?
  }
  struct UsageReport: Encodable {
    var promptTokens: Int
    var cachedPromptTokens: Int
    var outputTokens: Int
    var reasoningTokens: Int
    var toolUsePromptTokens: Int
    var totalTokens: Int
    var draftTokens: Int
    var acceptedDraftTokens: Int
  }

  struct ToolCallReport: Encodable {
    var name: String
    var arguments: JSONValue
    var output: String?
    var isError: Bool
  }

  /// A file of the turn (an attachment of the prompt, or an artifact a tool or the model made),
  /// with where the session's store keeps it.
  struct FileReport: Encodable {
    var name: String
    var mimeType: String
    var size: Int64
    var path: String?
  }

  var text: String
  /// The prompt's attachments (`--attach`), stored.
  var attachments: [FileReport]
  /// The files the tools and the model made, stored.
  var artifacts: [FileReport]
  /// The structured answer (`--schema`); `nil` for text answers.
  var json: JSONValue?
  /// The tools called while answering, in order.
  var toolCalls: [ToolCallReport]
  var modelVersion: String
  /// `on-device` or `cloud`.
  var source: String
  /// Why the hybrid's primary model did not answer; `nil` when it did.
  var fallbackReason: String?
  var usage: UsageReport
  var finishReason: String
  var timings: Timings?
  /// Each answer token's log probability (`--log-probabilities`); `nil` when not asked.
  var logProbabilities: [TokenLogProbability]?

  init<Content>(_ response: GenerativeModelSession.Response<Content>, structured: GeneratedContent? = nil,
                 store: (any ArtifactStore)? = nil) {
    let raw = response.rawResponse
    text = response.rawContent
    attachments = response.transcriptEntries.flatMap { entry -> [FileReport] in
      guard case .prompt(let prompt) = entry else { return [] }
      return prompt.segments.attachments.map { attachment in
        let reference = attachment.reference
        return FileReport(name: reference.name, mimeType: reference.mimeType, size: reference.size,
                          path: store?.reference(id: reference.id)?.fileURL?.path)
      }
    }
    artifacts = response.artifacts.map { reference in
      FileReport(name: reference.name, mimeType: reference.mimeType, size: reference.size,
                 path: (reference.fileURL ?? store?.reference(id: reference.id)?.fileURL)?.path)
    }
    json = structured?.jsonValue
    var outputs: [String: Transcript.ToolOutput] = [:]
    for case .toolOutput(let output) in response.transcriptEntries { outputs[output.callID] = output }
    toolCalls = response.transcriptEntries.flatMap { entry -> [ToolCallReport] in
      guard case .toolCalls(let calls) = entry else { return [] }
      return calls.calls.map { call in
        ToolCallReport(name: call.toolName, arguments: call.arguments.jsonValue,
                       output: outputs[call.id].map { Transcript.Entry.toolOutput($0).text },
                       isError: outputs[call.id]?.isError ?? false)
      }
    }
    modelVersion = raw.modelVersion
    source = raw.source.rawValue
    fallbackReason = raw.fallback?.description
    usage = UsageReport(promptTokens: raw.usage.promptTokens, cachedPromptTokens: raw.usage.cachedPromptTokens,
                        outputTokens: raw.usage.outputTokens, reasoningTokens: raw.usage.reasoningTokens,
                        toolUsePromptTokens: raw.usage.toolUsePromptTokens, totalTokens: raw.usage.totalTokens,
                        draftTokens: raw.usage.draftTokens, acceptedDraftTokens: raw.usage.acceptedDraftTokens)
    finishReason = raw.finishReason.description
    logProbabilities = raw.logProbabilities
    timings = raw.timings.map {
      Timings(promptEvaluationMs: $0.promptEvaluation.seconds * 1000,
              timeToFirstTokenMs: $0.timeToFirstToken.map { $0.seconds * 1000 },
              generationMs: $0.generation.seconds * 1000,
              promptTokensPerSecond: $0.promptTokensPerSecond,
              generationTokensPerSecond: $0.generationTokensPerSecond)
    }
  }

  private enum CodingKeys: String, CodingKey {
    case text, attachments, artifacts, json, toolCalls, modelVersion, source, fallbackReason, usage, finishReason, timings
    case logProbabilities
  }

  /// Like the synthesized encoding, but `fallbackReason` is always present (`null` when none).
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(text, forKey: .text)
    try container.encode(attachments, forKey: .attachments)
    try container.encode(artifacts, forKey: .artifacts)
    try container.encodeIfPresent(json, forKey: .json)
    try container.encode(toolCalls, forKey: .toolCalls)
    try container.encode(modelVersion, forKey: .modelVersion)
    try container.encode(source, forKey: .source)
    try container.encode(fallbackReason, forKey: .fallbackReason)
    try container.encode(usage, forKey: .usage)
    try container.encode(finishReason, forKey: .finishReason)
    try container.encodeIfPresent(timings, forKey: .timings)
    try container.encodeIfPresent(logProbabilities, forKey: .logProbabilities)
  }

  /// One line per answer token for people: the token, its log probability, and the most likely
  /// tokens at its position.
  static func logProbabilityLines(_ entries: [TokenLogProbability]) -> [String] {
    func quoted(_ token: String) -> String { "\"" + token.replacing("\n", with: "\\n") + "\"" }
    return entries.map { entry in
      let alternatives = entry.topAlternatives.map { "\(quoted($0.token)) \(String(format: "%.3f", $0.logProbability))" }
      return "\(quoted(entry.token)) \(String(format: "%.3f", entry.logProbability))"
        + (alternatives.isEmpty ? "" : "  (" + alternatives.joined(separator: ", ") + ")")
    }
  }

  /// One line for people: tokens and speed.
  static func summary<Content>(_ response: GenerativeModelSession.Response<Content>) -> String {
    let raw = response.rawResponse
    var parts = summaryParts(modelVersion: raw.modelVersion, source: raw.source, usage: response.usage,
                             finishReason: raw.finishReason)
    if let rate = raw.timings?.generationTokensPerSecond {
      parts.append(String(format: "%.0f tok/s", rate))
    }
    if let fallback = raw.fallback { parts.append("fallback: \(fallback)") }
    if let compaction = response.contextCompaction { parts.append("context: \(compaction)") }
    return parts.joined(separator: " · ")
  }

  /// The line `chat` shows after an answer, for an answer of a saved transcript (`sessions show`):
  /// what was recorded of it, `nil` when nothing (a transcript saved before answers kept more
  /// than their model, and the answer ended by itself).
  static func summary(_ response: Transcript.Response) -> String? {
    guard response.usage != nil || (response.finishReason.map { $0 != .stop } ?? false) else { return nil }
    var parts = summaryParts(modelVersion: response.modelVersion, source: response.source, usage: response.usage,
                             finishReason: response.finishReason)
    if let fallback = response.fallback { parts.append("fallback: \(fallback)") }
    return parts.joined(separator: " · ")
  }

  /// The model and where it ran, the tokens and why the answer ended: what is known of them.
  private static func summaryParts(modelVersion: String?, source: ModelSource?, usage: Usage?,
                                   finishReason: FinishReason?) -> [String] {
    var parts: [String] = []
    if let modelVersion, let usage {
      parts.append(modelVersion + (source.map { " (\($0))" } ?? ""))
      let media = [(usage.imagePromptTokens, "image"), (usage.audioPromptTokens, "audio")].filter { $0.0 > 0 }
        .map { ", \($0.0) \($0.1)" }.joined()
      parts.append("prompt \(usage.promptTokens) tokens (\(usage.cachedPromptTokens) cached\(media))")
      parts.append("output \(usage.outputTokens) tokens" + (usage.reasoningTokens > 0 ? " (\(usage.reasoningTokens) reasoning)" : ""))
      if usage.toolUsePromptTokens > 0 { parts.append("tool-use prompt \(usage.toolUsePromptTokens) tokens") }
      if usage.draftTokens > 0 { parts.append("drafts \(usage.acceptedDraftTokens)/\(usage.draftTokens) tokens taken") }
    }
    if let finishReason { parts.append("finish: \(finishReason)") }
    return parts
  }
}

/// The machine-readable form of a failure, printed by `--json`.
struct ErrorReport: Encodable {
  struct Body: Encodable {
    var kind: String
    var message: String
    /// Why an answer stopped early (Gemini's finish reason), when that is the error.
    var finishReason: String?
    /// The answer's text before it stopped early or was filtered, when that is the error.
    var partialText: String?
  }
  var error: Body

  /// The report of `error`; a ``PartialAnswerFailure`` reports its error with the text so far.
  init(_ error: any Error) {
    guard let failure = error as? PartialAnswerFailure else {
      self.init(describing: error)
      return
    }
    self.init(describing: failure.error)
    if self.error.partialText == nil { self.error.partialText = failure.partialText }
  }

  private init(describing error: any Error) {
    let kind: String = switch error {
    case let error as GenerationError: Self.caseName(error)
    case let error as GeminiError: "gemini." + Self.caseName(error)
    case let error as OpenAIError: "openai." + Self.caseName(error)
    case let error as OnDeviceModelError: "onDevice." + Self.caseName(error)
    case let error as AttachmentError: "attachment." + Self.caseName(error)
    case let error as MCPError: "mcp." + Self.caseName(error)
    case is CancellationError: "cancelled"
    default: String(describing: type(of: error))
    }
    let message = error is CancellationError ? "stopped (Ctrl-C) before the answer was complete" : String(describing: error)
    self.error = Body(kind: kind, message: message)
    switch error {
    case let error as GeminiError:
      if case .responseStopped(let reason, _, _) = error { self.error.finishReason = reason.rawValue }
      self.error.partialText = error.partialText
    case OpenAIError.contentFiltered(let partialText):
      self.error.finishReason = "content_filter"
      self.error.partialText = partialText
    default:
      break
    }
  }

  private static func caseName(_ reason: OfflineReason) -> String {
    switch reason {
    case .dnsFailure: "offline.dnsFailure"
    case .connectionRefused: "offline.connectionRefused"
    case .connectionReset: "offline.connectionReset"
    case .connectTimeout: "offline.connectTimeout"
    case .networkUnreachable: "offline.networkUnreachable"
    case .noResponse: "offline.noResponse"
    }
  }

  private static func caseName(_ error: OpenAIError) -> String {
    switch error {
    case .offline(let reason, _): caseName(reason)
    case .invalidAPIKey: "invalidAPIKey"
    case .permissionDenied: "permissionDenied"
    case .unknownModel: "unknownModel"
    case .invalidRequest: "invalidRequest"
    case .rateLimited: "rateLimited"
    case .serverError: "serverError"
    case .httpError: "httpError"
    case .contentFiltered: "contentFiltered"
    case .refused: "refused"
    case .unencodableRequest: "unencodableRequest"
    case .invalidResponse: "invalidResponse"
    case .connectionLost: "connectionLost"
    case .transportFailure: "transportFailure"
    }
  }

  private static func caseName(_ error: MCPError) -> String {
    switch error {
    case .invalidConfiguration: "invalidConfiguration"
    case .launchFailed: "launchFailed"
    case .initializationFailed: "initializationFailed"
    case .unsupportedProtocolVersion: "unsupportedProtocolVersion"
    case .invalidToolSchema: "invalidToolSchema"
    case .serverExited: "serverExited"
    case .timedOut: "timedOut"
    case .requestFailed: "requestFailed"
    case .messageTooLarge: "messageTooLarge"
    case .restartDelayed: "restartDelayed"
    case .toolFailed: "toolFailed"
    }
  }

  private static func caseName(_ error: AttachmentError) -> String {
    switch error {
    case .empty: "empty"
    case .unreadable: "unreadable"
    case .unsafePath: "unsafePath"
    case .unsupportedContent: "unsupportedContent"
    case .mismatch: "mismatch"
    case .truncated: "truncated"
    case .tooLarge: "tooLarge"
    case .unknownArtifact: "unknownArtifact"
    case .storeFailed: "storeFailed"
    case .remoteFile: "remoteFile"
    }
  }

  private static func caseName(_ error: OnDeviceModelError) -> String {
    switch error {
    case .modelFileMissing: "modelFileMissing"
    case .modelNotDownloaded: "modelNotDownloaded"
    case .invalidModelFile: "invalidModelFile"
    case .unsupportedChatTemplate: "unsupportedChatTemplate"
    case .invalidChatTemplate: "invalidChatTemplate"
    case .chatTemplateFailed: "chatTemplateFailed"
    case .contextCreationFailed: "contextCreationFailed"
    case .tokenizationFailed: "tokenizationFailed"
    case .decodeFailed: "decodeFailed"
    case .invalidGrammar: "invalidGrammar"
    case .invalidToolCall: "invalidToolCall"
    case .projectorFileMissing: "projectorFileMissing"
    case .invalidProjector: "invalidProjector"
    case .invalidDraftModel: "invalidDraftModel"
    case .shuttingDown: "shuttingDown"
    }
  }

  private static func caseName(_ error: GeminiError) -> String {
    switch error {
    case .offline(let reason, _): caseName(reason)
    case .invalidAPIKey: "invalidAPIKey"
    case .apiNotEnabled: "apiNotEnabled"
    case .unknownModel: "unknownModel"
    case .invalidArgument: "invalidArgument"
    case .permissionDenied: "permissionDenied"
    case .quotaExceeded: "quotaExceeded"
    case .serverError: "serverError"
    case .httpError: "httpError"
    case .promptBlocked: "promptBlocked"
    case .responseStopped: "responseStopped"
    case .invalidRequest: "invalidRequest"
    case .invalidResponse: "invalidResponse"
    case .connectionLost: "connectionLost"
    case .transportFailure: "transportFailure"
    }
  }

  private static func caseName(_ error: GenerationError) -> String {
    switch error {
    case .concurrentRequests: "concurrentRequests"
    case .modelUnavailable(let reason, _): "modelUnavailable.\(reason.rawValue)"
    case .exceededContextWindowSize: "exceededContextWindowSize"
    case .unsupportedRequest: "unsupportedRequest"
    case .unsupportedCapability: "unsupportedCapability"
    case .incompleteResponse: "incompleteResponse"
    case .invalidStructuredOutput: "invalidStructuredOutput"
    case .exceededTokenLimit: "exceededTokenLimit"
    case .unknownTool: "unknownTool"
    case .invalidToolArguments: "invalidToolArguments"
    case .toolCallLimitExceeded: "toolCallLimitExceeded"
    case .rateLimited: "rateLimited"
    case .guardrailViolation: "guardrailViolation"
    case .refusal: "refusal"
    }
  }
}

enum JSONOutput {
  static func print(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
    Terminal.write(String(decoding: data, as: UTF8.self) + "\n")
  }
}
