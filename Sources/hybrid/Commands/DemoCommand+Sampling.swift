import HybridAI

extension DemoCommand {
  /// The tour's sampling for the on-device model: greedy, so every run shows the same answers,
  /// with the standard ``LoopPenalty``. SmolLM2-135M decoded greedily falls into loops ("to call
  /// tools. to call tools. …"); the loop penalty breaks them and leaves lists alone (a repetition
  /// penalty of 1.3 also ended the loops, but garbled numbered lists; 1.1 did not end them).
  static func onDeviceOptions(maximumResponseTokens: Int, toolChoice: ToolChoice? = nil,
                              unreadableAttachments: UnreadableAttachmentPolicy? = nil) -> GenerationOptions {
    GenerationOptions(sampling: .greedy, maximumResponseTokens: maximumResponseTokens, loopPenalty: .standard,
                      toolChoice: toolChoice, unreadableAttachments: unreadableAttachments)
  }
}
