// JSON Schema text → GenerationSchema → JSONSchemaGrammarCompiler (GBNF), the path every
// `--schema` file, `responseJsonSchema` and tool parameters schema of a request takes to the
// on-device model; and the same text read as Gemini's OpenAPI subset (`responseSchema`,
// function declarations) first. Errors are expected; crashes and hangs are not.
//
// Property: a compiled grammar starts with its start rule.
import Foundation
import FuzzDriver
import HybridAI
import HybridAIGeminiWire
import HybridAIOnDevice

@_cdecl("FuzzSchemaGrammar_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
  // The input's length picks the compiler's settings, so the schema text itself stays as written.
  let compiler = count % 2 == 0
    ? JSONSchemaGrammarCompiler()
    : JSONSchemaGrammarCompiler(whitespace: .flexible(maximumIndent: count % 7))
  if let schema = try? GenerationSchema(jsonSchemaText: text) {
    compile(schema, with: compiler, asRule: count % 3 == 0)
  }
  if let json = try? JSONValue(jsonString: text), let schema = try? GenerationSchema(geminiSchema: json) {
    compile(schema, with: compiler, asRule: count % 3 == 1)
  }
  return 0
}

private func compile(_ schema: GenerationSchema, with compiler: JSONSchemaGrammarCompiler, asRule: Bool) {
  _ = schema.description
  if asRule {
    guard let compiled = try? compiler.compileRule(schema.jsonSchema, named: "args-fuzz") else { return }
    precondition(compiled.ruleName == "args-fuzz", "compileRule named its rule \(compiled.ruleName)")
    precondition(compiled.rules.hasPrefix("args-fuzz ::= "), "the rules do not start with their rule:\n\(compiled.rules)")
  } else {
    guard let grammar = try? compiler.compile(schema.jsonSchema) else { return }
    precondition(grammar.hasPrefix("root ::= "), "the grammar does not start with its root rule:\n\(grammar)")
  }
}
