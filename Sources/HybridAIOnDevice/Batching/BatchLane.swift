import Synchronization

/// One of the llama.cpp contexts a ``BatchedLanguageModel`` spreads its sequences over
/// (``BatchedLanguageModel/Configuration/contexts``): its scheduler and how many requests given
/// to it have not ended yet.
final class BatchLane: Sendable {
  let scheduler: BatchScheduler
  private let unfinished = Atomic<Int>(0)

  init(scheduler: BatchScheduler) {
    self.scheduler = scheduler
  }

  /// Requests given to this context that have not ended (waiting or decoding).
  var requests: Int { unfinished.load(ordering: .relaxed) }

  /// The lane of `lanes` with the fewest unfinished requests (the first of equals), counting the
  /// new one. Call it under one lock for all callers, so that a burst spreads evenly.
  static func leastLoaded(of lanes: [BatchLane]) -> BatchLane {
    let lane = lanes.min { $0.requests < $1.requests }!
    lane.unfinished.add(1, ordering: .relaxed)
    return lane
  }

  fileprivate func requestEnded() {
    unfinished.subtract(1, ordering: .relaxed)
  }
}

/// The lane a request was given, released once when its stream ends, whichever comes first: the
/// lane's choice or the end (a consumer that went away before the request was placed).
final class BatchLaneAssignment: Sendable {
  private let state = Mutex<(lane: BatchLane?, ended: Bool)>((nil, false))

  /// Places the request on the lane `choose` returns, unless its stream has ended already.
  func assign(_ choose: () throws(OnDeviceModelError) -> BatchLane) throws -> BatchLane {
    try state.withLock { state in
      guard !state.ended else { throw CancellationError() }
      let lane = try choose()
      state.lane = lane
      return lane
    }
  }

  /// The request's stream ended: its lane counts it no more.
  func end() {
    let lane = state.withLock { state in
      defer { state = (nil, true) }
      return state.lane
    }
    lane?.requestEnded()
  }
}
