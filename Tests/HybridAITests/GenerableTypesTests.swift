import HybridAI
import Testing

// Real @Generable types, compiled by the macro: their schemas, decoding, round trips and partial
// decoding. The expansions themselves are tested in HybridAIMacrosTests.

@Generable(description: "A recipe")
struct Recipe: Equatable {
  @Guide(description: "A short title") var title: String
  @Guide(description: "Stars", .range(1...5)) var rating: Int
  @Guide(.count(2...4)) var ingredients: [Ingredient]
  @Guide(.range(0.0...1.0)) var spiciness: Double
  var vegetarian: Bool
  @Guide(.range(1...5)) var difficulty: Int?
  var notes: String?
  var course: Course
  var serves: Int = 2
  let source: String = "test"       // not generated: a constant with a value
  var summary: String { title }     // not generated: computed
  static let sample = 1             // not generated: static
}

@Generable
struct Ingredient: Equatable {
  var name: String
  @Guide(.minimum(0)) var grams: Double
}

@Generable(description: "A course")
enum Course: Equatable {
  case starter, main, dessert
}

@Generable(description: "A shape")
enum Shape: Equatable {
  case circle(radius: Double)
  case rectangle(width: Double, height: Double)
  case point
  case labelled(String, size: Int?)
}

/// Every guide kind, on the types they apply to.
@Generable
struct GuideShowcase {
  @Guide(description: "d") var described: String
  @Guide(.count(3)) var three: [String]
  @Guide(.count(2...4)) var twoToFour: [String]
  @Guide(.anyOf(["a", "b"])) var letter: String
  @Guide(.pattern("[A-Z]{3}")) var code: String
  @Guide(.element(.range(1...9))) var digits: [Int]
  @Guide(.minimumCount(1), .maximumCount(5)) var tags: [String]
  @Guide(.constant("v1")) var version: String
  @Guide(.minimum(0), .maximum(10)) var score: Float
  @Guide(.range(1...5)) var rating: Int?
  @Guide(description: "nickname", .pattern("[a-z]+")) var nick: String?
  @Guide(.range(-5...5)) var small: Int8
  var big: UInt64
  var matrix: [[Int]]
  var optionalList: [String]?
  var generic: Array<Int>
  var wrapped: Optional<String>
}

@Generable
public struct PublicThing: Equatable {
  public var name: String
  public var parts: [PublicPart]

  public init(name: String, parts: [PublicPart]) {
    self.name = name
    self.parts = parts
  }
}

@Generable
public enum PublicPart: Equatable {
  case wheel, door
}

enum Namespace {
  @Generable
  struct Nested: Equatable {
    var inner: Inner?

    @Generable
    struct Inner: Equatable {
      var value: Int
    }
  }
}

@Generable
struct Empty: Equatable {}

@Generable(description: "A page of items")
struct Page<Item: Generable> {
  var items: [Item]
  var next: Item?
}

@Generable
struct WithPrivate {
  private var code: String
  var hint: String
  var codeLength: Int { code.count }
}

@Suite("@Generable types")
struct GenerableTypesTests {
  private func schema<T: Generable>(_ type: T.Type) -> [String: JSONValue] {
    guard case .object(let members) = T.generationSchema.jsonSchema else { return [:] }
    return members
  }

  private func property(_ name: String, of type: (some Generable).Type) -> JSONValue? {
    schema(type)["properties"]?[name]
  }

