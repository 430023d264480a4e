/// How full a ``BatchedLanguageModel``'s batch is.
public struct BatchOccupancy: Sendable, Hashable {
  /// Requests decoding together now (the batch's width).
  public var active: Int
  /// Requests waiting for a free sequence.
  public var waiting: Int

  public init(active: Int, waiting: Int) {
    self.active = active
    self.waiting = waiting
  }
}
