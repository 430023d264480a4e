import Foundation

/// Writing to the terminal: unbuffered standard output for streamed text, standard error for status.
enum Terminal {
  static func write(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
  }

  static func status(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  /// Prints a stream of growing snapshots as it grows; returns nothing, the caller collects.
  struct SnapshotPrinter {
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
