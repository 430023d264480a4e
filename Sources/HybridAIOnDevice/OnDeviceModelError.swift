import HybridAI

/// Errors of the on-device (llama.cpp) model.
public enum OnDeviceModelError: Error, Sendable, Hashable, CustomStringConvertible {
  /// No file at the model path.
  case modelFileMissing(path: String)
  /// A delivered model (``SystemLanguageModel/init(modelFile:configuration:)``) is not on this device yet.
  case modelNotDownloaded(name: String)
  /// The file is not a loadable GGUF model (wrong format, corrupt or truncated).
  case invalidModelFile(path: String, reason: String)
  /// llama.cpp does not know this built-in chat template name.
  case unsupportedChatTemplate(String, known: [String])
  /// The Jinja chat template (the GGUF's own or the configured one) does not load: a syntax error,
  /// with Jinja's message.
  case invalidChatTemplate(model: String, reason: String)
  /// The chat template failed while rendering this conversation (it raised an exception, or
  /// rejects a role or an order of messages).
  case chatTemplateFailed(String)
  /// llama.cpp could not create an inference context (usually: not enough memory).
  case contextCreationFailed(contextSize: Int)
  /// The text could not be turned into tokens.
  case tokenizationFailed
  /// llama.cpp failed to evaluate tokens.
  case decodeFailed(code: Int32)
  /// llama.cpp rejected a GBNF grammar (a syntax error, an undefined rule, left recursion).
  case invalidGrammar(String)
  /// The model's tool-call text could not be read (it was cut short by the token limit).
  case invalidToolCall(String, reason: String)
  /// No file at the multimodal projector path (``SystemLanguageModel/Configuration/projectorPath``).
  case projectorFileMissing(path: String)
  /// The projector does not load for this model: not a projector, corrupt, a type llama.cpp does
  /// not know, or made for another model (the reason names both embedding sizes).
  case invalidProjector(path: String, reason: String)
  /// The draft model (``SpeculativeDecoding/draftModelPath``) cannot draft for this model: no file,
  /// not loadable, or another vocabulary (the reason names the difference).
  case invalidDraftModel(path: String, reason: String)
  /// The model was shut down (``BatchedLanguageModel/shutDown()``, a server stopping) while the
  /// request waited or decoded.
  case shuttingDown

  public var description: String {
    switch self {
    case .modelFileMissing(let path):
      "no model file at \(path) (run scripts/bootstrap, or set HYBRIDAI_MODEL)"
    case .modelNotDownloaded(let name):
      "the model \(name) is not downloaded yet (its download has started; check availability)"
    case .invalidModelFile(let path, let reason):
      "\(path) is not a loadable GGUF model: \(reason)"
    case .invalidChatTemplate(let model, let reason):
      "the chat template of \(model) does not load (name another with --chat-template): \(reason)"
    case .chatTemplateFailed(let reason):
      "the chat template could not render this conversation: \(reason)"
    case .unsupportedChatTemplate(let name, let known):
      "unknown chat template '\(name)'; llama.cpp knows: \(known.joined(separator: ", "))"
    case .contextCreationFailed(let size):
      "llama.cpp could not create a context of \(size) tokens (out of memory?)"
    case .tokenizationFailed:
      "the prompt could not be tokenized"
    case .decodeFailed(let code):
      "llama.cpp failed to evaluate tokens (llama_decode returned \(code))"
    case .invalidGrammar(let reason):
      "invalid grammar: \(reason)"
    case .invalidToolCall(let text, let reason):
      "the model's tool call is not valid (\(reason)): \(text.prefix(300))"
    case .projectorFileMissing(let path):
      "no multimodal projector file at \(path)"
    case .invalidProjector(let path, let reason):
      "\(path) is not a multimodal projector this model can use: \(reason)"
    case .invalidDraftModel(let path, let reason):
      "\(path) cannot be the draft model for speculative decoding: \(reason)"
    case .shuttingDown:
      "the model is shutting down (the server is stopping); the request was not finished"
    }
  }

  /// The reason of an ``invalidToolCall(_:reason:)`` whose only call the output token limit cut off.
  public static let toolCallCutShortReason = "the call was cut short by the token limit"

  /// Whether this is a tool call the output token limit cut off (a limit the client can raise).
  public var isToolCallCutShort: Bool {
    if case .invalidToolCall(_, let reason) = self { return reason == Self.toolCallCutShortReason }
    return false
  }
}

extension OnDeviceModelError: AnswerInterruptingError {
  /// ``shuttingDown`` and a tool call cut short by the output token limit, as servers report them.
  public var answerInterruption: AnswerInterruption? {
    if self == .shuttingDown { return .modelShuttingDown }
    return isToolCallCutShort ? .toolCallCutShort : nil
  }
}
