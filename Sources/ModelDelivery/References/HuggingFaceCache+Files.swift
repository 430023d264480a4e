import Foundation

extension HuggingFaceCache {
  /// Links `snapshots/<commit>/<file>` to the file's blob, with a relative link as
  /// huggingface_hub makes it (`../../blobs/<name>`, one `../` more per folder in the path).
  func linkSnapshot(of repository: String, commit: String, file: HuggingFaceHubFile) throws {
    guard let blobName = file.blobName else { return }
    let link = folder(of: repository).appendingPathComponent("snapshots/\(commit)/\(file.path)")
    let depth = file.path.split(separator: "/").count - 1
    let target = String(repeating: "../", count: depth + 2) + "blobs/" + blobName
    do {
      try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
      if (try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == target { return }
      try? FileManager.default.removeItem(at: link)
      try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target)
    } catch {
      throw HuggingFaceHubError.transferFailed(file: file.path, .writeFailed(path: link.path, errno: EIO))
    }
  }

  /// Writes `refs/<revision>` (a branch or tag) naming `commit`, atomically.
  func writeRef(of repository: String, revision: String, commit: String) throws {
    let ref = folder(of: repository).appendingPathComponent("refs/\(revision)")
    do {
      try FileManager.default.createDirectory(at: ref.deletingLastPathComponent(), withIntermediateDirectories: true)
      try POSIXFile.writeAtomically(Data(commit.utf8), to: ref.path)
    } catch {
      throw HuggingFaceHubError.transferFailed(file: "refs/\(revision)", .writeFailed(path: ref.path, errno: EIO))
    }
  }

  /// The parts of a split model among `files` (all of them, the first included, in order), or the
  /// model alone.
  static func splitParts(of model: String, among files: [String]) -> [String] {
    guard let split = model.firstMatch(of: /-00001-of-(\d{5})\.gguf$/) else { return [model] }
    let stem = model[..<split.range.lowerBound]
    return files.filter { $0.hasPrefix(stem) && $0.hasSuffix("-of-\(split.1).gguf") }.sorted()
  }

  /// The projector (`mmproj*.gguf`) among `paths` for the model `model`: the one of the model's
  /// quantization, else the first.
  static func projector(among paths: [String], for model: String) -> String? {
    let projectors = paths.filter { $0.hasSuffix(".gguf") && $0.lowercased().contains("mmproj") }.sorted()
    return projectors.first { matches($0, tag: quantization(in: model) ?? "") } ?? projectors.first
  }
}
