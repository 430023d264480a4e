import Foundation
import HybridAI
import HybridAITestSupport
import Synchronization
import Testing

/// Sessions with a ``ToolCatalog``: tools that change between turns (an MCP server's).
@Suite struct ToolCatalogTests {
  /// A catalog whose list the test sets.
  final class ChangingCatalog: ToolCatalog {
    private let current = Mutex<[any Tool]>([])
    var tools: [any Tool] { current.withLock { $0 } }
    func set(_ tools: [any Tool]) { current.withLock { $0 = tools } }
  }

  @Test("each turn offers the catalog's tools as they are when it starts; a change during a turn waits for the next")
  func changesTakeEffectFromTheNextTurn() async throws {
    let catalog = ChangingCatalog()
    let first = RecordingTool(name: "first") { _, _ in
      catalog.set([RecordingTool(name: "second") { _, _ in ToolOutput("two") }])   // the catalog changes mid-turn
      return ToolOutput("one")
    }
    catalog.set([first])
    let model = ScriptedLanguageModel.rounds([
      .toolCalls([Transcript.ToolCall(id: "c1", toolName: "first", arguments: try GeneratedContent(json: "{}"))]),
      .text("Called first."),
      .toolCalls([Transcript.ToolCall(id: "c2", toolName: "second", arguments: try GeneratedContent(json: "{}"))]),
      .text("Called second."),
    ])
    let always = RecordingTool(name: "always") { _, _ in ToolOutput("") }
    let session = GenerativeModelSession(model: model, tools: [always], toolCatalogs: [catalog])
    #expect(session.tools.map(\.name) == ["always", "first"])
    let instructions = session.transcript.entries.first.flatMap { if case .instructions(let entry) = $0 { entry } else { nil } }
    #expect(instructions?.toolDefinitions.map(\.name) == ["always", "first"])

    #expect(try await session.respond(to: "One").content == "Called first.")
    #expect(try await session.respond(to: "Two").content == "Called second.")
    let offered = model.requests.map { $0.tools.map(\.name) }
    #expect(offered == [["always", "first"], ["always", "first"], ["always", "second"], ["always", "second"]],
            "the first turn's second round keeps its list; the next turn has the new one")
  }
}
