import Foundation
import HybridAI
import Logging

/// A served model that also offers the operator's own tools (an MCP server's, say) and runs their
/// calls itself, so an API client gets the answer made with them.
///
/// Each request gets the catalog's tools beside its own (a client's tool of the same name wins). A
/// round whose calls are all the server's is run here: the calls and their outputs are added to the
/// request's transcript and the model is asked again, up to ``maximumRounds`` times (the last round
/// may not call tools). A round that calls one of the client's tools ends the answer with those
/// calls, as without server tools; the server's calls of that round are not run. The client sees
/// the text of every round and the completion of the last, its usage summed over all rounds; the
/// server's calls and their outputs stay on the server.
struct ServerToolRunningModel: ForwardingLanguageModel {
  let base: any LanguageModel
  let catalog: any ToolCatalog
  let maximumRounds: Int
  private let logger = Logger(label: "HybridAI.server.tools")

  init(base: any LanguageModel, catalog: any ToolCatalog, maximumRounds: Int) {
    self.base = base
    self.catalog = catalog
    self.maximumRounds = max(1, maximumRounds)
  }

  func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    AsyncThrowingStream { continuation in
      let task = Task {
        do {
          try await answer(request, into: continuation)
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  private func answer(_ request: GenerationRequest,
                      into continuation: AsyncThrowingStream<GenerationEvent, any Error>.Continuation) async throws {
    let clientTools = Set(request.tools.map(\.name))
    let serverTools = catalog.tools.filter { !clientTools.contains($0.name) }
    guard !serverTools.isEmpty, request.options.toolChoice != ToolChoice.none else {
      for try await event in base.generate(request) { continuation.yield(event) }
      return
    }
    let toolsByName = Dictionary(serverTools.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    var request = request
    request.tools += serverTools.map(\.definition)
    var usage = Usage.zero
    var rounds = 0
    while true {
      var calls: [Transcript.ToolCall] = []
      var completion: RawResponse?
      for try await event in base.generate(request) {
        switch event {
        case .toolCalls(let more): calls += more
        case .completed(let raw): completion = raw
        default: continuation.yield(event)
        }
      }
      try Task.checkCancellation()
      guard var completion else { return }   // the client's API reports the missing completion
      usage.add(completion.usage)
      let serverCalls = calls.filter { toolsByName[$0.toolName] != nil }
      guard !serverCalls.isEmpty, serverCalls.count == calls.count else {
        if !serverCalls.isEmpty {
          logger.info("the answer also calls the client's tools: the server's calls of its last round are not run",
                      metadata: ["tools": "\(serverCalls.map(\.toolName))"])
        }
        let clientCalls = calls.filter { toolsByName[$0.toolName] == nil }
        if !clientCalls.isEmpty { continuation.yield(.toolCalls(clientCalls)) }
        completion.usage = usage
        continuation.yield(.completed(completion))
        return
      }
      rounds += 1
      request.transcript.append(.toolCalls(Transcript.ToolCalls(
        calls: serverCalls, modelVersion: completion.modelVersion, providerContent: completion.providerContent)))
      let outputs = try await run(serverCalls, toolsByName: toolsByName, transcript: request.transcript)
      for output in outputs { request.transcript.append(.toolOutput(output)) }
      logger.debug("server tools called", metadata: [
        "tools": "\(serverCalls.map(\.toolName))", "round": "\(rounds)",
        "failed": "\(outputs.filter(\.isError).count)",
      ])
      if case .required = request.options.toolChoice { request.options.toolChoice = .automatic }
      if rounds >= maximumRounds { request.options.toolChoice = ToolChoice.none }
    }
  }

  /// Runs the calls concurrently; their outputs in the calls' order. A call that fails (its tool
  /// threw, its arguments do not decode) gives the model an error output, as a session does.
  private func run(_ calls: [Transcript.ToolCall], toolsByName: [String: any Tool],
                   transcript: Transcript) async throws -> [Transcript.ToolOutput] {
    try await withThrowingTaskGroup(of: (Int, Transcript.ToolOutput).self) { group in
      for (index, call) in calls.enumerated() {
        guard let tool = toolsByName[call.toolName] else { continue }
        group.addTask { (index, await output(of: tool, for: call, transcript: transcript)) }
      }
      var outputs = [Transcript.ToolOutput?](repeating: nil, count: calls.count)
      for try await (index, output) in group { outputs[index] = output }
      try Task.checkCancellation()
      return outputs.compactMap { $0 }
    }
  }

  private func output(of tool: any Tool, for call: Transcript.ToolCall, transcript: Transcript) async -> Transcript.ToolOutput {
    do {
      let output = try await tool.call(with: call.arguments, context: ToolContext(callID: call.id, transcript: transcript))
      var text = output.description
      // No store keeps files for an API request: the model learns what came, not the bytes.
      for artifact in output.artifacts {
        let note = "[\(artifact.name): \(artifact.mimeType), \(artifact.size) bytes, a file this server does not pass on]"
        text = text.isEmpty ? note : text + "\n" + note
      }
      return Transcript.ToolOutput(callID: call.id, toolName: call.toolName, text: text)
    } catch {
      logger.warning("server tool failed", metadata: ["tool": "\(call.toolName)", "callID": "\(call.id)", "error": "\(error)"])
      return Transcript.ToolOutput(callID: call.id, toolName: call.toolName, text: "error: \(error)", isError: true)
    }
  }
}
