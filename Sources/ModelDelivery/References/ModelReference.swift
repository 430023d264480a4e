import Foundation

/// A model as people name it: a GGUF file, a model in Hugging Face's shared cache
/// (`hf:ORG/REPO[:QUANT][@REVISION]`, as llama.cpp's `-hf` and huggingface_hub keep it), a model
/// pulled by Ollama (`ollama:NAME[:TAG]`), or a model of a HybridAI registry (`registry:NAME`,
/// delivered by ``ModelDownloader``).
///
/// ```swift
/// let reference = try ModelReference("hf:ggml-org/SmolLM2-135M-Instruct-GGUF:Q8_0")
/// let model = try LocalModelResolver().resolve(reference)   // the cached file; nothing downloaded
/// let system = SystemLanguageModel(modelPath: model.weights.path)
/// ```
public enum ModelReference: Sendable, Hashable, CustomStringConvertible {
  /// A GGUF file on this machine.
  case file(String)
  /// A repository on the Hugging Face Hub: `repository` is `ORG/REPO`; `quantization` picks the
  /// GGUF by its tag (`Q4_K_M` when `nil`, as `-hf` does); `revision` is a branch, tag or commit
  /// (`main` when `nil`).
  case huggingFace(repository: String, quantization: String?, revision: String?)
  /// A model in Ollama's store: `name` as Ollama names it (`qwen2.5`, `NAMESPACE/NAME`, or
  /// `HOST/NAMESPACE/NAME`), `tag` (`latest` by default).
  case ollama(name: String, tag: String)
  /// A model of a HybridAI registry (`hybrid serve`), by its name there: the copy
  /// ``ModelDownloader`` installed, fetched when there is none.
  case registry(name: String)

  /// The reference `text` names: `hf:…`, `ollama:…`, `registry:…`, or else a file path.
  /// - Throws: ``ModelReferenceError/malformed(_:reason:)`` for an `hf:`, `ollama:` or `registry:` reference
  ///   that does not follow its form.
  public init(_ text: String) throws(ModelReferenceError) {
    if text.hasPrefix("hf:") {
      self = try Self.huggingFace(parsing: String(text.dropFirst(3)), whole: text)
    } else if text.hasPrefix("ollama:") {
      self = try Self.ollama(parsing: String(text.dropFirst(7)), whole: text)
    } else if text.hasPrefix("registry:") {
      let name = String(text.dropFirst("registry:".count))
      guard ModelName.isValid(name) else {
        throw .malformed(text, reason: "expected registry:NAME, NAME being 1–64 of letters, digits, '_' and '-'")
      }
      self = .registry(name: name)
    } else {
      guard !text.isEmpty else { throw .malformed(text, reason: "an empty model reference") }
      self = .file(text)
    }
  }

  public var description: String {
    switch self {
    case .file(let path): path
    case .huggingFace(let repository, let quantization, let revision):
      "hf:\(repository)" + (quantization.map { ":\($0)" } ?? "") + (revision.map { "@\($0)" } ?? "")
    case .ollama(let name, let tag): "ollama:\(name):\(tag)"
    case .registry(let name): "registry:\(name)"
    }
  }

  /// Whether the model is fetched when this machine lacks it (`hf:` from the Hub, `registry:` from
  /// a registry; see ``ModelReferenceFetcher``) rather than only looked up.
  public var isFetchedWhenMissing: Bool {
    switch self {
    case .huggingFace, .registry: true
    case .file, .ollama: false
    }
  }

  /// A short name for the model (a served model's default name): the file's, the repository's or
  /// Ollama's, lowercased.
  public var shortName: String {
    switch self {
    case .file(let path): URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent.lowercased()
    case .huggingFace(let repository, _, _):
      String(repository.split(separator: "/").last ?? Substring(repository)).lowercased()
        .replacingOccurrences(of: "-gguf", with: "")
    case .ollama(let name, _): String(name.split(separator: "/").last ?? Substring(name)).lowercased()
    case .registry(let name): name.lowercased()
    }
  }

  /// A name's part: letters, digits, `.`, `_` and `-`, not starting with a punctuation mark.
  private static func isNamePart(_ part: Substring) -> Bool {
    part.wholeMatch(of: /[A-Za-z0-9][A-Za-z0-9._-]*/) != nil && !part.contains("..")
  }

  private static func huggingFace(parsing rest: String, whole: String) throws(ModelReferenceError) -> ModelReference {
    var body = Substring(rest)
    var revision: String?
    if let at = body.lastIndex(of: "@") {
      revision = String(body[body.index(after: at)...])
      body = body[..<at]
      guard let revision, !revision.isEmpty, !revision.contains(".."), revision.wholeMatch(of: /[A-Za-z0-9._\/-]+/) != nil else {
        throw .malformed(whole, reason: "the revision after @ must be a branch, tag or commit")
      }
    }
    var quantization: String?
    if let colon = body.firstIndex(of: ":") {
      quantization = String(body[body.index(after: colon)...])
      body = body[..<colon]
      guard let quantization, quantization.wholeMatch(of: /[A-Za-z0-9_.-]+/) != nil else {
        throw .malformed(whole, reason: "the quantization after : must be a tag such as Q4_K_M")
      }
    }
    let parts = body.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, parts.allSatisfy(isNamePart) else {
      throw .malformed(whole, reason: "expected hf:ORG/REPO[:QUANT][@REVISION]")
    }
    return .huggingFace(repository: String(body), quantization: quantization, revision: revision)
  }

  private static func ollama(parsing rest: String, whole: String) throws(ModelReferenceError) -> ModelReference {
    var name = Substring(rest), tag = "latest"
    if let colon = rest.lastIndex(of: ":"), !rest[colon...].contains("/") {
      tag = String(rest[rest.index(after: colon)...])
      name = rest[..<colon]
    }
    let parts = name.split(separator: "/", omittingEmptySubsequences: false)
    guard (1...3).contains(parts.count), parts.allSatisfy(isNamePart),
          isNamePart(Substring(tag)) else {
      throw .malformed(whole, reason: "expected ollama:NAME[:TAG], NAME as NAME, NAMESPACE/NAME or HOST/NAMESPACE/NAME")
    }
    return .ollama(name: String(name), tag: tag)
  }
}
