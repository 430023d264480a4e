import Foundation

/// Writing to the terminal: unbuffered standard output for streamed text, standard error for status.
public enum Terminal {
  /// Writes `text` to standard output as it is (no newline added).
  public static func write(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
  }

  /// Writes `text` and a newline to standard error.
  public static func status(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }
}
