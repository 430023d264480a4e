// An on-device answer → tool calls. The on-device parser (`ToolCallFormat.parseCalls` in
// HybridAIOnDevice) is internal, so this target reads `<tool_call>` blocks the way it does, with the
// public pieces it is made of: each block's body through `GeneratedContent(json:)`, then its
// `name` and `arguments` properties, into a `Transcript.ToolCall`.
//
// Property: a call written back in the block format (as `ToolCallFormat.render` writes it) reads
// back as the same call (arguments with numbers that are not finite are left out: they are written
// as `null`).
import Foundation
import FuzzDriver
import HybridAI

@_cdecl("FuzzToolCallParser_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

private let callOpening = "<tool_call>\n"
private let callClosing = "\n</tool_call>"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
  for call in calls(in: text) {
    _ = call.arguments.jsonString
    _ = call.arguments.jsonValue
    guard !hasNonFiniteNumber(call.arguments) else { continue }
    let written = callOpening + "{\"name\": " + JSONValue.string(call.toolName).jsonString + ", \"arguments\": "
      + call.arguments.jsonString + "}" + callClosing
    let reread = calls(in: written)
    precondition(reread.count == 1, "a written call reads back as \(reread.count) calls:\n\(written)")
    precondition(reread[0].toolName == call.toolName, "the name changed: \(call.toolName) → \(reread[0].toolName)")
    precondition(reread[0].arguments == call.arguments, "the arguments changed:\n\(written)")
  }
  return 0
}

/// The complete calls in `text`; a block whose body is not a call is skipped (the on-device parser
/// throws there).
private func calls(in text: String) -> [Transcript.ToolCall] {
  var calls: [Transcript.ToolCall] = []
  var rest = Substring(text)
  while let start = rest.range(of: callOpening) {
    guard let end = rest.range(of: callClosing, range: start.upperBound..<rest.endIndex) else { break }
    let body = String(rest[start.upperBound..<end.lowerBound])
    rest = rest[end.upperBound...]
    guard let content = try? GeneratedContent(json: body),
          let name = try? content.value(String.self, forProperty: "name"),
          let arguments = try? content.value(GeneratedContent.self, forProperty: "arguments") else { continue }
    calls.append(Transcript.ToolCall(id: "call_fuzz", toolName: name, arguments: arguments))
  }
  return calls
}

private func hasNonFiniteNumber(_ content: GeneratedContent) -> Bool {
  switch content.kind {
  case .number(let value): !value.isFinite
  case .array(let elements): elements.contains(where: hasNonFiniteNumber)
  case .structure(let properties, _): properties.values.contains(where: hasNonFiniteNumber)
  case .null, .bool, .string: false
  }
}
