/// `text` as a Swift string literal (quotes and backslashes escaped).
func stringLiteral(_ text: String) -> String {
  var literal = "\""
  for character in text {
    if character == "\"" || character == "\\" { literal.append("\\") }
    literal.append(character)
  }
  return literal + "\""
}
