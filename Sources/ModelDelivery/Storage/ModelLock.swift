import Foundation

/// An exclusive `flock` on a model's lock file, held while a download writes its part and installs
/// it, so that two downloaders (in this process or others) never write the same part.
///
/// `flock` locks belong to an open file description, so two opens in one process exclude each
/// other too. Waiting polls with a non-blocking attempt, so no thread blocks and cancellation works.
final class ModelLock {
  private let fd: Int32

  private init(fd: Int32) { self.fd = fd }

  /// Takes the lock at `path`, waiting (checking cancellation) while another holder has it.
  static func acquire(at path: String, pollInterval: Duration = .milliseconds(20)) async throws -> ModelLock {
    let fd = try POSIXFile.open(path, O_RDWR | O_CREAT)
    while true {
      if flock(fd, LOCK_EX | LOCK_NB) == 0 { return ModelLock(fd: fd) }
      let code = errno
      guard code == EWOULDBLOCK || code == EINTR else {
        close(fd)
        throw POSIXFile.Failure(operation: "flock", path: path, code: code)
      }
      do {
        try await Task.sleep(for: pollInterval)
      } catch {
        close(fd)
        throw error
      }
    }
  }

  /// Releases the lock.
  func release() {
    flock(fd, LOCK_UN)
    close(fd)
  }
}
