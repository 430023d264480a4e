import Foundation
import HybridAI
import HybridAIHTTP
import HybridAIOpenAI
import HybridAIServerTestSupport
import HybridAITestSupport

/// Retries fast enough for tests.
let fastRetries = HTTPRetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(2), maxBackoff: .milliseconds(10))

/// An OpenAI-compatible model pointed at a test server's `/v1`.
func openAIModel(_ server: TestHTTPServer, name: String = "test-model", apiKey: String? = "test-key",
                 retryPolicy: HTTPRetryPolicy = fastRetries) -> OpenAIModel {
  OpenAIModel(name: name, apiKey: apiKey, baseURL: server.baseURL.appendingPathComponent("v1"),
              configuration: OpenAIModel.Configuration(connectTimeout: .seconds(30), readTimeout: .seconds(120),
                                                       retryPolicy: retryPolicy))
}

/// A one-prompt generation request.
func request(_ prompt: String = "Hello", options: GenerationOptions = GenerationOptions(),
             tools: [ToolDefinition] = [], responseFormat: ResponseFormat? = nil) -> GenerationRequest {
  GenerationRequest(transcript: Transcript(entries: [.prompt(Transcript.Prompt(text: prompt))]), options: options,
                    tools: tools, responseFormat: responseFormat)
}

/// One `chat.completion.chunk` as a server sends it.
func chunk(content: String? = nil, role: String? = nil, toolCalls: String? = nil, finish: String? = nil,
           refusal: String? = nil, model: String = "served-model") -> String {
  var delta: [String] = []
  if let role { delta.append(#""role": "\#(role)""#) }
  if let content { delta.append(#""content": \#(jsonString(content))"#) }
  if let refusal { delta.append(#""refusal": \#(jsonString(refusal))"#) }
  if let toolCalls { delta.append(#""tool_calls": \#(toolCalls)"#) }
  let reason = finish.map { #""\#($0)""# } ?? "null"
  return #"{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "\#(model)", "choices": [{"index": 0, "delta": {\#(delta.joined(separator: ", "))}, "finish_reason": \#(reason)}]}"#
}

/// The usage chunk (`include_usage`): no choices.
func usageChunk(prompt: Int, completion: Int, cached: Int? = nil) -> String {
  let details = cached.map { #", "prompt_tokens_details": {"cached_tokens": \#($0)}"# } ?? ""
  return #"{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "served-model", "choices": [], "usage": {"prompt_tokens": \#(prompt), "completion_tokens": \#(completion), "total_tokens": \#(prompt + completion)\#(details)}}"#
}

func jsonString(_ text: String) -> String {
  String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
}

/// The JSON body of a recorded request.
func jsonBody(_ request: TestHTTPServer.Request) throws -> JSONValue {
  try JSONDecoder().decode(JSONValue.self, from: request.body)
}

extension GenerationOutcome {
  var openAIError: OpenAIError? { error as? OpenAIError }
}

/// A weather tool's definition: `{"city": string}`, required, nothing else.
let weatherTool = ToolDefinition(name: "get_weather", description: "The weather in a city.", parameters: GenerationSchema(
  jsonSchema: ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"],
               "additionalProperties": false]))
