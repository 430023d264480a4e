import SwiftDiagnostics

/// The errors and warnings `@Generable` reports.
enum GenerableDiagnostic: DiagnosticMessage {
  /// `@Generable` on something other than a struct or an enum ("a class", "an actor", …).
  case unsupportedDeclaration(String)
  /// A type the macro cannot generate; `reason` says what it is and what to use instead.
  case unsupportedType(String, reason: String)
  /// A property (or associated value) holding the type itself: its schema would never end.
  case recursiveType(String, type: String)
  /// A stored property with no type annotation.
  case missingTypeAnnotation(String)
  /// A stored property bound by a tuple pattern (`var (a, b): (Int, Int)`).
  case tuplePattern
  /// An enum associated value labelled `case`, the key that names the case.
  case associatedValueNamedCase(String)
  /// A guide that is not written as `.name(arguments)`.
  case guideNotInline(String)
  /// A guide for another kind of value than the property's type (`.count` on a `String`).
  case guideDoesNotApply(String, applies: String, type: String)
  /// A `@Guide` on a property that is not generated.
  case guideIgnored(String)

  var message: String {
    switch self {
    case .unsupportedDeclaration(let kind):
      "@Generable applies to a struct or an enum, not to \(kind)"
    case .unsupportedType(let type, let reason):
      "@Generable does not support '\(type)': \(reason)"
    case .recursiveType(let name, let type):
      "'\(name): \(type)' contains the type itself: @Generable does not support recursive types"
    case .missingTypeAnnotation(let name):
      "'\(name)' needs a type annotation: @Generable reads the type from the declaration"
    case .tuplePattern:
      "@Generable does not support tuple patterns: declare one property per name"
    case .associatedValueNamedCase(let caseName):
      "an associated value of '\(caseName)' can't be labelled 'case': @Generable names the case in the \"case\" property"
    case .guideNotInline(let guide):
      "write the guide '\(guide)' inline, as '.name(arguments)': @Generable copies it into the schema"
    case .guideDoesNotApply(let guide, let applies, let type):
      "'.\(guide)' applies to \(applies), not to '\(type)'"
    case .guideIgnored(let what):
      "@Guide has no effect on \(what): it is not generated"
    }
  }

  var severity: DiagnosticSeverity {
    if case .guideIgnored = self { return .warning }
    return .error
  }

  var diagnosticID: MessageID {
    let id: String = switch self {
    case .unsupportedDeclaration: "unsupportedDeclaration"
    case .unsupportedType: "unsupportedType"
    case .recursiveType: "recursiveType"
    case .missingTypeAnnotation: "missingTypeAnnotation"
    case .tuplePattern: "tuplePattern"
    case .associatedValueNamedCase: "associatedValueNamedCase"
    case .guideNotInline: "guideNotInline"
    case .guideDoesNotApply: "guideDoesNotApply"
    case .guideIgnored: "guideIgnored"
    }
    return MessageID(domain: "HybridAIMacros.Generable", id: id)
  }
}

/// The text of a `@Generable` fix-it.
struct GenerableFixIt: FixItMessage {
  let message: String

  var fixItID: MessageID { MessageID(domain: "HybridAIMacros.Generable", id: message) }
}
