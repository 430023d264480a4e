/// Whether the model may call tools in a round of the tool loop.
public enum ToolChoice: Sendable, Hashable, Codable {
  /// The model decides between answering and calling tools (the default).
  case automatic
  /// The model must call one or more tools; only those named, when `tools` is given. After the
  /// tools answered, the next round is ``automatic`` so the model can give its answer.
  case required(tools: [String]? = nil)
  /// The model must answer without calling tools.
  case none
}
