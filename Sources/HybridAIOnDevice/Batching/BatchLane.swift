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

  /// The lane of `lanes` with the fewest unfinished requests, counting the new one; of equals,
  /// the one holding the longest start of the request's prompt (`cachedStarts`, by lane; none
  /// given: the first). Call it under one lock for all callers, so that a burst spreads evenly.
  static func leastLoaded(of lanes: [BatchLane], cachedStarts: [Int] = []) -> BatchLane {
    let cached = { (index: Int) in index < cachedStarts.count ? cachedStarts[index] : 0 }
    let index = lanes.indices.min { first, second in
      (lanes[first].requests, -cached(first)) < (lanes[second].requests, -cached(second))
    }!
    lanes[index].unfinished.add(1, ordering: .relaxed)
    return lanes[index]
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
