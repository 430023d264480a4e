// Text → GeneratedContent: `init(partialJSON:)`, which reads the beginning of a structured answer
// while it streams (every prefix the model has produced so far), and `init(json:)` for the whole
// answer.
//
// Properties, for text that parses as complete JSON: its written form (`jsonString`) parses back
// to the same content (numbers that are not finite are written as `null`, so those are left out);
// read as partial JSON, it gives the same content (unless the whole text is one number, which
// partial reading leaves out because it may still grow); the JSONValue form converts back.
import Foundation
import FuzzDriver
import HybridAI

@_cdecl("FuzzPartialJSON_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
  let partial = GeneratedContent(partialJSON: text)
  if let partial { _ = partial.jsonString }
  // A few of the prefixes a stream passes through.
  for length in [text.utf8.count / 2, text.utf8.count - 1] where length > 0 {
    let prefix = String(decoding: text.utf8.prefix(length), as: UTF8.self)
    if let content = GeneratedContent(partialJSON: prefix) { _ = content.jsonString }
  }

  guard let complete = try? GeneratedContent(json: text) else { return 0 }
  let written = complete.jsonString
  let reread: GeneratedContent
  do {
    reread = try GeneratedContent(json: written)
  } catch {
    fatalError("the written form of parsed JSON does not parse: \(error)\nwritten: \(written)")
  }
  if !hasNonFiniteNumber(complete) {
    precondition(reread == complete, "parse → write → parse changed the content:\n\(written)\n\(reread.jsonString)")
  }
  if case .number = complete.kind {} else {
    precondition(partial == complete, "partial reading of complete JSON differs: \(String(describing: partial))")
  }
  precondition(complete.isComplete, "complete JSON parsed as incomplete")
  _ = GeneratedContent(complete.jsonValue)
  _ = complete.propertyNames
  return 0
}

private func hasNonFiniteNumber(_ content: GeneratedContent) -> Bool {
  switch content.kind {
  case .number(let value): !value.isFinite
  case .array(let elements): elements.contains(where: hasNonFiniteNumber)
  case .structure(let properties, _): properties.values.contains(where: hasNonFiniteNumber)
  case .null, .bool, .string: false
  }
}
