/// Folds the chunks of a streamed answer into the answer: the text, the tool calls (their pieces
/// joined by `index`), the finish reason, the model, the usage and the log probabilities.
///
/// ```swift
/// var answer = ChatCompletionAccumulator()
/// for try await chunk in client.streamChatCompletion(request) {
///   let newText = answer.add(chunk)
///   print(newText, terminator: "")
/// }
/// print(answer.toolCalls, answer.usage ?? "no usage")
/// ```
///
/// Only the first choice (`index` 0) is kept: HybridAI asks for one. A tool-call piece without an
/// `index` counts as index 0; a piece whose `id` differs from the call at its index starts a new
/// call (servers that number every call 0).
public struct ChatCompletionAccumulator: Sendable {
  /// The answer's text so far.
  public private(set) var text = ""
  /// The calls so far, in the order they began; arguments may still be partial before the end.
  public private(set) var toolCalls: [ChatToolCall] = []
  /// The model's refusal, when it refused instead of answering (empty otherwise).
  public private(set) var refusal = ""
  /// The finish reason, once a chunk gave one.
  public private(set) var finishReason: String?
  /// The model the server named (the last non-empty one).
  public private(set) var model: String?
  /// The usage, from the last chunk (with `stream_options.include_usage`) or any chunk carrying it.
  public private(set) var usage: ChatUsage?
  /// The content tokens' log probabilities so far, once a chunk carried any (`logprobs: true`).
  public private(set) var logProbabilities: [ChatLogProbabilities.Token]?
  /// Chunks added.
  public private(set) var chunkCount = 0

  /// Where each wire index's current call is in ``toolCalls``.
  private var callPositions: [Int: Int] = [:]

  public init() {}

  /// Adds a chunk; returns the text it added.
  @discardableResult
  public mutating func add(_ chunk: ChatCompletionChunk) -> String {
    chunkCount += 1
    if !chunk.model.isEmpty { model = chunk.model }
    if let usage = chunk.usage { self.usage = usage }
    var added = ""
    for choice in chunk.choices where choice.index == 0 {
      if let content = choice.delta.content, !content.isEmpty {
        text += content
        added += content
      }
      if let refused = choice.delta.refusal { refusal += refused }
      for piece in choice.delta.toolCalls ?? [] { add(piece) }
      if let reason = choice.finishReason { finishReason = reason }
      if let tokens = choice.logprobs?.content { logProbabilities = (logProbabilities ?? []) + tokens }
    }
    return added
  }

  private mutating func add(_ piece: ChatCompletionChunk.ToolCallDelta) {
    if let position = callPositions[piece.index],
       piece.id == nil || piece.id!.isEmpty || piece.id == toolCalls[position].id {
      if let name = piece.function?.name, !name.isEmpty, toolCalls[position].function.name.isEmpty {
        toolCalls[position].function.name = name
      }
      toolCalls[position].function.arguments += piece.function?.arguments ?? ""
      return
    }
    callPositions[piece.index] = toolCalls.count
    toolCalls.append(ChatToolCall(id: piece.id ?? "", name: piece.function?.name ?? "",
                                  arguments: piece.function?.arguments ?? ""))
  }
}
