/// Turns a stream of bytes into text without ever splitting a character.
///
/// Tokens often end in the middle of a multi-byte UTF-8 character (emoji, CJK). The decoder keeps
/// the incomplete tail until the next bytes complete it. Invalid bytes become U+FFFD; a character
/// still incomplete when the stream ends is left out.
struct UTF8StreamDecoder {
  private var pending: [UInt8] = []

  /// Adds bytes; returns the text of every complete character so far.
  mutating func append(_ bytes: some Sequence<UInt8>) -> String {
    pending.append(contentsOf: bytes)
    let complete = completePrefixLength(of: pending)
    guard complete > 0 else { return "" }
    let text = String(decoding: pending[..<complete], as: UTF8.self)
    pending.removeFirst(complete)
    return text
  }

  /// Ends the stream. What is left is the start of a character the last token did not finish
  /// (an answer cut by its token limit inside an emoji): it is dropped, as a cut at a character
  /// boundary would have, rather than ending the text with U+FFFD.
  mutating func finish() -> String {
    pending.removeAll()
    return ""
  }

  /// The length of the longest prefix that does not end inside a character that may still be completed.
  private func completePrefixLength(of bytes: [UInt8]) -> Int {
    // Look back at most 3 bytes for the start of the last character.
    var index = bytes.count - 1
    let lowest = max(0, bytes.count - 4)
    while index >= lowest {
      let byte = bytes[index]
      if byte & 0b1100_0000 != 0b1000_0000 {          // not a continuation byte: a character starts here
        let needed = Self.sequenceLength(leadingByte: byte)
        return bytes.count - index >= needed ? bytes.count : index
      }
      index -= 1
    }
    return bytes.count   // only continuation bytes: invalid, let the decoder replace them
  }

  private static func sequenceLength(leadingByte byte: UInt8) -> Int {
    switch byte {
    case 0xF0...0xF7: 4
    case 0xE0...0xEF: 3
    case 0xC0...0xDF: 2
    default: 1
    }
  }
}