  private let recipeJSON = #"""
    {"title": "Pancakes", "rating": 4, "ingredients": [{"name": "flour", "grams": 200}, {"name": "milk", "grams": 300.5}],
     "spiciness": 0.1, "vegetarian": true, "difficulty": 2, "notes": "Fluffy \"American\" style", "course": "dessert",
     "serves": 4}
    """#

  private let recipe = Recipe(
    title: "Pancakes", rating: 4,
    ingredients: [Ingredient(name: "flour", grams: 200), Ingredient(name: "milk", grams: 300.5)],
    spiciness: 0.1, vegetarian: true, difficulty: 2, notes: "Fluffy \"American\" style", course: .dessert, serves: 4)

  // MARK: - Schemas

  @Test("a struct's schema: an object with its stored properties in order, titled and described")
  func structSchema() {
    let members = schema(Recipe.self)
    #expect(members["type"] == "object")
    #expect(members["title"] == "Recipe")
    #expect(members["description"] == "A recipe")
    #expect(members["additionalProperties"] == false)
    let names: [JSONValue] = ["title", "rating", "ingredients", "spiciness", "vegetarian", "difficulty", "notes", "course", "serves"]
    #expect(members["propertyOrdering"] == .array(names))
    #expect(members["required"] == ["title", "rating", "ingredients", "spiciness", "vegetarian", "course", "serves"])
    guard case .object(let properties) = members["properties"] else {
      Issue.record("no properties")
      return
    }
    #expect(Set(properties.keys) == Set(names.compactMap { if case .string(let name) = $0 { name } else { nil } }))
    #expect(properties["source"] == nil && properties["summary"] == nil && properties["sample"] == nil)
  }

  @Test("property schemas: types, descriptions and guides")
  func propertySchemas() {
    #expect(property("title", of: Recipe.self) == ["type": "string", "description": "A short title"])
    #expect(property("rating", of: Recipe.self) == ["type": "integer", "description": "Stars", "minimum": 1, "maximum": 5])
    #expect(property("spiciness", of: Recipe.self) == ["type": "number", "minimum": 0, "maximum": 1])
    #expect(property("vegetarian", of: Recipe.self) == ["type": "boolean"])
    // An optional property: the wrapped type's schema (guides applied), left out of `required`.
    #expect(property("difficulty", of: Recipe.self) == ["type": "integer", "minimum": 1, "maximum": 5])
    #expect(property("notes", of: Recipe.self) == ["type": "string"])
    #expect(property("course", of: Recipe.self) == [
      "type": "string", "title": "Course", "description": "A course", "enum": ["starter", "main", "dessert"],
    ])
  }

  @Test("nested objects and arrays of them, with count guides")
  func nestedSchemas() {
    let ingredient: JSONValue = [
      "type": "object", "title": "Ingredient",
      "properties": ["name": ["type": "string"], "grams": ["type": "number", "minimum": 0]],
      "required": ["name", "grams"], "propertyOrdering": ["name", "grams"], "additionalProperties": false,
    ]
    #expect(Ingredient.generationSchema.jsonSchema == ingredient)
    #expect(property("ingredients", of: Recipe.self) == ["type": "array", "items": ingredient, "minItems": 2, "maxItems": 4])
    #expect(property("inner", of: Namespace.Nested.self)?["title"] == "Inner")
  }

  @Test("every guide kind becomes its JSON Schema keywords")
  func guideKeywords() {
    let show = GuideShowcase.self
    #expect(property("described", of: show) == ["type": "string", "description": "d"])
    #expect(property("three", of: show) == ["type": "array", "items": ["type": "string"], "minItems": 3, "maxItems": 3])
    #expect(property("twoToFour", of: show) == ["type": "array", "items": ["type": "string"], "minItems": 2, "maxItems": 4])
    #expect(property("letter", of: show) == ["type": "string", "enum": ["a", "b"]])
    #expect(property("code", of: show) == ["type": "string", "pattern": "[A-Z]{3}"])
    #expect(property("digits", of: show) == ["type": "array", "items": ["type": "integer", "minimum": 1, "maximum": 9]])
    #expect(property("tags", of: show) == ["type": "array", "items": ["type": "string"], "minItems": 1, "maxItems": 5])
    #expect(property("version", of: show) == ["type": "string", "const": "v1"])
    #expect(property("score", of: show) == ["type": "number", "minimum": 0, "maximum": 10])
    #expect(property("rating", of: show) == ["type": "integer", "minimum": 1, "maximum": 5])
    #expect(property("nick", of: show) == ["type": "string", "description": "nickname", "pattern": "[a-z]+"])
    #expect(property("small", of: show) == ["type": "integer", "minimum": -5, "maximum": 5])
    #expect(property("big", of: show) == ["type": "integer", "minimum": 0])
    #expect(property("matrix", of: show) == ["type": "array", "items": ["type": "array", "items": ["type": "integer"]]])
    #expect(property("optionalList", of: show) == ["type": "array", "items": ["type": "string"]])
    #expect(property("generic", of: show) == ["type": "array", "items": ["type": "integer"]])
    #expect(property("wrapped", of: show) == ["type": "string"])
    #expect(schema(show)["required"] == [
      "described", "three", "twoToFour", "letter", "code", "digits", "tags", "version", "score", "small", "big",
      "matrix", "generic",
    ])
  }

  @Test("a string enum's schema: its case names")
  func stringEnumSchema() {
    #expect(Course.generationSchema.jsonSchema == [
      "type": "string", "title": "Course", "description": "A course", "enum": ["starter", "main", "dessert"],
    ])
    #expect(PublicPart.generationSchema.jsonSchema == ["type": "string", "title": "PublicPart", "enum": ["wheel", "door"]])
  }

  @Test("an enum with associated values: anyOf one object per case, \"case\" first and required")
  func associatedValueEnumSchema() {
    let members = schema(Shape.self)
    #expect(members["title"] == "Shape")
    #expect(members["description"] == "A shape")
    guard case .array(let choices) = members["anyOf"] else {
      Issue.record("no anyOf")
      return
    }
    #expect(choices.count == 4)
    #expect(choices.first == [
      "type": "object",
      "properties": ["case": ["type": "string", "const": "circle"], "radius": ["type": "number"]],
      "required": ["case", "radius"], "propertyOrdering": ["case", "radius"], "additionalProperties": false,
    ])
    #expect(choices.map { $0["properties"]?["case"]?["const"] } == ["circle", "rectangle", "point", "labelled"])
    #expect(choices[1]["propertyOrdering"] == ["case", "width", "height"])
    #expect(choices[2]["propertyOrdering"] == ["case"])
    #expect(choices[3]["propertyOrdering"] == ["case", "_0", "size"])
    #expect(choices[3]["required"] == ["case", "_0"])
  }

  @Test("an empty struct is an empty object")
  func emptySchema() throws {
    #expect(schema(Empty.self)["properties"] == [:])
    #expect(try Empty(GeneratedContent(json: "{}")) == Empty())
    #expect(Empty().generatedContent.jsonString == "{}")
  }

  // MARK: - Decoding and round trips

  @Test("decodes from JSON, and round-trips through generatedContent")
  func decodeAndRoundTrip() throws {
    let decoded = try Recipe(GeneratedContent(json: recipeJSON))
    #expect(decoded == recipe)
    let content = decoded.generatedContent
    #expect(content.propertyNames == ["title", "rating", "ingredients", "spiciness", "vegetarian", "difficulty", "notes", "course", "serves"])
    #expect(try Recipe(content) == recipe)
    #expect(try Recipe(GeneratedContent(json: content.jsonString)) == recipe)
  }

  @Test("missing optionals decode as nil and are left out of the content")
  func missingOptionals() throws {
    let json = #"{"title": "T", "rating": 1, "ingredients": [], "spiciness": 0, "vegetarian": false, "course": "main", "serves": 1}"#
    let decoded = try Recipe(GeneratedContent(json: json))
    #expect(decoded.difficulty == nil && decoded.notes == nil)
    #expect(!decoded.generatedContent.propertyNames.contains("notes"))
    #expect(try Recipe(GeneratedContent(json: #"{"title": "T", "rating": 1, "ingredients": [], "spiciness": 0, "vegetarian": false, "course": "main", "serves": 1, "notes": null}"#)).notes == nil)
  }

  @Test("enums decode from and encode to their case names or case objects")
  func enumRoundTrips() throws {
    #expect(try Course(GeneratedContent(json: #""main""#)) == .main)
    #expect(Course.dessert.generatedContent.jsonString == #""dessert""#)
    let shapes: [Shape] = [.circle(radius: 1.5), .rectangle(width: 2, height: 3), .point, .labelled("x", size: nil), .labelled("y", size: 3)]
    for shape in shapes {
      #expect(try Shape(shape.generatedContent) == shape)
      #expect(try Shape(GeneratedContent(json: shape.generatedContent.jsonString)) == shape)
    }
    #expect(Shape.rectangle(width: 2, height: 3).generatedContent.jsonString == #"{"case":"rectangle","width":2,"height":3}"#)
    #expect(Shape.labelled("x", size: nil).generatedContent.jsonString == #"{"case":"labelled","_0":"x"}"#)
    #expect(try Shape(GeneratedContent(json: #"{"case": "labelled", "_0": "z", "size": 9}"#)) == .labelled("z", size: 9))
  }

  @Test("public and nested types round-trip")
  func otherTypes() throws {
    let thing = PublicThing(name: "car", parts: [.wheel, .door])
    #expect(try PublicThing(thing.generatedContent) == thing)
    let nested = Namespace.Nested(inner: .init(value: 3))
    #expect(try Namespace.Nested(GeneratedContent(json: #"{"inner": {"value": 3}}"#)) == nested)
  }

  @Test("a generic struct: the schema follows the type argument")
  func genericStruct() throws {
    let page = try Page<Ingredient>(GeneratedContent(json: #"{"items": [{"name": "salt", "grams": 2}]}"#))
    #expect(page.items == [Ingredient(name: "salt", grams: 2)] && page.next == nil)
    #expect(property("items", of: Page<Int>.self) == ["type": "array", "items": ["type": "integer"]])
    #expect(property("next", of: Page<String>.self) == ["type": "string"])
    #expect(Page<Int>.PartiallyGenerated(try GeneratedContent(json: #"{"items": [1, 2]}"#)).items == [1, 2])
  }

  @Test("private stored properties are generated too")
  func privateProperties() throws {
    let value = try WithPrivate(GeneratedContent(json: #"{"code": "abc", "hint": "letters"}"#))
    #expect(value.codeLength == 3 && value.hint == "letters")
    #expect(value.generatedContent.jsonString == #"{"code":"abc","hint":"letters"}"#)
    #expect(schema(WithPrivate.self)["propertyOrdering"] == ["code", "hint"])
  }

  // MARK: - Errors

  @Test("a missing required property is a typed error")
  func missingProperty() {
    #expect(throws: GeneratedContentError.missingProperty("grams")) {
      try Ingredient(GeneratedContent(json: #"{"name": "salt"}"#))
    }
  }

  @Test("a value of the wrong type is a typed error with its path")
  func wrongType() {
    #expect(throws: GeneratedContentError.inProperty("grams", .typeMismatch(expected: "a number", found: GeneratedContent(kind: .string("ten"))))) {
      try Ingredient(GeneratedContent(json: #"{"name": "salt", "grams": "ten"}"#))
    }
    #expect(throws: GeneratedContentError.typeMismatch(expected: "an object", found: GeneratedContent(kind: .array([])))) {
      try Ingredient(GeneratedContent(json: "[]"))
    }
    let json = #"{"title": "T", "rating": 1, "ingredients": [{"name": "a", "grams": 1}, {"name": 2, "grams": 1}], "spiciness": 0, "vegetarian": false, "course": "main", "serves": 1}"#
    #expect(throws: GeneratedContentError.inProperty("ingredients", .inProperty("[1]", .inProperty("name", .typeMismatch(expected: "a string", found: GeneratedContent(kind: .number(2))))))) {
      try Recipe(GeneratedContent(json: json))
    }
  }

  @Test("an unknown enum case is an invalid value")
  func unknownCase() {
    #expect(throws: GeneratedContentError.invalidValue(GeneratedContent(kind: .string("brunch")), reason: "expected one of: starter, main, dessert")) {
      try Course(GeneratedContent(json: #""brunch""#))
    }
    #expect(throws: GeneratedContentError.inProperty("case", .invalidValue(GeneratedContent(kind: .string("oval")), reason: "expected one of: circle, rectangle, point, labelled"))) {
      try Shape(GeneratedContent(json: #"{"case": "oval"}"#))
    }
    #expect(throws: GeneratedContentError.missingProperty("case")) {
      try Shape(GeneratedContent(json: #"{"radius": 1}"#))
    }
    #expect(throws: GeneratedContentError.missingProperty("radius")) {
      try Shape(GeneratedContent(json: #"{"case": "circle"}"#))
    }
  }

  // MARK: - Partially generated values

  @Test("every prefix of the JSON decodes as PartiallyGenerated, and fields fill in as it grows")
  func partialPrefixes() throws {
    let text = recipeJSON
    var previous = Recipe.PartiallyGenerated()
    var decodedPrefixes = 0
    for end in text.indices {
      guard let content = GeneratedContent(partialJSON: String(text[..<end])) else { continue }
      let partial = Recipe.PartiallyGenerated(content)
      decodedPrefixes += 1
      // Once a field is there it stays, and strings only grow.
      if let title = previous.title { #expect(partial.title?.hasPrefix(title) == true) }
      if previous.rating != nil { #expect(partial.rating == 4) }
      if let ingredients = previous.ingredients { #expect((partial.ingredients?.count ?? -1) >= ingredients.count) }
      if previous.course != nil { #expect(partial.course == .dessert) }
      if let notes = previous.notes { #expect(partial.notes?.hasPrefix(notes) == true) }
      previous = partial
    }
    #expect(decodedPrefixes > text.count / 2)
    let full = Recipe.PartiallyGenerated(try GeneratedContent(json: text))
    #expect(full.title == "Pancakes" && full.rating == 4 && full.spiciness == 0.1 && full.vegetarian == true)
    #expect(full.difficulty == 2 && full.notes == "Fluffy \"American\" style" && full.course == .dessert && full.serves == 4)
    #expect(full.ingredients?.map(\.name) == ["flour", "milk"] && full.ingredients?.map(\.grams) == [200, 300.5])
  }

  @Test("a partial value has the fields generated so far")
  func partialFields() throws {
    let content = try #require(GeneratedContent(partialJSON: #"{"title": "Pan", "rating": 4, "ingredients": [{"name": "fl"#))
    let partial = Recipe.PartiallyGenerated(content)
    #expect(partial.title == "Pan")
    #expect(partial.rating == 4)
    #expect(partial.ingredients?.count == 1)
    #expect(partial.ingredients?.first?.name == "fl")
    #expect(partial.ingredients?.first?.grams == nil)
    #expect(partial.spiciness == nil && partial.course == nil)
    // A number at the end may still grow: it is not there yet.
    let growing = try #require(GeneratedContent(partialJSON: #"{"title": "P", "rating": 4"#))
    #expect(Recipe.PartiallyGenerated(growing).rating == nil)
  }

  @Test("PartiallyGenerated of a value that is not an object has no fields, without throwing")
  func partialOfWrongShape() {
    let partial = Recipe.PartiallyGenerated(GeneratedContent(kind: .string("oops")))
    #expect(partial.title == nil && partial.ingredients == nil)
    let typed = Recipe.PartiallyGenerated(GeneratedContent(kind: .structure(properties: ["title": GeneratedContent(kind: .number(1))], orderedKeys: ["title"])))
    #expect(typed.title == nil)
  }

  @Test("PartiallyGenerated has a memberwise initializer")
  func partialMemberwise() {
    let partial = GuideShowcase.PartiallyGenerated(described: "x", rating: 3)
    #expect(partial.described == "x" && partial.rating == 3 && partial.three == nil)
    let thing = PublicThing.PartiallyGenerated(name: "car")
    #expect(thing.name == "car" && thing.parts == nil)
  }
}
