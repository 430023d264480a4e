import HybridAI

extension GenerationRequest {
  /// The request for choice `index` of several (OpenAI's `n`): a seeded sampling's seed moves by
  /// `index`, so the choices differ and each is repeatable; choice 0 is the request itself (the
  /// answer `n: 1` gives). Greedy and unseeded requests are unchanged (greedy choices are alike).
  func forChoice(_ index: Int) -> GenerationRequest {
    guard index > 0 else { return self }
    var request = self
    switch options.sampling?.strategy {
    case .nucleus(let threshold, let seed?)?:
      request.options.sampling = .random(probabilityThreshold: threshold, seed: seed &+ UInt64(index))
    case .topK(let top, let seed?)?:
      request.options.sampling = .random(top: top, seed: seed &+ UInt64(index))
    default:
      break
    }
    return request
  }
}
