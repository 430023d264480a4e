import CLlama
import Foundation
import Logging
import Synchronization

/// Loads a draft model (``SpeculativeDecoding/draftModelPath``) and checks, once per pair of
/// weights, that it can propose tokens for the model: the same kind of tokenizer, the same start
/// and end tokens, vocabularies of nearly the same size (up to ``allowedSizeDifference``: models of
/// one family pad theirs differently) and the same text for every token both have. A draft model
/// larger than the model it drafts for is allowed, with a warning: drafting then costs more than it saves.
final class DraftModelPairing: Sendable {
  static let shared = DraftModelPairing()

  /// How many more or fewer tokens a draft model's vocabulary may have.
  static let allowedSizeDifference = 128

  private struct Pair: Hashable {
    let draft: ObjectIdentifier
    let model: ObjectIdentifier
  }

  private let checked = Mutex<[Pair: OnDeviceModelError?]>([:])
  private let logger = Logger(label: "HybridAI.llama.speculation")

  /// The draft model at `path`, loaded once per process and checked against `weights`. Throws
  /// ``OnDeviceModelError/invalidDraftModel(path:reason:)`` when it is missing, does not load, or
  /// does not fit.
  func draftWeights(at path: String, for weights: LlamaModelWeights) async throws -> LlamaModelWeights {
    let draft: LlamaModelWeights
    do {
      draft = try await LlamaWeightsCache.shared.weights(at: path)
    } catch OnDeviceModelError.modelFileMissing {
      throw OnDeviceModelError.invalidDraftModel(path: path, reason: "there is no file there")
    } catch OnDeviceModelError.invalidModelFile(_, let reason) {
      throw OnDeviceModelError.invalidDraftModel(path: path, reason: reason)
    }
    let pair = Pair(draft: ObjectIdentifier(draft), model: ObjectIdentifier(weights))
    if let known = checked.withLock({ $0[pair] }) {
      if let known { throw known }
      return draft
    }
    let problem = Self.mismatch(of: draft, with: weights).map { OnDeviceModelError.invalidDraftModel(path: path, reason: $0) }
    checked.withLock { $0[pair] = .some(problem) }
    if let problem { throw problem }
    if llama_model_size(draft.pointer) > llama_model_size(weights.pointer) {
      logger.warning("the draft model is larger than the model it drafts for: drafting will cost more than it saves", metadata: [
        "draftModel": "\(path)", "model": "\(weights.path)",
      ])
    } else {
      logger.info("drafting with a draft model", metadata: ["draftModel": "\(path)", "model": "\(weights.path)"])
    }
    return draft
  }

  /// Why `draft` cannot draft for `model`, or `nil` when it can.
  static func mismatch(of draft: LlamaModelWeights, with model: LlamaModelWeights) -> String? {
    guard draft.canForgetLastTokens else {
      return "its memory (a recurrent or hybrid architecture) cannot drop the drafts the model rejects"
    }
    let draftType = llama_vocab_type(draft.vocab), modelType = llama_vocab_type(model.vocab)
    guard draftType == modelType else {
      return "its tokenizer is \(tokenizerName(draftType)), the model's \(tokenizerName(modelType))"
    }
    let difference = abs(draft.vocabularySize - model.vocabularySize)
    guard difference <= allowedSizeDifference else {
      return "its vocabulary has \(draft.vocabularySize) tokens, the model's \(model.vocabularySize) "
        + "(a draft model needs the model's vocabulary)"
    }
    for (name, ofDraft, ofModel) in [("start", llama_vocab_bos(draft.vocab), llama_vocab_bos(model.vocab)),
                                     ("end", llama_vocab_eos(draft.vocab), llama_vocab_eos(model.vocab))]
    where ofDraft != ofModel {
      return "its \(name) token is \(ofDraft), the model's \(ofModel)"
    }
    for token in 0..<Int32(min(draft.vocabularySize, model.vocabularySize)) {
      let ofDraft = String(cString: llama_vocab_get_text(draft.vocab, token))
      let ofModel = String(cString: llama_vocab_get_text(model.vocab, token))
      guard ofDraft == ofModel else {
        return "token \(token) is \(ofDraft.debugDescription) there and \(ofModel.debugDescription) in the model"
      }
    }
    return nil
  }

  /// llama.cpp's name for a kind of tokenizer (`llama_vocab_type`).
  private static func tokenizerName(_ type: llama_vocab_type) -> String {
    switch type {
    case LLAMA_VOCAB_TYPE_SPM: "SentencePiece (SPM)"
    case LLAMA_VOCAB_TYPE_BPE: "byte-level BPE"
    case LLAMA_VOCAB_TYPE_WPM: "WordPiece (WPM)"
    case LLAMA_VOCAB_TYPE_UGM: "Unigram (UGM)"
    case LLAMA_VOCAB_TYPE_RWKV: "RWKV"
    case LLAMA_VOCAB_TYPE_NONE: "none"
    default: "of type \(type.rawValue)"
    }
  }
}
