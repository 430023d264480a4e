/// A function the model may call while it answers.
///
/// ```swift
/// struct WeatherTool: Tool {
///   let name = "get_weather"
///   let description = "The current weather in a city"
///
///   @Generable struct Arguments {
///     @Guide(description: "The city") var city: String
///   }
///
///   func call(arguments: Arguments, context: ToolContext) async throws -> ToolOutput {
///     ToolOutput("Sunny, 21 °C in \(arguments.city)")
///   }
/// }
/// let session = GenerativeModelSession(model: model, tools: [WeatherTool()])
/// ```
/// The session runs the tool loop inside `respond`: when the model asks for tool calls, the
/// session calls the tools, records calls and outputs in the transcript, and asks the model again.
public protocol Tool<Arguments>: Sendable {
  /// The tool's arguments, decoded from what the model generated.
  associatedtype Arguments: ConvertibleFromGeneratedContent

  /// A unique name, made of letters, digits, `_` and `-` (the model calls the tool by it).
  var name: String { get }
  /// What the tool does and when to use it, for the model.
  var description: String { get }
  /// The shape of ``Arguments``; defaults to `Arguments.generationSchema`.
  var parameters: GenerationSchema { get }

  /// Runs the tool. A thrown error reaches the model as the tool's output unless the session is
  /// set to rethrow it (``ToolExecutionPolicy/failure``).
  func call(arguments: Arguments, context: ToolContext) async throws -> ToolOutput
}

extension Tool {
  /// The type's name.
  public var name: String { String(describing: Self.self) }
}

extension Tool where Arguments: Generable {
  public var parameters: GenerationSchema { Arguments.generationSchema }
}

extension Tool {
  /// The definition given to models.
  public var definition: ToolDefinition {
    ToolDefinition(name: name, description: description, parameters: parameters)
  }

  /// Decodes a model's arguments and calls the tool: what a session does for each tool call, for
  /// code that runs a tool loop of its own (a server running its tools for an API request).
  /// Arguments that do not decode throw ``GenerationError/invalidToolArguments(toolName:arguments:reason:)``.
  public func call(with arguments: GeneratedContent, context: ToolContext) async throws -> ToolOutput {
    let decoded: Arguments
    do {
      decoded = try Arguments(arguments)
    } catch {
      throw GenerationError.invalidToolArguments(toolName: name, arguments: arguments.jsonString, reason: "\(error)")
    }
    return try await call(arguments: decoded, context: context)
  }
}

/// What a tool call knows about the conversation it is part of.
public struct ToolContext: Sendable {
  /// The id of this call (matches ``Transcript/ToolCall/id``).
  public let callID: String
  /// The conversation so far, ending with the model's tool calls.
  public let transcript: Transcript
  /// Where the conversation's files are (the session's ``GenerativeModelSession/artifactStore``);
  /// read them with ``conversationFile(named:)`` and ``contents(of:)``.
  let artifactStore: (any ArtifactStore)?

  /// Receives progress reports (the session turns them into events).
  private let progressHandler: (@Sendable (_ fraction: Double, _ message: String) -> Void)?

  /// A context for one call; `artifactStore` holds the files of `transcript` (the session's store).
  public init(callID: String, transcript: Transcript, artifactStore: (any ArtifactStore)? = nil,
              progressHandler: (@Sendable (_ fraction: Double, _ message: String) -> Void)? = nil) {
    self.callID = callID
    self.transcript = transcript
    self.artifactStore = artifactStore
    self.progressHandler = progressHandler
  }

  /// Reports how far the tool has got (`fraction` in 0...1) and what it is doing, for a UI's
  /// progress bar. Cheap; call it as often as useful.
  public func report(progress fraction: Double, _ message: String = "") {
    progressHandler?(min(1, max(0, fraction)), message)
  }
}
