import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder

/// A property type (or enum associated value type) as `@Generable` reads it from the source.
///
/// The macro sees syntax only: `String`, `Bool`, the integer and floating-point types, arrays and
/// optionals are recognised by name; any other named type is taken to be `@Generable` (the
/// compiler reports it when it is not); types that can't be generated are diagnosed.
indirect enum GenerableType {
  case string(TypeSyntax)
  case integer(TypeSyntax)
  case floatingPoint(TypeSyntax)
  case bool(TypeSyntax)
  case array(element: GenerableType, TypeSyntax)
  case optional(wrapped: GenerableType, TypeSyntax)
  /// Another type, assumed to be `@Generable`.
  case named(TypeSyntax)

  /// The type as written (trimmed).
  var syntax: TypeSyntax {
    switch self {
    case .string(let type), .integer(let type), .floatingPoint(let type), .bool(let type), .named(let type),
      .array(_, let type), .optional(_, let type):
      type
    }
  }

  var isOptional: Bool {
    if case .optional = self { return true }
    return false
  }

  /// The type the schema describes: the wrapped type of an optional, the type itself otherwise.
  var schemaType: GenerableType {
    if case .optional(let wrapped, _) = self { return wrapped }
    return self
  }

  /// The type of a partially generated value of this type: `T.PartiallyGenerated` for a named
  /// type, `[E.PartiallyGenerated]` for arrays of them; standard types stay as they are.
  var partiallyGenerated: String {
    switch self {
    case .string(let type), .integer(let type), .floatingPoint(let type), .bool(let type): type.description
    case .array(let element, _): "[\(element.partiallyGenerated)]"
    case .optional(let wrapped, _): "\(wrapped.partiallyGenerated)?"
    case .named(let type): "\(type).PartiallyGenerated"
    }
  }

  /// The type of a `PartiallyGenerated` property holding this type (always optional).
  var optionalPartiallyGenerated: String {
    isOptional ? partiallyGenerated : partiallyGenerated + "?"
  }

  /// What kind of guides fit the type; `nil` when the macro can't tell (a named type may be a
  /// type alias of a standard type).
  var guideTarget: GuideTarget? {
    switch self {
    case .string: .strings
    case .integer, .floatingPoint: .numbers
    case .bool: GuideTarget.none
    case .array(let element, _): .arrays(element: element)
    case .optional(let wrapped, _): wrapped.guideTarget
    case .named: nil
    }
  }

  /// Whether the type holds a value of a type named one of `names` (the type being expanded:
  /// its schema would contain itself).
  func holds(anyOf names: Set<String>) -> Bool {
    switch self {
    case .string, .integer, .floatingPoint, .bool: false
    case .array(let element, _): element.holds(anyOf: names)
    case .optional(let wrapped, _): wrapped.holds(anyOf: names)
    case .named(let type): names.contains(type.description)
    }
  }

  // MARK: - Reading types

  private static let integerNames: Set<String> = [
    "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
  ]

  /// Reads `type`; on a type that can't be generated, appends an error to `diagnostics` and
  /// returns `nil`.
  static func read(_ type: TypeSyntax, diagnostics: inout [Diagnostic]) -> GenerableType? {
    let trimmed = type.trimmed

    func unsupported(_ reason: String, replacement: TypeSyntax? = nil) -> GenerableType? {
      var fixIts: [FixIt] = []
      if let replacement {
        let newType = replacement.with(\.leadingTrivia, type.leadingTrivia).with(\.trailingTrivia, type.trailingTrivia)
        fixIts.append(FixIt(
          message: GenerableFixIt(message: "Replace '\(trimmed)' with '\(replacement.trimmed)'"),
          changes: [.replace(oldNode: Syntax(type), newNode: Syntax(newType))]))
      }
      diagnostics.append(Diagnostic(
        node: type, message: GenerableDiagnostic.unsupportedType(trimmed.description, reason: reason), fixIts: fixIts))
      return nil
    }

    if let array = type.as(ArrayTypeSyntax.self) {
      guard let element = read(array.element, diagnostics: &diagnostics) else { return nil }
      return .array(element: element, trimmed)
    }
    if let optional = type.as(OptionalTypeSyntax.self) {
      guard let wrapped = read(optional.wrappedType, diagnostics: &diagnostics) else { return nil }
      return .optional(wrapped: wrapped, trimmed)
    }
    if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
      return unsupported("use an optional",
                         replacement: TypeSyntax(OptionalTypeSyntax(wrappedType: unwrapped.wrappedType.trimmed)))
    }
    if type.is(DictionaryTypeSyntax.self) {
      return unsupported("dictionaries can't be generated; use an array of a @Generable struct with key and value properties")
    }
    if let tuple = type.as(TupleTypeSyntax.self) {
      if tuple.elements.count == 1, let only = tuple.elements.first, only.firstName == nil, only.ellipsis == nil {
        return read(only.type, diagnostics: &diagnostics)   // parenthesized: (Int)
      }
      return unsupported("tuples can't be generated; use a @Generable struct")
    }
    if type.is(FunctionTypeSyntax.self) {
      return unsupported("functions can't be generated")
    }
    if let attributed = type.as(AttributedTypeSyntax.self) {
      return read(attributed.baseType, diagnostics: &diagnostics)
    }
    if type.is(SomeOrAnyTypeSyntax.self) || type.is(CompositionTypeSyntax.self) {
      return unsupported("existential and opaque types can't be generated; use a concrete @Generable type")
    }
    if type.is(MetatypeTypeSyntax.self) {
      return unsupported("metatypes can't be generated")
    }
    guard type.is(IdentifierTypeSyntax.self) || type.is(MemberTypeSyntax.self) else {
      return unsupported("this kind of type can't be generated")
    }
    guard let (name, arguments) = standardName(of: type) else { return .named(trimmed) }
    switch (name, arguments.count) {
    case ("String", 0): return .string(trimmed)
    case ("Bool", 0): return .bool(trimmed)
    case ("Double", 0), ("Float", 0): return .floatingPoint(trimmed)
    case (let name, 0) where integerNames.contains(name): return .integer(trimmed)
    case ("Array", 1):
      guard let element = read(arguments[0], diagnostics: &diagnostics) else { return nil }
      return .array(element: element, trimmed)
    case ("Optional", 1):
      guard let wrapped = read(arguments[0], diagnostics: &diagnostics) else { return nil }
      return .optional(wrapped: wrapped, trimmed)
    case ("Dictionary", _):
      return unsupported("dictionaries can't be generated; use an array of a @Generable struct with key and value properties")
    case ("Set", 1):
      return unsupported("use an array", replacement: TypeSyntax(ArrayTypeSyntax(element: arguments[0].trimmed)))
    case ("Set", _):
      return unsupported("use an array")
    case ("Any", 0), ("AnyObject", 0):
      return unsupported("existential and opaque types can't be generated; use a concrete @Generable type")
    case ("Date", 0):
      return unsupported("use a String (an ISO 8601 date) and convert it", replacement: "String")
    case ("URL", 0), ("UUID", 0):
      return unsupported("use a String and convert it", replacement: "String")
    case ("Data", 0):
      return unsupported("use a String (Base64) and convert it", replacement: "String")
    case ("Decimal", 0):
      return unsupported("use a Double", replacement: "Double")
    default:
      return .named(trimmed)
    }
  }

  /// The name and generic arguments of a type written as `Name<…>`, `Swift.Name<…>` or
  /// `Foundation.Name<…>`; `nil` for other types (`Outer.Inner`).
  private static func standardName(of type: TypeSyntax) -> (String, [TypeSyntax])? {
    let name: TokenSyntax
    let clause: GenericArgumentClauseSyntax?
    if let identifier = type.as(IdentifierTypeSyntax.self) {
      (name, clause) = (identifier.name, identifier.genericArgumentClause)
    } else if let member = type.as(MemberTypeSyntax.self),
              let base = member.baseType.as(IdentifierTypeSyntax.self),
              base.genericArgumentClause == nil, ["Swift", "Foundation"].contains(base.name.text) {
      (name, clause) = (member.name, member.genericArgumentClause)
    } else {
      return nil
    }
    let arguments: [TypeSyntax] = clause?.arguments.compactMap {
      if case .type(let type) = $0.argument { return type }
      return nil
    } ?? []
    return (name.text, arguments)
  }
}

/// What kind of values a property's guides may constrain.
enum GuideTarget {
  case strings
  case numbers
  case arrays(element: GenerableType)
  /// No guide fits (`Bool`).
  case none
}
