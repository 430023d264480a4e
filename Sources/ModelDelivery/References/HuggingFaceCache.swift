import Foundation

/// Hugging Face's shared model cache, as huggingface_hub and llama.cpp's `-hf` lay it out:
/// `models--ORG--REPO/refs/<branch>` holds a commit, `snapshots/<commit>/<file>` links to
/// `blobs/<sha256>`. A model either of them fetched is used from here without a byte downloaded.
public struct HuggingFaceCache: Sendable {
  /// The cache's folder (the one holding `models--…` folders).
  public let directory: URL

  public init(directory: URL) { self.directory = directory }

  /// The cache llama.cpp and huggingface_hub use, by the same precedence as llama.cpp: `$LLAMA_CACHE`,
  /// `$HF_HUB_CACHE`, `$HUGGINGFACE_HUB_CACHE`, `$HF_HOME/hub`, `$XDG_CACHE_HOME/huggingface/hub`,
  /// else `~/.cache/huggingface/hub`.
  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    let entries: [(variable: String, below: String)] = [
      ("LLAMA_CACHE", ""), ("HF_HUB_CACHE", ""), ("HUGGINGFACE_HUB_CACHE", ""), ("HF_HOME", "hub"),
      ("XDG_CACHE_HOME", "huggingface/hub"),
    ]
    for entry in entries {
      if let base = environment[entry.variable], !base.isEmpty {
        let url = URL(fileURLWithPath: base, isDirectory: true)
        self.init(directory: entry.below.isEmpty ? url : url.appendingPathComponent(entry.below, isDirectory: true))
        return
      }
    }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    self.init(directory: URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache/huggingface/hub"))
  }

  /// The folder of `repository` (`ORG/REPO`): `models--ORG--REPO`.
  public func folder(of repository: String) -> URL {
    directory.appendingPathComponent("models--" + repository.replacingOccurrences(of: "/", with: "--"), isDirectory: true)
  }

  /// The quantizations a default `hf:` reference tries, in order, as llama.cpp's `-hf` does.
  public static let defaultQuantizations = ["Q4_K_M", "Q8_0"]

  /// The cached model an `hf:` reference names: the snapshot its revision points at, the GGUF of
  /// its quantization (the first part of a split one) and the `mmproj` projector beside it.
  func locate(_ reference: ModelReference) throws(ModelReferenceError) -> LocalModel {
    guard case .huggingFace(let repository, let quantization, let revision) = reference else {
      preconditionFailure("not an hf: reference")
    }
    let folder = folder(of: repository)
    let snapshot = try snapshotFolder(in: folder, revision: revision ?? "main", reference: reference)
    let files = Self.files(below: snapshot)
    let models = files.filter(Self.isModel)
    guard let chosen = Self.model(among: models, quantization: quantization) else {
      if quantization == nil { throw .damaged(reference, reason: "the cached snapshot holds no GGUF model") }
      throw .quantizationNotFound(reference, available: Self.quantizations(in: models))
    }
    let projector = Self.projector(among: files, for: chosen)
    let weights = try checked(snapshot.appendingPathComponent(chosen), reference: reference)
    var projectorFile: URL?
    if let projector { projectorFile = try checked(snapshot.appendingPathComponent(projector), reference: reference) }
    return LocalModel(reference: reference, weights: weights, projector: projectorFile)
  }

