// A JSON Schema and a JSON instance → JSONSchemaValidator, which checks cloud models' structured
// answers and tool arguments against schemas that requests bring. The input is the schema, a 0x00
// byte and the instance (without a 0x00 byte, the schema document is its own instance).
//
// Properties: `check` throws exactly the violations `validate` returns; a validator made without a
// schema agrees with one made for it; the empty schema `{}` accepts everything.
import Foundation
import FuzzDriver
import HybridAI

@_cdecl("FuzzSchemaValidator_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let bytes = UnsafeRawBufferPointer(start: start, count: count)
  let separator = bytes.firstIndex(of: 0)
  let schemaData = Data(bytes[..<(separator ?? count)])
  let instanceData = separator.map { Data(bytes[($0 + 1)...]) } ?? schemaData
  let decoder = JSONDecoder()
  guard let schema = try? decoder.decode(JSONValue.self, from: schemaData),
        let instance = try? decoder.decode(JSONValue.self, from: instanceData) else { return 0 }

  let validator = JSONSchemaValidator(schema: schema)
  let violations = validator.validate(instance)
  do {
    try validator.check(instance)
    precondition(violations.isEmpty, "check accepted what validate rejects: \(violations)")
  } catch {
    precondition(error.violations == violations, "check and validate disagree: \(error.violations) vs \(violations)")
  }
  let unbound = JSONSchemaValidator().validate(instance, against: schema)
  precondition(unbound == violations, "a validator without a schema disagrees: \(unbound) vs \(violations)")
  let anything = JSONSchemaValidator().validate(instance, against: .object([:]))
  precondition(anything.isEmpty, "the empty schema rejected a value: \(anything)")

  for violation in violations { _ = violation.description }
  if case .string(let reference) = instance { _ = schema.value(atReference: reference) }
  return 0
}
