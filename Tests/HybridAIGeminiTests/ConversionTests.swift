import Foundation
import HybridAI
import HybridAIGemini
import Testing

/// The server's direction: a Gemini request becomes a HybridAI transcript and options.
@Suite("Request to transcript")
struct ConversionTests {
  private func decode(_ text: String) throws -> GenerateContentRequest {
    try Gemini.JSON.decode(GenerateContentRequest.self, from: Data(text.utf8))
  }

  @Test("instructions, turns, thoughts and options")
  func conversation() throws {
    let request = try decode("""
      {"systemInstruction": {"parts": [{"text": "Be brief."}]},
       "contents": [
         {"role": "user", "parts": [{"text": "Hi"}]},
         {"role": "model", "parts": [{"text": "pondering", "thought": true}, {"text": "Hello!", "thoughtSignature": "c2ln"}]},
         {"parts": [{"text": "Why is the sky "}, {"text": "blue?"}]}],
       "generationConfig": {"temperature": 0.5, "topK": 40, "seed": 3, "maxOutputTokens": 20,
                            "stopSequences": ["\\n\\n"], "responseMimeType": "application/json"}}
      """)
    let (transcript, options) = try request.transcriptAndOptions()
    #expect(transcript.count == 4)
    guard case .instructions(let instructions) = transcript[0], case .prompt(let first) = transcript[1],
          case .response(let answer) = transcript[2], case .prompt(let second) = transcript[3] else {
      Issue.record("unexpected entries: \(transcript.entries)")
      return
    }
    #expect(transcript[0].text == "Be brief.")
    _ = instructions
    #expect(first.segments.count == 1 && transcript[1].text == "Hi")
    #expect(transcript[2].text == "Hello!")
    #expect(answer.providerContent?.provider == "gemini")
    #expect(try answer.providerContent?.content.decode(as: Gemini.Content.self) == request.contents[1])
    #expect(transcript[3].text == "Why is the sky blue?")
    #expect(second.options == options)
    #expect(options.temperature == 0.5)
    #expect(options.sampling == .random(top: 40, seed: 3))
    #expect(options.maximumResponseTokens == 20)
    #expect(options.stopSequences == ["\n\n"])
    #expect(options.appliesTo == nil)
    #expect(options[GenerationConfig.self]?.responseMimeType == "application/json")
  }

  @Test("topP becomes nucleus sampling; topK 1 is greedy")
  func sampling() throws {
    let nucleus = try GenerationOptions(geminiConfig: GenerationConfig(topP: 0.9))
    #expect(nucleus.sampling == .random(probabilityThreshold: 0.9))
    let greedy = try GenerationOptions(geminiConfig: GenerationConfig(topK: 1))
    #expect(greedy.sampling == .greedy)
    let seeded = try GenerationOptions(geminiConfig: GenerationConfig(temperature: 1, seed: 7))
    #expect(seeded.sampling == .random(probabilityThreshold: 1, seed: 7), "a seed alone makes sampling repeatable")
  }

