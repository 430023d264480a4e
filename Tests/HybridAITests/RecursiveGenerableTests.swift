import HybridAI
import Testing

// Mutually recursive @Generable types: a folder holds files, a file may name the folder it was
// copied from. Their schemas refer to each other through `$defs` instead of recursing forever.

@Generable(description: "A folder")
struct Folder: Equatable {
  var name: String
  @Guide(.maximumCount(3)) var files: [File]
}

@Generable(description: "A file")
struct File: Equatable {
  var name: String
  var copiedFrom: Folder?
}

@Suite struct RecursiveGenerableTests {
  /// Every `$ref` in `value`.
  static func references(in value: JSONValue) -> [String] {
    switch value {
    case .object(let members):
      return members.flatMap { key, member in
        if key == "$ref", case .string(let reference) = member { return [reference] }
        return references(in: member)
      }
    case .array(let items): return items.flatMap(references(in:))
    default: return []
    }
  }

  /// Whether `value` has a `$defs` anywhere.
  static func containsDefinitions(_ value: JSONValue) -> Bool {
    switch value {
    case .object(let members): members["$defs"] != nil || members.values.contains(where: containsDefinitions)
    case .array(let items): items.contains(where: containsDefinitions)
    default: false
    }
  }

  @Test func theSchemaRefersBackThroughDefinitionsAtItsTop() throws {
    let schema = Folder.generationSchema.jsonSchema
    guard case .object(let top) = schema, case .object(let definitions)? = top["$defs"] else {
      Issue.record("no $defs at the top: \(schema.jsonString)")
      return
    }
    #expect(top["title"] == "Folder")
    let references = Self.references(in: schema)
    #expect(!references.isEmpty)
    for reference in references {
      let name = try #require(reference.split(separator: "/").last.map(String.init))
      #expect(reference.hasPrefix("#/$defs/") && definitions[name] != nil, "\(reference) does not resolve")
    }
    // Definitions sit only at the top.
    var rest = top
    rest["$defs"] = nil
    #expect(!Self.containsDefinitions(.object(rest)))
    #expect(!definitions.values.contains(where: Self.containsDefinitions))
    // Built the same way every time.
    #expect(Folder.generationSchema == Folder.generationSchema)
    #expect(File.generationSchema.jsonSchema.jsonString.contains("#/$defs/"))
  }

  @Test func nestedValuesValidateAndRoundTrip() throws {
    let folder = Folder(name: "docs", files: [
      File(name: "a.txt", copiedFrom: Folder(name: "old", files: [File(name: "b.txt", copiedFrom: nil)])),
      File(name: "c.txt", copiedFrom: nil),
    ])
    let validator = JSONSchemaValidator(schema: Folder.generationSchema.jsonSchema)
    #expect(validator.validate(folder.generatedContent.jsonValue).isEmpty)
    #expect(try Folder(folder.generatedContent) == folder)

    let wrong: JSONValue = ["name": "docs", "files": [["name": "a", "copiedFrom": ["name": "old", "files": "none"]]]]
    #expect(!validator.validate(wrong).isEmpty)
    let tooMany: JSONValue = ["name": "d", "files": [["name": "1"], ["name": "2"], ["name": "3"], ["name": "4"]]]
    #expect(!validator.validate(tooMany).isEmpty)
  }
}