  private func snapshotFolder(in folder: URL, revision: String, reference: ModelReference) throws(ModelReferenceError) -> URL {
    let snapshots = folder.appendingPathComponent("snapshots", isDirectory: true)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: snapshots.path, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw .notFound(reference, looked: folder.path)
    }
    if revision.wholeMatch(of: /[0-9a-f]{40}/) != nil,
       FileManager.default.fileExists(atPath: snapshots.appendingPathComponent(revision).path) {
      return snapshots.appendingPathComponent(revision, isDirectory: true)
    }
    let ref = folder.appendingPathComponent("refs").appendingPathComponent(revision)
    guard let text = try? String(contentsOf: ref, encoding: .utf8) else {
      throw .notFound(reference, looked: ref.path)
    }
    let commit = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard commit.wholeMatch(of: /[0-9a-f]{40}/) != nil else {
      throw .damaged(reference, reason: "\(ref.path) does not hold a commit")
    }
    let snapshot = snapshots.appendingPathComponent(commit, isDirectory: true)
    guard FileManager.default.fileExists(atPath: snapshot.path) else {
      throw .damaged(reference, reason: "\(ref.path) names commit \(commit), which has no snapshot")
    }
    return snapshot
  }

  /// `file`, once it is known to lead to a readable file inside the cache (a snapshot's file is a
  /// link into `blobs/`; a broken link or one that leads out of the cache is not used).
  private func checked(_ file: URL, reference: ModelReference) throws(ModelReferenceError) -> URL {
    let target = file.resolvingSymlinksInPath()
    let cache = directory.resolvingSymlinksInPath().path + "/"
    guard target.path.hasPrefix(cache) else {
      throw .damaged(reference, reason: "\(file.lastPathComponent) links outside the cache (\(target.path))")
    }
    guard FileManager.default.isReadableFile(atPath: target.path) else {
      throw .damaged(reference, reason: "\(file.lastPathComponent) is a broken link (\(target.path) is missing)")
    }
    // A blob named by its SHA-256 must hold those bytes: a truncated or damaged one is never loaded.
    let blob = target.lastPathComponent
    if target.deletingLastPathComponent().lastPathComponent == "blobs", VerifiedBlob.isSHA256(blob),
       !VerifiedBlob.isIntact(target.path, sha256: blob) {
      throw .damaged(reference, reason: "\(file.lastPathComponent)'s blob does not have the SHA-256 it is named by "
        + "(\(target.path)); fetching it again repairs it")
    }
    return file
  }

  /// The files below `folder`, as paths relative to it, sorted.
  static func files(below folder: URL) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
    var files: [String] = []
    while let path = enumerator.nextObject() as? String {
      if enumerator.fileAttributes?[.type] as? FileAttributeType != .typeDirectory { files.append(path) }
    }
    return files.sorted()
  }

  /// Whether `path` is a model's GGUF, not a projector, an importance matrix or a draft head.
  static func isModel(_ path: String) -> Bool {
    let name = (path as NSString).lastPathComponent.lowercased()
    return name.hasSuffix(".gguf") && !["mmproj", "imatrix", "mtp-", "eagle3-"].contains { name.contains($0) }
  }

  /// The model of `quantization` (tried as `-hf` does: the tag followed by `.` or `-`, any case),
  /// else of the default ones, else — with no quantization asked for — the first model. Split
  /// models count by their first part.
  static func model(among models: [String], quantization: String?) -> String? {
    let firstParts = models.filter { path in
      guard let split = path.firstMatch(of: /-(\d{5})-of-(\d{5})\.gguf$/) else { return true }
      return split.1 == "00001"
    }
    for tag in quantization.map({ [$0] }) ?? defaultQuantizations {
      if let found = firstParts.first(where: { matches($0, tag: tag) }) { return found }
    }
    return quantization == nil ? firstParts.first : nil
  }

  static func matches(_ path: String, tag: String) -> Bool {
    guard !tag.isEmpty else { return false }
    let name = path.lowercased(), tag = tag.lowercased()
    var start = name.startIndex
    while let range = name.range(of: tag, range: start..<name.endIndex) {
      if range.upperBound < name.endIndex, [".", "-"].contains(name[range.upperBound]) { return true }
      start = range.upperBound
    }
    return false
  }

  /// The quantization tag in a GGUF's name (`Q4_K_M`, `IQ2_XS`, `F16`, `BF16`, …), if it has one.
  static func quantization(in path: String) -> String? {
    let name = (path as NSString).lastPathComponent
    return name.firstMatch(of: /(?i)(?:^|[-_.])((?:I?Q\d(?:_[A-Z0-9]+)*)|BF16|F16|F32)(?=[-.])/).map { String($0.1).uppercased() }
  }

  static func quantizations(in models: [String]) -> [String] {
    Array(Set(models.compactMap(quantization(in:)))).sorted()
  }
}
