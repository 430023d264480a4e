import Crypto
import Foundation
import Logging

extension HuggingFaceHubClient {
  /// Makes sure the cache holds `file`'s blob with the right hash: kept when it is there and whole,
  /// else downloaded (resuming `blobs/<name>.incomplete`), checked, and renamed into place.
  /// `progress` gets the file's bytes so far.
  func ensureBlob(_ file: HuggingFaceHubFile, repository: String, commit: String,
                  progress: @escaping @Sendable (Int64) -> Void) async throws {
    guard let blobName = file.blobName, blobName.wholeMatch(of: /[0-9a-f]{40}|[0-9a-f]{64}/) != nil else {
      throw HuggingFaceHubError.invalidResponse("\(file.path) is listed without a hash")
    }
    let blobs = cache.folder(of: repository).appendingPathComponent("blobs", isDirectory: true)
    let blob = blobs.appendingPathComponent(blobName).path
    do {
      try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
    } catch {
      throw HuggingFaceHubError.transferFailed(file: file.path, .writeFailed(path: blobs.path, errno: EACCES))
    }
    if POSIXFile.regularFileSize(atPath: blob) == file.size {
      if (try? Self.hasHash(of: file, at: blob)) == true {
        if file.sha256 != nil { VerifiedBlob.remember(blob) }
        logger.debug("already in the cache", metadata: ["file": "\(file.path)", "blob": "\(blobName)"])
        progress(file.size)
        return
      }
      logger.warning("a cached blob does not have its hash; fetching it again", metadata: ["blob": "\(blob)"])
    }
    POSIXFile.unlinkIfPresent(blob)
    let info = PartInfo(sha256: blobName, sizeBytes: file.size, version: commit)
    let mapFailure = { (failure: POSIXFile.Failure) in
      HuggingFaceHubError.transferFailed(file: file.path, ModelDownloadError(
        failure, required: file.size, in: blobs, probe: StatvfsDiskSpaceProbe(), logger: logger))
    }
    let part: PartialDownload
    do {
      part = try PartialDownload.open(at: blob + ".incomplete", infoPath: nil, name: file.path, for: info, logger: logger)
    } catch {
      throw mapFailure(error)
    }
    var downloader = BlobDownloader(httpClient: httpClient, retryPolicy: retryPolicy, logger: logger)
    if let token = configuration.token { downloader.headers = [("Authorization", "Bearer \(token)")] }
    downloader.resumesIfUnchanged = false   // the URL names the commit: the file cannot change
    do {
      try await downloader.download(
        from: downloadURL(repository: repository, commit: commit, file: file.path), into: part, name: file.path,
        beforeRetry: {}, onProgress: progress,
        mapFileFailure: { ModelDownloadError($0, required: file.size, in: blobs, probe: StatvfsDiskSpaceProbe(), logger: logger) })
      try await part.finishWrites()
    } catch let error as ModelDownloadError {
      part.close()
      throw HuggingFaceHubError.transferFailed(file: file.path, error)
    } catch let failure as POSIXFile.Failure {
      part.close()
      throw mapFailure(failure)
    } catch {
      part.close()   // cancelled: the part stays for a later resume
      throw error
    }
    if let sha256 = file.sha256, part.digest() != sha256 {
      let actual = part.digest()
      part.discard()
      throw HuggingFaceHubError.transferFailed(file: file.path, .hashMismatch(expected: sha256, actual: actual))
    }
    do {
      try part.syncAndClose()
      if file.sha256 == nil, let id = file.gitBlobID, try !Self.hasGitBlobID(id, at: part.path) {
        part.discard()
        throw HuggingFaceHubError.transferFailed(file: file.path, .hashMismatch(expected: id, actual: "another Git blob id"))
      }
      try POSIXFile.rename(part.path, to: blob)
      POSIXFile.syncDirectory(blobs.path)
      if file.sha256 != nil { VerifiedBlob.remember(blob) }   // its hash was checked as it arrived
    } catch let failure as POSIXFile.Failure {
      throw mapFailure(failure)
    }
    logger.info("downloaded into the cache", metadata: ["file": "\(file.path)", "blob": "\(blob)", "bytes": "\(file.size)"])
  }

  /// Whether the file at `path` has `file`'s hash (its LFS SHA-256, else its Git blob id).
  static func hasHash(of file: HuggingFaceHubFile, at path: String) throws -> Bool {
    if let sha256 = file.sha256 { return try FileHashing.sha256(ofFileAt: path) == sha256 }
    if let id = file.gitBlobID { return try hasGitBlobID(id, at: path) }
    return false
  }

  /// Whether the file at `path` has Git blob id `id` (SHA-1 of `blob <size>\0` and the bytes).
  static func hasGitBlobID(_ id: String, at path: String) throws -> Bool {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var hasher = Insecure.SHA1()
    hasher.update(data: Data("blob \(data.count)\0".utf8))
    hasher.update(data: data)
    return hasher.finalize().map { String(format: "%02x", $0) }.joined() == id
  }
}
