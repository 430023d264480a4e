/// A failure after part of the answer had come: the error, and the text so far. The CLI shows the
/// error as it is and marks the text as incomplete (`--json`: `partialText`).
struct PartialAnswerFailure: Error, CustomStringConvertible {
  /// What went wrong.
  let error: any Error
  /// The answer's text before it broke off.
  let partialText: String

  var description: String { String(describing: error) }
}
