import Foundation
import HybridAI
import HybridCommandLine

extension Terminal {
  /// Prints an answer to standard output as it grows and returns the final response. `prefix` is
  /// printed just before the first text (so log lines about routing come before it, not inside it).
  static func printStreaming(_ stream: GenerativeModelSession.ResponseStream<String>, prefix: String = "") async throws
    -> GenerativeModelSession.Response<String> {
    var printer = SnapshotPrinter()
    var printedPrefix = false
    for try await snapshot in stream {
      if !printedPrefix {
        write(prefix)
        printedPrefix = true
      }
      printer.printNew(of: snapshot.content)
    }
    return try await stream.collect()
  }

  /// Prints growing snapshots, each time only what is new.
  private struct SnapshotPrinter {
    private var printedScalars = 0

    mutating func printNew(of snapshot: String) {
      let scalars = snapshot.unicodeScalars
      guard scalars.count > printedScalars else { return }
      let new = String(String.UnicodeScalarView(scalars.dropFirst(printedScalars)))
      printedScalars = scalars.count
      Terminal.write(new)
    }
  }
}
