import HybridAI

/// An error that says whether the model was reachable, as cloud backends' errors do: what a
/// ``ScriptedLanguageModel`` throws to stand for an offline or a rejecting cloud.
public struct ScriptedCloudError: ReachabilityError, Equatable {
  public var offlineReason: OfflineReason?
  public var status: Int

  public init(offlineReason: OfflineReason?, status: Int = 0) {
    self.offlineReason = offlineReason
    self.status = status
  }
}
