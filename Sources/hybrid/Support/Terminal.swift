import Foundation
import HybridAI
import HybridCommandLine

extension Terminal {
  /// Prints an answer to standard output as it grows and returns the final response. `prefix` is
  /// printed just before the first text (so log lines about routing come before it, not inside it).
  /// A failure after some text came is thrown as a ``PartialAnswerFailure``.
  static func printStreaming(_ stream: GenerativeModelSession.ResponseStream<String>, prefix: String = "") async throws
    -> GenerativeModelSession.Response<String> {
    var printer = SnapshotPrinter()
    var printedPrefix = false
    return try await collect(stream) { snapshot in
      if !printedPrefix {
        write(prefix)
        printedPrefix = true
      }
      printer.printNew(of: snapshot.content)
    }
  }

  /// Runs `stream` to its final response, showing each snapshot to `onSnapshot`; a failure after
  /// some text came is thrown as a ``PartialAnswerFailure`` holding that text (a stop asked for
  /// stays a `CancellationError`).
  static func collect<Content>(_ stream: GenerativeModelSession.ResponseStream<Content>,
                               onSnapshot: (GenerativeModelSession.ResponseStream<Content>.Snapshot) -> Void = { _ in })
    async throws -> GenerativeModelSession.Response<Content> {
    var partialText = ""
    do {
      for try await snapshot in stream {
        partialText = snapshot.rawContent
        onSnapshot(snapshot)
      }
      return try await stream.collect()
    } catch where !(error is CancellationError) && !partialText.isEmpty {
      throw PartialAnswerFailure(error: error, partialText: partialText)
    }
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
