// Generable conformances of the standard types a @Generable type may hold.

extension String: Generable {
  public static var generationSchema: GenerationSchema { GenerationSchema(jsonSchema: ["type": "string"]) }

  public init(_ content: GeneratedContent) throws {
    guard case .string(let value) = content.kind else {
      throw GeneratedContentError.typeMismatch(expected: "a string", found: content)
    }
    self = value
  }

  public var generatedContent: GeneratedContent { GeneratedContent(kind: .string(self)) }
}

extension Bool: Generable {
  public static var generationSchema: GenerationSchema { GenerationSchema(jsonSchema: ["type": "boolean"]) }

  public init(_ content: GeneratedContent) throws {
    guard case .bool(let value) = content.kind else {
      throw GeneratedContentError.typeMismatch(expected: "a boolean", found: content)
    }
    self = value
  }

  public var generatedContent: GeneratedContent { GeneratedContent(kind: .bool(self)) }
}

/// Integers: generated as JSON integers, checked to fit the Swift type.
public protocol GenerableInteger: Generable, FixedWidthInteger {}

extension GenerableInteger {
  public static var generationSchema: GenerationSchema {
    var schema: [String: JSONValue] = ["type": "integer"]
    if Self.bitWidth < 64 {
      schema["minimum"] = .number(Double(Self.min))
      schema["maximum"] = .number(Double(Self.max))
    } else if Self.min == 0 {
      schema["minimum"] = 0
    }
    return GenerationSchema(jsonSchema: .object(schema))
  }

  public init(_ content: GeneratedContent) throws {
    guard case .number(let value) = content.kind else {
      throw GeneratedContentError.typeMismatch(expected: "an integer", found: content)
    }
    guard value.rounded() == value, let exact = Self(exactly: value) else {
      throw GeneratedContentError.invalidValue(content, reason: "not an integer that fits \(Self.self)")
    }
    self = exact
  }

  public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(Double(self))) }
}

extension Int: GenerableInteger {}
extension Int8: GenerableInteger {}
extension Int16: GenerableInteger {}
extension Int32: GenerableInteger {}
extension Int64: GenerableInteger {}
extension UInt: GenerableInteger {}
extension UInt8: GenerableInteger {}
extension UInt16: GenerableInteger {}
extension UInt32: GenerableInteger {}
extension UInt64: GenerableInteger {}

extension Double: Generable {
  public static var generationSchema: GenerationSchema { GenerationSchema(jsonSchema: ["type": "number"]) }

  public init(_ content: GeneratedContent) throws {
    guard case .number(let value) = content.kind else {
      throw GeneratedContentError.typeMismatch(expected: "a number", found: content)
    }
    self = value
  }

  public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(self)) }
}

extension Float: Generable {
  public static var generationSchema: GenerationSchema { GenerationSchema(jsonSchema: ["type": "number"]) }

  public init(_ content: GeneratedContent) throws {
    self = Float(try Double(content))
  }

  public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(Double(self))) }
}

extension Array: ConvertibleFromGeneratedContent where Element: ConvertibleFromGeneratedContent {
  public init(_ content: GeneratedContent) throws {
    guard case .array(let elements) = content.kind else {
      throw GeneratedContentError.typeMismatch(expected: "an array", found: content)
    }
    self = try elements.enumerated().map { index, element in
      do { return try Element(element) } catch let error as GeneratedContentError { throw error.inProperty("[\(index)]") }
    }
  }
}

extension Array: ConvertibleToGeneratedContent where Element: ConvertibleToGeneratedContent {
  public var generatedContent: GeneratedContent { GeneratedContent(kind: .array(map(\.generatedContent))) }
}

extension Array: Generable where Element: Generable {
  public typealias PartiallyGenerated = [Element.PartiallyGenerated]

  public static var generationSchema: GenerationSchema {
    GenerationSchema.composing([SchemaRecursion.schema(of: Element.self)]) { ["type": "array", "items": $0[0]] }
  }
}

extension Optional: ConvertibleFromGeneratedContent where Wrapped: ConvertibleFromGeneratedContent {
  public init(_ content: GeneratedContent) throws {
    if case .null = content.kind { self = nil } else { self = try Wrapped(content) }
  }
}

extension Optional: ConvertibleToGeneratedContent where Wrapped: ConvertibleToGeneratedContent {
  public var generatedContent: GeneratedContent { self?.generatedContent ?? GeneratedContent(kind: .null) }
}

extension Optional: Generable where Wrapped: Generable {
  public typealias PartiallyGenerated = Wrapped.PartiallyGenerated?

  /// The wrapped type's schema, or `null`.
  public static var generationSchema: GenerationSchema {
    GenerationSchema.composing([SchemaRecursion.schema(of: Wrapped.self)]) { ["anyOf": [$0[0], ["type": "null"]]] }
  }
}

extension GeneratedContent: Generable {
  /// Any JSON value.
  public static var generationSchema: GenerationSchema { GenerationSchema(jsonSchema: [:]) }
  public init(_ content: GeneratedContent) throws { self = content }
  public var generatedContent: GeneratedContent { self }
}
