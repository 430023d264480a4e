extension BatchedLanguageModel {
  /// How a ``BatchedLanguageModel`` fits new requests' prompts between the decode steps of the
  /// requests already answering.
  public enum PromptScheduling: Sendable, Hashable {
    /// Prompts are evaluated in calls of their own, in chunks that follow ``SystemLanguageModel``'s
    /// passes, about 128 tokens a step while others decode: a request's answer is then bit for bit
    /// the one it gets alone (on a CPU), and a long prompt delays the running streams only a little
    /// per step. The default on a CPU, where a prompt token costs about as much as a decoded one.
    case reproducible
    /// Every step is one llama.cpp call holding each decoding request's next token and as many
    /// prompt tokens as fit beside them (four batches' worth), ordered so that llama.cpp evaluates
    /// them in as few passes as it can. New requests start answering within a step or two however
    /// many arrive at once; answers may round differently with the load. Each token's text (but an
    /// answer's first and last) is streamed while the next step computes, so on a GPU detokenising
    /// and handing text to the streams overlap the decode (on a CPU it only comes a step later).
    /// The default on a GPU, where a pass costs about the same whatever it holds.
    case throughput
  }
}
