import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Holds back what native code writes to standard error while a call runs (file descriptor 2,
/// redirected into an unlinked temporary file). The LiteRT runtime announces itself
/// ("INFO: Created TensorFlow Lite XNNPACK delegate for CPU.") and reports operator errors there,
/// through loggers its C API cannot silence; `hybrid tflite` shows that text only with
/// `--verbose` or when the call fails.
///
/// Only for the command line, where nothing else writes to standard error at the same time: any
/// other thread's output during the call would be held back too.
enum StandardErrorCapture {
  /// Runs `body` with standard error captured; returns its result and the captured text.
  static func run<T>(_ body: () throws -> T) -> (result: Result<T, any Error>, captured: String) {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("hybrid-stderr-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)").path
    let file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
    guard file >= 0 else { return (Result { try body() }, "") }
    unlink(path)
    defer { close(file) }
    fflush(nil)
    let saved = dup(STDERR_FILENO)
    dup2(file, STDERR_FILENO)
    let result = Result { try body() }
    fflush(nil)
    dup2(saved, STDERR_FILENO)
    close(saved)
    return (result, readAll(file))
  }

  /// Runs `body`; unless `verbose`, what it writes to standard error is shown only if it throws.
  static func quiet<T>(verbose: Bool, _ body: () throws -> T) throws -> T {
    guard !verbose else { return try body() }
    let (result, captured) = run(body)
    if case .failure = result, !captured.isEmpty {
      FileHandle.standardError.write(Data(captured.utf8))
    }
    return try result.get()
  }

  private static func readAll(_ file: Int32) -> String {
    lseek(file, 0, SEEK_SET)
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = read(file, &buffer, buffer.count)
      guard count > 0 else { break }
      bytes.append(contentsOf: buffer[0..<count])
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
