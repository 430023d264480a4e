import CLlama
import Foundation
import HybridAI

/// A chat template turns a transcript into the model's prompt text.
///
/// By default the template stored in the GGUF file is used. Models without one (base models)
/// need a template named explicitly, from the list llama.cpp knows (``ChatTemplate/builtInNames``).
///
/// Note: llama.cpp applies templates by recognising them, without running Jinja, so a template's
/// default system prompt (SmolLM2 has one) is not added: pass instructions to the session instead.
public struct ChatTemplate: Sendable, Hashable, CustomStringConvertible {
  /// A template name llama.cpp knows (`chatml`, `llama3`, `gemma`, …) or a template's Jinja source.
  public let source: String

  /// One of llama.cpp's built-in templates, by name.
  public static func named(_ name: String) -> ChatTemplate { ChatTemplate(source: name) }

  /// The names of llama.cpp's built-in templates.
  public static var builtInNames: [String] {
    var names = [UnsafePointer<CChar>?](repeating: nil, count: 128)
    let count = Int(llama_chat_builtin_templates(&names, names.count))
    return names.prefix(min(count, names.count)).compactMap { $0.map { String(cString: $0) } }
  }

  public var description: String { source.count > 40 ? "\(source.prefix(40))…" : source }

  /// The prompt text for these messages, ending where the assistant's answer begins.
  func render(_ messages: [TranscriptRendering.Message]) throws(OnDeviceModelError) -> String {
    let cStrings = messages.map { (strdup($0.role), strdup($0.content)) }
    defer { cStrings.forEach { free($0.0); free($0.1) } }
    let chat = cStrings.map { llama_chat_message(role: $0.0, content: $0.1) }
    var capacity = messages.reduce(256) { $0 + 2 * ($1.content.utf8.count + 32) }
    while true {
      var buffer = [CChar](repeating: 0, count: capacity)
      let length = Int(llama_chat_apply_template(source, chat, chat.count, true, &buffer, Int32(capacity)))
      if length < 0 { throw .unsupportedChatTemplate(description, known: Self.builtInNames) }
      if length <= capacity {
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      }
      capacity = length
    }
  }
}
