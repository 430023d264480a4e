import CLlama
import Foundation
import HybridAI

/// A chat template turns a transcript into the model's prompt text.
///
/// By default (``SystemLanguageModel/Configuration/chatTemplate`` `nil`) the model's own Jinja
/// template from the GGUF file (`tokenizer.chat_template`) runs, through llama.cpp's `common`
/// library: with its default system prompt, and with tool declarations, tool calls and tool
/// results in the model's own format when the template has them. A model without a template (a
/// base model) gets ChatML, and says so (``ChatTemplateDescription/Origin/fallback``).
///
/// ```swift
/// .jinja(source)          // a Jinja template of your own
/// .named("chatml")        // ChatML
/// .named("gemma")         // one of llama.cpp's built-in templates, applied by pattern (no Jinja)
/// ```
public struct ChatTemplate: Sendable, Hashable, CustomStringConvertible {
  enum Kind: Sendable, Hashable {
    /// Jinja source, or "chatml" (common's ChatML).
    case jinja(String)
    /// A name from ``ChatTemplate/builtInNames``, applied by llama.cpp's pattern matcher.
    case builtIn(String)
  }

  let kind: Kind

  /// The Jinja source or the built-in template's name.
  public var source: String {
    switch kind {
    case .jinja(let source), .builtIn(let source): source
    }
  }

  /// A Jinja chat template (Hugging Face's `chat_template` dialect).
  public static func jinja(_ source: String) -> ChatTemplate { ChatTemplate(kind: .jinja(source)) }

  /// A template by name: `chatml` (rendered as Jinja), or one of llama.cpp's built-in templates
  /// (``builtInNames``: `llama3`, `gemma`, `phi3`, …), which llama.cpp applies without running
  /// Jinja, so tools always use HybridAI's documented format with them.
  public static func named(_ name: String) -> ChatTemplate {
    ChatTemplate(kind: name == "chatml" ? .jinja(name) : .builtIn(name))
  }

  /// A Jinja template read from a file (`.jinja`).
  public init(contentsOf url: URL) throws {
    self.init(kind: .jinja(try String(contentsOf: url, encoding: .utf8)))
  }

  init(kind: Kind) { self.kind = kind }

  /// The names of llama.cpp's built-in templates.
  public static var builtInNames: [String] {
    var names = [UnsafePointer<CChar>?](repeating: nil, count: 128)
    let count = Int(llama_chat_builtin_templates(&names, names.count))
    return names.prefix(min(count, names.count)).compactMap { $0.map { String(cString: $0) } }
  }

  public var description: String { source.count > 40 ? "\(source.prefix(40))…" : source }

  /// The prompt text for these messages with a built-in template, ending where the assistant's
  /// answer begins.
  func renderBuiltIn(_ messages: [ChatTemplateRequest.Message]) throws(OnDeviceModelError) -> String {
    let cStrings = messages.map { (strdup($0.role), strdup($0.content ?? "")) }
    defer { cStrings.forEach { free($0.0); free($0.1) } }
    let chat = cStrings.map { llama_chat_message(role: $0.0, content: $0.1) }
    var capacity = messages.reduce(256) { $0 + 2 * (($1.content ?? "").utf8.count + 32) }
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

/// Which chat template a model runs, and what it can do (``SystemLanguageModel/chatTemplateDescription()``).
public struct ChatTemplateDescription: Sendable, Hashable {
  /// Where the template came from.
  public enum Origin: Sendable, Hashable {
    /// The GGUF file's own template.
    case model
    /// ``SystemLanguageModel/Configuration/chatTemplate``.
    case configured
    /// The model has no template: ChatML stands in (base models; name a template to change it).
    case fallback
  }

  public let origin: Origin
  /// The Jinja source (or a built-in template's name).
  public let source: String
  /// Whether tools, tool calls and tool results are written in the model's own format by its
  /// template; otherwise HybridAI's documented format is used (see docs/sessions.md).
  public let usesNativeToolFormat: Bool
}
