import Foundation
import HybridAI
import HybridAITestSupport
import Testing

@Suite("Transcript")
struct TranscriptTests {
  private func sample() -> Transcript {
    Transcript(entries: [
      .instructions(.init(id: "i1", segments: [.text(.init(id: "s1", content: "Be brief."))])),
      .prompt(.init(id: "p1", segments: [.text(.init(id: "s2", content: "Hi ✨ \"quoted\""))],
                    options: GenerationOptions(sampling: .random(top: 5, seed: 7), temperature: 0.5))),
      .response(.init(id: "r1", segments: [.text(.init(id: "s3", content: "Hello!"))], modelVersion: "m-1")),
    ])
  }

  @Test("JSON round-trips and the encoding is byte-stable")
  func roundTrip() throws {
    let transcript = sample()
    let data = try transcript.jsonData()
    let decoded = try Transcript(jsonData: data)
    #expect(decoded == transcript)
    #expect(try decoded.jsonData() == data)
  }

  @Test("the JSON form is versioned and tagged by entry type")
  func jsonShape() throws {
    let object = try JSONSerialization.jsonObject(with: sample().jsonData()) as? [String: Any]
    #expect(object?["version"] as? Int == Transcript.formatVersion)
    let entries = object?["entries"] as? [[String: Any]]
    #expect(entries?.map { $0["type"] as? String } == ["instructions", "prompt", "response"])
    #expect(entries?[2]["modelVersion"] as? String == "m-1")
  }

  @Test("a session records why each answer ended, which model kind answered and its tokens; they round-trip, and a transcript saved before the fields existed reads them as unknown")
  func finishReasonRecorded() async throws {
    let model = ScriptedLanguageModel { _, index in
      [.textDelta("Answer \(index)"), .completed(RawResponse(modelVersion: "m-1", source: .onDevice,
                                                            usage: Usage(promptTokens: 3, outputTokens: 2),
                                                            finishReason: index == 0 ? .maxTokens : .stop))]
    }
    let session = GenerativeModelSession(model: model)
    try await session.respond(to: "One")
    try await session.respond(to: "Two")
    let reasons = session.transcript.compactMap { entry -> FinishReason? in
      if case .response(let response) = entry { response.finishReason } else { nil }
    }
    #expect(reasons == [.maxTokens, .stop])
    let recorded = session.transcript.compactMap { entry -> String? in
      guard case .response(let response) = entry else { return nil }
      return "\(response.source?.rawValue ?? "-") \(response.usage?.promptTokens ?? -1)+\(response.usage?.outputTokens ?? -1)"
    }
    #expect(recorded == ["on-device 3+2", "on-device 3+2"])
    let data = try session.transcript.jsonData()
    #expect(try Transcript(jsonData: data) == session.transcript)
    let entries = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["entries"] as? [[String: Any]]
    #expect(entries?.compactMap { $0["finishReason"] as? String } == ["maxTokens", "stop"])

    let older = Data(#"{"version": 2, "entries": [{"type": "response", "id": "r", "segments": [], "modelVersion": "m"}]}"#.utf8)
    guard case .response(let response)? = try Transcript(jsonData: older).entries.first else {
      Issue.record("no response entry")
      return
    }
    #expect(response.finishReason == nil && response.source == nil && response.usage == nil && response.fallback == nil
            && response.modelVersion == "m")
  }

  @Test("a transcript from a newer format version is rejected with a clear error")
  func newerVersionRejected() throws {
    let json = Data(#"{"version": 99, "entries": []}"#.utf8)
    #expect(throws: DecodingError.self) { try Transcript(jsonData: json) }
  }

  @Test("an unknown entry type is a decoding error, not a crash")
  func unknownEntryType() {
    let json = Data(#"{"version": 1, "entries": [{"type": "telepathy", "id": "x"}]}"#.utf8)
    #expect(throws: DecodingError.self) { try Transcript(jsonData: json) }
  }
}

@Suite("GenerationOptions")
struct GenerationOptionsTests {
  @Test("sampling modes keep their parameters and round-trip through JSON",
        arguments: [GenerationOptions.SamplingMode.greedy, .random(top: 40, seed: 1), .random(probabilityThreshold: 0.9)])
  func samplingRoundTrip(mode: GenerationOptions.SamplingMode) throws {
    let options = GenerationOptions(sampling: mode, temperature: 0.3, maximumResponseTokens: 12, stopSequences: ["\n"])
    let decoded = try JSONDecoder().decode(GenerationOptions.self, from: JSONEncoder().encode(options))
    #expect(decoded == options)
  }

  @Test("random(top:) and random(probabilityThreshold:) map to their strategies")
  func strategies() {
    #expect(GenerationOptions.SamplingMode.random(top: 3, seed: 9).strategy == .topK(3, seed: 9))
    #expect(GenerationOptions.SamplingMode.random(probabilityThreshold: 0.5).strategy == .nucleus(threshold: 0.5, seed: nil))
    #expect(GenerationOptions.SamplingMode.greedy.strategy == .greedy)
  }
}
