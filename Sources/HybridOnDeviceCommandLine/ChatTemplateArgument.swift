import Foundation
import HybridAIOnDevice

/// The value of `--chat-template` (`generate`, `chat`, `serve`): a Jinja file, `chatml`, or the
/// name of one of llama.cpp's built-in templates. Checked before any model loads, so a typo is a
/// usage error naming it rather than a failed first answer.
public enum ChatTemplateArgument {
  /// The template `value` names: the Jinja file at that path when there is one, else `chatml` or a
  /// built-in template's name (``ChatTemplate/builtInNames``).
  public static func template(_ value: String) throws(ChatTemplateArgumentError) -> ChatTemplate {
    guard !value.isEmpty else { throw ChatTemplateArgumentError("needs a .jinja file or a template name such as chatml") }
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: value, isDirectory: &isFolder) {
      guard !isFolder.boolValue else { throw ChatTemplateArgumentError("\(value) is a folder, not a .jinja file") }
      do {
        return try ChatTemplate(contentsOf: URL(fileURLWithPath: value))
      } catch {
        let reason = FileManager.default.isReadableFile(atPath: value) ? "it is not UTF-8 text" : "permission denied"
        throw ChatTemplateArgumentError("cannot read \(value) (\(reason))")
      }
    }
    if value.contains("/") || value.hasSuffix(".jinja") { throw ChatTemplateArgumentError("no file at \(value)") }
    let builtIn = ChatTemplate.builtInNames
    let names = builtIn.contains("chatml") ? builtIn : ["chatml"] + builtIn
    guard names.contains(value) else {
      throw ChatTemplateArgumentError("\(value) is neither a file nor a template name; give a .jinja file or one of: "
        + names.joined(separator: ", "))
    }
    return .named(value)
  }
}

/// Why a `--chat-template` value names no template.
public struct ChatTemplateArgumentError: Error, CustomStringConvertible, Sendable {
  public let description: String

  init(_ description: String) { self.description = description }
}
