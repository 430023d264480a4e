import Foundation
import HybridAI

extension Gemini {
  /// What a ``Part`` holds: exactly one kind of data.
  public enum PartData: Sendable, Hashable {
    /// Text (`text`).
    case text(String)
    /// Bytes sent inline, base64-encoded (`inlineData`).
    case inlineData(Blob)
    /// A reference to an uploaded file (`fileData`).
    case fileData(FileData)
    /// A call of a declared function, made by the model (`functionCall`).
    case functionCall(FunctionCall)
    /// The result of a function call, sent back by the app (`functionResponse`).
    case functionResponse(FunctionResponse)
    /// Code the model wrote for the code-execution tool (`executableCode`).
    case executableCode(ExecutableCode)
    /// The result of running ``executableCode(_:)`` (`codeExecutionResult`).
    case codeExecutionResult(CodeExecutionResult)

    /// The JSON member name of this kind.
    public var kind: String {
      switch self {
      case .text: "text"
      case .inlineData: "inlineData"
      case .fileData: "fileData"
      case .functionCall: "functionCall"
      case .functionResponse: "functionResponse"
      case .executableCode: "executableCode"
      case .codeExecutionResult: "codeExecutionResult"
      }
    }
  }

  /// Bytes with their MIME type, base64-encoded on the wire.
  public struct Blob: Sendable, Hashable, Codable {
    /// The MIME type, e.g. `image/png`.
    public var mimeType: String
    /// The bytes, base64-encoded (standard alphabet, with padding).
    public var data: String

    /// A blob from base64 text as it appears on the wire.
    public init(mimeType: String, base64Data: String) {
      self.mimeType = mimeType
      self.data = base64Data
    }

    /// A blob from raw bytes.
    public init(mimeType: String, bytes: Data) {
      self.init(mimeType: mimeType, base64Data: bytes.base64EncodedString())
    }

    /// The decoded bytes, or `nil` when ``data`` is not valid base64. Like Google's API, both
    /// alphabets are read — the standard one and the URL-safe one (`-`, `_`; Google's Python client
    /// sends that) — with or without `=` padding.
    public var bytes: Data? {
      if let bytes = Data(base64Encoded: data) { return bytes }
      var standard = String(data.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
      standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
      return Data(base64Encoded: standard)
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyCodingKey.self)
      self.init(mimeType: try container.requiredWire(String.self, "mimeType"),
                base64Data: try container.requiredWire(String.self, "data"))
    }
  }

  /// A reference to a file uploaded through the Files API or stored elsewhere.
  public struct FileData: Sendable, Hashable, Codable {
    /// The MIME type, when known.
    public var mimeType: String?
    /// The file's URI.
    public var fileUri: String

    /// A file reference.
    public init(mimeType: String? = nil, fileUri: String) {
      self.mimeType = mimeType
      self.fileUri = fileUri
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyCodingKey.self)
      self.init(mimeType: try container.wire(String.self, "mimeType"),
                fileUri: try container.requiredWire(String.self, "fileUri"))
    }
  }

  /// A function call the model asks the app to make.
  public struct FunctionCall: Sendable, Hashable, Codable {
    /// The call's identifier, to be echoed in the matching ``FunctionResponse``.
    public var id: String?
    /// The declared function's name.
    public var name: String
    /// The arguments, a JSON object.
    public var args: JSONValue?

    /// A function call.
    public init(id: String? = nil, name: String, args: JSONValue? = nil) {
      self.id = id
      self.name = name
      self.args = args
    }
  }

  /// The result of a ``FunctionCall``, sent back to the model.
  public struct FunctionResponse: Sendable, Hashable, Codable {
    /// The identifier of the call this answers.
    public var id: String?
    /// The function's name.
    public var name: String
    /// The result, a JSON object (by convention `{"output": …}` or `{"error": …}`).
    public var response: JSONValue
    /// Whether more responses to the same call follow (non-blocking calls).
    public var willContinue: Bool?

    /// A function result.
    public init(id: String? = nil, name: String, response: JSONValue, willContinue: Bool? = nil) {
      self.id = id
      self.name = name
      self.response = response
      self.willContinue = willContinue
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyCodingKey.self)
      self.init(id: try container.wire(String.self, "id"), name: try container.requiredWire(String.self, "name"),
                response: try container.wire(JSONValue.self, "response") ?? .object([:]),
                willContinue: try container.wire(Bool.self, "willContinue"))
    }
  }

  /// Code written by the model for the code-execution tool.
  public struct ExecutableCode: Sendable, Hashable, Codable {
    /// The language, e.g. `PYTHON`.
    public var language: String
    /// The code.
    public var code: String

    /// Code in `language`.
    public init(language: String, code: String) {
      self.language = language
      self.code = code
    }
  }

  /// The outcome of running ``ExecutableCode``.
  public struct CodeExecutionResult: Sendable, Hashable, Codable {
    /// `OUTCOME_OK`, `OUTCOME_FAILED`, `OUTCOME_DEADLINE_EXCEEDED`.
    public var outcome: String
    /// Standard output, or the error.
    public var output: String?

    /// A code execution result.
    public init(outcome: String, output: String? = nil) {
      self.outcome = outcome
      self.output = output
    }
  }
}
