import Synchronization

/// Schemas of mutually recursive `@Generable` types (a `Folder` holds `File`s, a `File` names its
/// `Folder`) would otherwise be built forever. Property schemas are built through
/// ``GenerationSchema/Property``; while a property's type is being built, meeting that type again
/// yields `{"$ref": "#/$defs/<Type>"}` and the type's whole schema becomes a definition. Objects,
/// `anyOf`s, arrays and optionals hoist their parts' `$defs` to their own top, so every reference
/// resolves from the root of the schema a model receives.
enum SchemaRecursion {
  /// The types being built in one (synchronous) schema build, and the definitions it made.
  final class Build: Sendable {
    struct State {
      var inProgress: Set<ObjectIdentifier> = []
      var referenced: Set<ObjectIdentifier> = []
      var definitions: [String: JSONValue] = [:]
    }
    let state = Mutex(State())
  }

  @TaskLocal static var current: Build?

  /// `Value`'s schema, or a reference to it when it is already being built further up. Arrays and
  /// optionals are never definitions themselves (their element is): a guide such as a count
  /// stays on the array, next to the reference to its element.
  static func schema<Value: Generable>(of type: Value.Type) -> GenerationSchema {
    guard let current else {
      let build = Build()
      let built = $current.withValue(build) { Self.schema(of: type) }
      return built.addingDefinitions(build.state.withLock { $0.definitions })
    }
    return Value.self is any SchemaWrapper.Type ? Value.generationSchema : schema(of: type, in: current)
  }

  private static func schema<Value: Generable>(of type: Value.Type, in build: Build) -> GenerationSchema {
    let id = ObjectIdentifier(type)
    let name = definitionName(of: type)
    let isCycle = build.state.withLock { state in
      if state.inProgress.contains(id) {
        state.referenced.insert(id)
        return true
      }
      state.inProgress.insert(id)
      return false
    }
    if isCycle { return reference(to: name) }
    let schema = Value.generationSchema
    let isReferenced = build.state.withLock { state in
      state.inProgress.remove(id)
      return state.referenced.contains(id)
    }
    guard isReferenced else { return schema }
    let (body, nested) = schema.removingDefinitions()
    build.state.withLock { state in
      state.definitions.merge(nested) { first, _ in first }
      state.definitions[name] = body.jsonSchema
    }
    return reference(to: name)
  }

  static func reference(to name: String) -> GenerationSchema {
    GenerationSchema(jsonSchema: ["$ref": .string("#/$defs/\(name)")])
  }

  /// The type's name with anything but letters, digits, `_`, `.` and `-` replaced by `_`
  /// (`Array<File>` → `Array_File_`), usable in a JSON pointer as is.
  static func definitionName<Value>(of type: Value.Type) -> String {
    let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
    return String(String(describing: type).map { allowed.contains($0) ? $0 : "_" })
  }
}

/// A type whose schema wraps another's (arrays, optionals): its element type is what a cycle
/// refers to.
protocol SchemaWrapper {}

extension Array: SchemaWrapper {}
extension Optional: SchemaWrapper {}

extension GenerationSchema {
  /// This schema without its top-level `$defs`, and those definitions.
  func removingDefinitions() -> (schema: GenerationSchema, definitions: [String: JSONValue]) {
    guard case .object(var members) = jsonSchema, case .object(let definitions)? = members.removeValue(forKey: "$defs")
    else { return (self, [:]) }
    return (GenerationSchema(jsonSchema: .object(members)), definitions)
  }

  /// This schema with `definitions` added to its top-level `$defs` (kept first on a name clash).
  func addingDefinitions(_ definitions: [String: JSONValue]) -> GenerationSchema {
    guard !definitions.isEmpty, case .object(var members) = jsonSchema else { return self }
    var merged: [String: JSONValue] = [:]
    if case .object(let existing)? = members["$defs"] { merged = existing }
    merged.merge(definitions) { first, _ in first }
    members["$defs"] = .object(merged)
    return GenerationSchema(jsonSchema: .object(members))
  }

  /// Builds a schema from `parts`, their `$defs` hoisted to its top: `make` gets the parts'
  /// schemas without them.
  static func composing(_ parts: [GenerationSchema], _ make: ([JSONValue]) -> JSONValue) -> GenerationSchema {
    var definitions: [String: JSONValue] = [:]
    let bodies = parts.map { part in
      let (body, nested) = part.removingDefinitions()
      definitions.merge(nested) { first, _ in first }
      return body.jsonSchema
    }
    return GenerationSchema(jsonSchema: make(bodies)).addingDefinitions(definitions)
  }
}