  @Test("candidateCount outside 1…16 is a typed error")
  func candidateCount() throws {
    #expect(try GenerationOptions(geminiConfig: GenerationConfig(candidateCount: 1)).sampling == nil)
    #expect(try GenerationOptions(geminiConfig: GenerationConfig(candidateCount: 16)).sampling == nil)
    for count in [0, 17] {
      #expect(throws: GeminiConversionError.invalidOption("candidateCount must be between 1 and 16, got \(count)")) {
        try GenerationOptions(geminiConfig: GenerationConfig(candidateCount: count))
      }
    }
  }

  @Test("frequency and presence penalties go both ways; the on-device-only penalties are not sent; out of range is a typed error")
  func penalties() throws {
    let options = try GenerationOptions(geminiConfig: GenerationConfig(presencePenalty: 0.5, frequencyPenalty: -0.25))
    #expect(options.presencePenalty == 0.5 && options.frequencyPenalty == -0.25)
    let config = GenerationConfig(generic: GenerationOptions(
      repetitionPenalty: 1.2, loopPenalty: .standard, frequencyPenalty: 0.3, presencePenalty: 0.1))
    #expect(config.frequencyPenalty == 0.3 && config.presencePenalty == 0.1)
    #expect(GenerationConfig.forRequest(GenerationOptions(repetitionPenalty: 1.2, loopPenalty: .standard)) == nil,
            "nothing Gemini understands: no generationConfig at all")
    #expect(throws: GeminiConversionError.invalidOption("frequencyPenalty must be within -2…2, got 3.0")) {
      try GenerationOptions(geminiConfig: GenerationConfig(frequencyPenalty: 3))
    }
  }

  @Test("inputs the on-device model cannot take are typed errors",
        arguments: [
          (#"{"inlineData": {"mimeType": "image/png", "data": "iVBO"}}"#, "inlineData (image/png)"),
          (#"{"fileData": {"fileUri": "gs://b/f"}}"#, "fileData"),
          (#"{"executableCode": {"language": "PYTHON", "code": "print(1)"}}"#, "executableCode"),
        ])
  func unsupportedInput(_ part: String, _ kind: String) throws {
    let request = try decode(#"{"contents": [{"role": "user", "parts": [\#(part)]}]}"#)
    #expect(throws: GeminiConversionError.unsupportedInput(kind)) { try request.transcriptAndOptions() }
    #expect(GeminiConversionError.unsupportedInput(kind).unsupportedReason == .unsupportedInput(kind))
  }

  @Test("plain text sent as inlineData is read as the turn's text; text that is not UTF-8 is a typed error")
  func plainTextInlineData() throws {
    let note = Data("The secret word is banana.".utf8).base64EncodedString()
    let request = try decode(#"{"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "text/plain; charset=utf-8", "data": "\#(note)"}}, {"text": "What is the secret word?"}]}]}"#)
    let transcript = try request.transcriptAndOptions().transcript
    #expect(transcript.last?.text == "The secret word is banana.\nWhat is the secret word?")
    let latin1 = Data([0x63, 0x61, 0x66, 0xE9]).base64EncodedString()
    let invalid = try decode(#"{"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "text/plain", "data": "\#(latin1)"}}]}]}"#)
    #expect(throws: GeminiConversionError.unsupportedInput("inlineData (text/plain) that is not UTF-8 text in base64")) {
      try invalid.transcriptAndOptions()
    }
  }

  @Test("unknown roles and out-of-range options are typed errors")
  func invalid() throws {
    let function = try decode(#"{"contents": [{"role": "function", "parts": [{"text": "x"}]}]}"#)
    #expect(throws: GeminiConversionError.unsupportedRole("function")) { try function.transcriptAndOptions() }
    let badTopP = try decode(#"{"contents": [], "generationConfig": {"topP": 1.5}}"#)
    #expect(throws: GeminiConversionError.self) { try badTopP.transcriptAndOptions() }
  }

  @Test("a transcript survives the trip to a request and back")
  func roundTrip() throws {
    let transcript = Transcript(entries: [
      .instructions(Transcript.Instructions(text: "Rules")),
      .prompt(Transcript.Prompt(text: "Q1")),
      .response(Transcript.Response(text: "A1")),
      .prompt(Transcript.Prompt(text: "Q2")),
    ])
    let request = GenerateContentRequest(transcript: transcript, options: GenerationOptions(temperature: 0.4))
    let (back, options) = try request.transcriptAndOptions()
    #expect(back.map(\.text) == transcript.map(\.text))
    #expect(options.temperature == 0.4)
  }

  @Test("usage and finish reasons convert both ways")
  func responseConversions() {
    let usage = Usage(gemini: UsageMetadata(promptTokenCount: 10, cachedContentTokenCount: 4, candidatesTokenCount: 20,
                                            toolUsePromptTokenCount: 6, thoughtsTokenCount: 5))
    #expect(usage == Usage(promptTokens: 10, cachedPromptTokens: 4, outputTokens: 25, reasoningTokens: 5,
                           toolUsePromptTokens: 6))
    #expect(usage.totalTokens == 41)
    let back = UsageMetadata(Usage(promptTokens: 7, outputTokens: 3))
    #expect(back.promptTokenCount == 7 && back.candidatesTokenCount == 3 && back.totalTokenCount == 10)
    #expect(back.cachedContentTokenCount == nil && back.thoughtsTokenCount == nil && back.toolUsePromptTokenCount == nil)
    // A reasoning answer served by a Gemini-compatible server: thoughts apart from the candidates, and back again.
    let served = UsageMetadata(usage)
    #expect(served.candidatesTokenCount == 20 && served.thoughtsTokenCount == 5 && served.toolUsePromptTokenCount == 6)
    #expect(Usage(gemini: served) == usage)
    // Counts no real answer has (a broken or hostile server) are clamped, never summed into an overflow.
    let absurd = Usage(gemini: UsageMetadata(promptTokenCount: .max, candidatesTokenCount: .max,
                                             toolUsePromptTokenCount: -5, thoughtsTokenCount: .max))
    #expect(absurd.promptTokens == Int(Int32.max) && absurd.outputTokens == Int(Int32.max))
    #expect(absurd.toolUsePromptTokens == 0 && absurd.totalTokens > 0)
    // Usage saved before reasoning and tool-use counts existed still reads.
    let old = try? JSONDecoder().decode(Usage.self, from: Data(#"{"promptTokens": 3, "cachedPromptTokens": 1, "outputTokens": 2}"#.utf8))
    #expect(old == Usage(promptTokens: 3, cachedPromptTokens: 1, outputTokens: 2))
    #expect(FinishReason(gemini: .stop) == .stop)
    #expect(FinishReason(gemini: .maxTokens) == .maxTokens)
    #expect(FinishReason(gemini: .safety) == .other("SAFETY"))
    #expect(Gemini.FinishReason(FinishReason.maxTokens) == .maxTokens)
    #expect(Gemini.FinishReason(FinishReason.contextWindowFull) == .maxTokens)
    #expect(Gemini.FinishReason(FinishReason.stop) == .stop)
  }
}
