import Foundation
import HybridAIOnDevice
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
@testable import hybrid
import Testing
import TFLiteImage

/// Runs the built `hybrid` executable as a user would, and parses its arguments in process.
@Suite("hybrid command line", .serialized)
struct HybridCommandTests {
  struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  static var executable: URL {
    (try? TestRepository.builtProduct("hybrid"))
      ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("hybrid")
  }

  /// Runs `hybrid arguments`, with `input` on standard input when given; returns its exit status
  /// and output (standard error: its last MiB).
  func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:],
           executable: URL = HybridCommandTests.executable) async throws -> Run {
    let outcome = try await ChildProcess(executable: executable, arguments: arguments, environment: environment,
                                         standardInput: input.map { Data($0.utf8) })
      .run(output: .collected(limit: 64 << 20))
    return Run(status: outcome.wasSignalled ? 128 + outcome.status : outcome.status, stdout: outcome.standardOutput,
               stderr: outcome.standardError)
  }

  /// A fresh registry directory for a `hybrid serve` under test (so none is made in the home directory).
  static func scratchRegistry() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-serve-\(UUID().uuidString)").path
  }

  func json(_ text: String) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  @Test("generate --json prints text, modelVersion, usage, finishReason and timings")
  func generateJSON() async throws {
    try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build the hybrid product first")
    let result = try await run(["generate", "--prompt", "Say hello.", "--greedy", "--max-tokens", "12", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try json(result.stdout)
    #expect((object["text"] as? String)?.isEmpty == false)
    #expect(object["modelVersion"] as? String == "SmolLM2-135M-Instruct.Q4_1")
    let usage = try #require(object["usage"] as? [String: Any])
    #expect((usage["outputTokens"] as? Int ?? 0) > 0)
    #expect(["stop", "maxTokens"].contains(object["finishReason"] as? String ?? ""))
    #expect(object["timings"] is [String: Any])
  }

  @Test("generate run from a folder outside the checkout finds the bootstrap's model (beside the executable) and answers on device")
  func generateFromElsewhere() async throws {
    let elsewhere = try TemporaryDirectory("elsewhere")
    defer { elsewhere.remove() }
    let outcome = try await ChildProcess(executable: Self.executable, arguments: ["generate", "Hi", "--greedy", "--max-tokens", "4", "--json"],
                                         environment: ["HYBRIDAI_MODELS_DIR": nil, "HYBRIDAI_MODEL": nil], workingDirectory: elsewhere.url)
      .run(output: .collected(limit: 1 << 20))
    #expect(outcome.succeeded, "\(outcome.standardError)")
    let object = try json(outcome.standardOutput)
    #expect(object["source"] as? String == "on-device" && object["modelVersion"] as? String == "SmolLM2-135M-Instruct.Q4_1")
  }

  @Test("generate --model ollama:NAME runs the model layer of an Ollama store where it lies, serve --model NAME=ollama:… serves it; a reference that is not there exits 64 naming where it looked")
  func generateFromOllamaStore() async throws {
    let store = try TemporaryDirectory("ollama-store")
    defer { store.remove() }
    let model = URL(fileURLWithPath: ModelLocatorPath.path)
    let digest = String(repeating: "5", count: 64)
    let blob = store.appending("blobs/sha256-\(digest)")
    try FileManager.default.createDirectory(at: blob.deletingLastPathComponent(), withIntermediateDirectories: true)
    if link(model.path, blob.path) != 0 { try FileManager.default.copyItem(at: model, to: blob) }
    let manifest = store.appending("manifests/registry.ollama.ai/library/smollm2/latest")
    try FileManager.default.createDirectory(at: manifest.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(#"{"schemaVersion":2,"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:\#(digest)","size":1}]}"#.utf8)
      .write(to: manifest)
    let environment = ["OLLAMA_MODELS": store.url.path]
    let result = try await run(["generate", "Hi", "--model", "ollama:smollm2", "--greedy", "--max-tokens", "4", "--json"],
                               environment: environment)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try json(result.stdout)["source"] as? String == "on-device")
    #expect(try json(result.stdout)["modelVersion"] as? String == "smollm2:latest", "named as Ollama names it, not by its blob")
    let missing = try await run(["generate", "Hi", "--model", "ollama:smollm2:7b"], environment: environment)
    #expect(missing.status == 64 && missing.stderr.contains("ollama:smollm2:7b is not on this machine"), "\(missing.stderr)")

    // hybrid serve serves it too, under the name given, from the same blob.
    let server = try await ServerProcess(executable: Self.executable, arguments: [
      "--model", "smol=ollama:smollm2", "--data", Self.scratchRegistry(), "--no-chat", "--context-size", "512"],
      environment: environment)
    defer { server.terminate() }
    let answer = try await TestHTTP.send(.POST, server.baseURL.appending(path: "v1/chat/completions"), json: [
      "model": "smol", "max_tokens": 4, "temperature": 0, "messages": [["role": "user", "content": "Hi"]]])
    #expect(answer.status == 200, "\(answer.text)")
  }

  @Test("generate takes its prompt as the argument, with --prompt, or from standard input (-): the same greedy answer each way; none, two, or an empty standard input exit 64 before loading")
  func promptSources() async throws {
    let options = ["--greedy", "--max-tokens", "6", "--json"]
    let flag = try await run(["generate", "--prompt", "Name a color."] + options)
    let argument = try await run(["generate", "Name a color."] + options)
    let piped = try await run(["generate", "-"] + options, input: "Name a color.\n")
    for result in [flag, argument, piped] { #expect(result.status == 0, "\(result.stderr)") }
    let texts = try [flag, argument, piped].map { try json($0.stdout)["text"] as? String }
    #expect(texts[0]?.isEmpty == false && texts[1] == texts[0] && texts[2] == texts[0], "\(texts)")

    let none = try await run(["generate", "--greedy"])
    #expect(none.status == 64 && none.stderr.contains("Missing the prompt"), "\(none.stderr)")
    let twice = try await run(["generate", "Hi", "--prompt", "Hello"])
    #expect(twice.status == 64 && twice.stderr.contains("not both"), "\(twice.stderr)")
    let empty = try await run(["generate", "-", "--json"], input: " \n")
    #expect(empty.status == 64, "\(empty.stderr)")
    #expect((try json(empty.stdout)["error"] as? [String: Any])?["message"] as? String
              == "the prompt was to come from standard input (-), which held none", "\(empty.stdout)")
  }

  @Test("embed: texts from arguments or standard input, the vectors in --json; the same vectors from hybrid serve (--embedding-pooling) with --mode cloud (Gemini and OpenAI APIs); bad input exits 64")
  func embed() async throws {
    func vectors(_ result: Run) throws -> [[Double]] {
      #expect(result.status == 0, "\(result.stderr)")
      let embeddings = try #require(try json(result.stdout)["embeddings"] as? [[String: Any]], "\(result.stdout)")
      return embeddings.compactMap { $0["values"] as? [Double] }
    }
    let texts = ["The sky is blue.", "Bread needs yeast."]
    let local = try vectors(try await run(["embed", "--json"] + texts))
    #expect(local.count == 2 && local.allSatisfy { $0.count == 576 })
    #expect(try vectors(try await run(["embed", "--json", "-"], input: texts.joined(separator: "\n") + "\n\n")) == local)
    let plain = try await run(["embed"] + texts)
    #expect(plain.status == 0 && plain.stdout.contains("cosine similarity:") && plain.stdout.contains("1–2  0."), "\(plain.stdout)")

    // hybrid serve with --embedding-pooling last-token: the vectors of `hybrid embed --pooling last-token`.
    let lastToken = try vectors(try await run(["embed", "--json", "--pooling", "last-token"] + texts))
    #expect(lastToken.count == 2 && lastToken != local, "the pooling changes the vectors")
    let scratch = try TemporaryDirectory("embed-pooling")
    defer { scratch.remove() }
    let server = try await ServeLifecycleTests.Server.servingTheTestModel(in: scratch, ["--embedding-pooling", "last-token"])
    let root = "http://127.0.0.1:\(server.port)"
    let gemini = try vectors(try await run(["embed", "--json", "--mode", "cloud", "--cloud-url", root] + texts))
    let openAI = try vectors(try await run(["embed", "--json", "--mode", "cloud", "--cloud-api", "openai",
                                            "--cloud-url", root + "/v1", "--cloud-model", "smollm2"] + texts))
    _ = await server.stop()
    for remote in [gemini, openAI] {
      #expect(remote.count == 2)
      for (mine, theirs) in zip(lastToken, remote) {
        #expect(mine.count == theirs.count && zip(mine, theirs).allSatisfy { abs($0 - $1) < 1e-4 })
      }
    }

    let none = try await run(["embed"])
    #expect(none.status == 64 && none.stderr.contains("Missing the texts"), "\(none.stderr)")
    let hybrid = try await run(["embed", "--mode", "prefer-cloud", "x"])
    #expect(hybrid.status == 64 && hybrid.stderr.contains("cannot be compared"), "\(hybrid.stderr)")
    let long = try await run(["embed", "--batch-size", "4", "a much longer text than four tokens"])
    #expect(long.status == 64 && long.stderr.contains("raise --batch-size"), "\(long.stderr)")
  }

  @Test("generate --log-probabilities N: --json lists each token with its log probability and N alternatives, the text made of them; plain output a line per token on stderr; out of range exits 64")
  func logProbabilities() async throws {
    let result = try await run(["generate", "Name a color.", "--greedy", "--max-tokens", "5", "--log-probabilities", "2", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try json(result.stdout)
    let entries = try #require(object["logProbabilities"] as? [[String: Any]], "\(result.stdout)")
    #expect(entries.count == 5 && entries.compactMap { $0["token"] as? String }.joined() == object["text"] as? String)
    #expect(entries.allSatisfy { ($0["logProbability"] as? Double ?? 1) <= 0 && ($0["topAlternatives"] as? [Any])?.count == 2 })
    #expect(try json(try await run(["generate", "Hi", "--greedy", "--max-tokens", "2", "--json"]).stdout)["logProbabilities"] == nil)

    let plain = try await run(["generate", "Name a color.", "--greedy", "--max-tokens", "5", "--log-probabilities", "1"])
    #expect(plain.status == 0 && plain.stderr.components(separatedBy: "[logprob] ").count == 6, "\(plain.stderr)")
    let refused = try await run(["generate", "Hi", "--log-probabilities", "21"])
    #expect(refused.status == 64 && refused.stderr.contains("--log-probabilities must be within 0…20"), "\(refused.stderr)")
  }

  @Test("generate streams plain text without --json")
  func generateStreams() async throws {
    let result = try await run(["generate", "--prompt", "Say hello.", "--greedy", "--max-tokens", "8"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
  }

  @Test("--loop-penalty ends the greedy loop of the same prompt; penalties out of range exit 64 naming the flag")
  func penaltyFlags() async throws {
    let prompt = ["generate", "--prompt", "Write a poem about the sea.", "--greedy", "--max-tokens", "60"]
    let plain = try await run(prompt)
    let penalized = try await run(prompt + ["--loop-penalty", "0.8"])
    #expect(plain.status == 0 && penalized.status == 0, "\(plain.stderr)\(penalized.stderr)")
    func lines(_ text: String) -> [Substring] { text.split(separator: "\n").filter { !$0.isEmpty } }
    #expect(Set(lines(plain.stdout)).count < lines(plain.stdout).count, "the premise, a loop: \(plain.stdout)")
    #expect(Set(lines(penalized.stdout)).count == lines(penalized.stdout).count, "no line twice: \(penalized.stdout)")
    // hybrid chat: the loop penalty unless --loop-penalty says otherwise (0: off).
    #expect(try SamplingOptions.parse([]).chatOptions.loopPenalty == .standard)
    #expect(try SamplingOptions.parse(["--loop-penalty", "0"]).chatOptions.hasPenalties == false)
    #expect(try SamplingOptions.parse([]).generationOptions.hasPenalties == false, "generate keeps llama.cpp's defaults")
    for (flag, value) in [("--repetition-penalty", "0"), ("--loop-penalty", "-1"), ("--frequency-penalty", "3")] {
      let refused = try await run(["generate", "--prompt", "Hi", "\(flag)=\(value)"])
      #expect(refused.status == 64 && refused.stderr.contains(flag), "\(flag)=\(value): \(refused.stderr)")
    }
  }

  @Test("HYBRIDAI_ON_DEVICE=off: a typed 'disabled' error and exit status 1")
  func disabledByEnvironment() async throws {
    let result = try await run(["generate", "--prompt", "Hi", "--json"], environment: ["HYBRIDAI_ON_DEVICE": "off"])
    #expect(result.status == 1)
    let error = try #require(try json(result.stdout)["error"] as? [String: Any])
    #expect(error["kind"] as? String == "modelUnavailable.disabled")
  }

  @Test("--draft-model: drafts and answers as without it; another vocabulary is the typed onDevice.invalidDraftModel naming the difference")
  func draftModel() async throws {
    let smollm2 = TestRepository.dependency("models/SmolLM2-135M-Instruct.Q4_1.gguf").path
    let gemma = TestRepository.dependency("models/gemma-3-270m-q4_k_m.gguf").path
    let arguments = ["generate", "--prompt", "Name three colours.", "--greedy", "--max-tokens", "12", "--json"]
    let plain = try await run(arguments + ["--draft-max", "0"])
    let drafted = try await run(arguments + ["--draft-model", smollm2])
    #expect(drafted.status == 0, "\(drafted.stderr)")
    #expect(try json(drafted.stdout)["text"] as? String == (try json(plain.stdout)["text"] as? String))
    let usage = try #require(try json(drafted.stdout)["usage"] as? [String: Any])
    #expect((usage["draftTokens"] as? Int ?? 0) > 0, "\(usage)")

    let refused = try await run(arguments + ["--draft-model", gemma])
    #expect(refused.status == 1)
    let error = try #require(try json(refused.stdout)["error"] as? [String: Any])
    #expect(error["kind"] as? String == "onDevice.invalidDraftModel")
    #expect((error["message"] as? String)?.contains("its tokenizer is SentencePiece (SPM), the model's byte-level BPE") == true, "\(error)")
  }

  @Test("--chat-template FILE.jinja: a syntax error is the typed onDevice.invalidChatTemplate with Jinja's message")
  func brokenChatTemplateFile() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-template-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("broken.jinja")
    try "{% for message in messages %}{{ message.content }".write(to: file, atomically: true, encoding: .utf8)
    let result = try await run(["generate", "--prompt", "Hi", "--json", "--chat-template", file.path])
    #expect(result.status == 1)
    let error = try #require(try json(result.stdout)["error"] as? [String: Any])
    #expect(error["kind"] as? String == "onDevice.invalidChatTemplate")
    #expect((error["message"] as? String)?.contains("Expected }}") == true, "\(error)")

    try "{% for message in messages %}<{{ message.role }}>{{ message.content }}{% endfor %}<assistant>"
      .write(to: file, atomically: true, encoding: .utf8)
    let working = try await run(["generate", "--prompt", "Hi", "--greedy", "--max-tokens", "4", "--chat-template", file.path])
    #expect(working.status == 0, "\(working.stderr)")
  }

  @Test("--chat-template typos are usage errors before any model loads: an unknown name lists the built-in ones, a missing file is named")
  func chatTemplateTypos() async throws {
    let unknown = try await run(["generate", "--prompt", "Hi", "--chat-template", "chatmll"])
    #expect(unknown.status == 64 && unknown.stderr.contains("--chat-template: chatmll is neither a file nor a template name")
      && unknown.stderr.contains("llama3"), "\(unknown.stderr)")
    let missing = try await run(["chat", "--chat-template", "templates/mine.jinja"], input: "Hi\n")
    #expect(missing.status == 64 && missing.stderr.contains("--chat-template: no file at templates/mine.jinja"), "\(missing.stderr)")
    let builtIn = try await run(["generate", "--prompt", "Hi", "--greedy", "--max-tokens", "2", "--chat-template", "llama3"])
    #expect(builtIn.status == 0, "a built-in name still works: \(builtIn.stderr)")
  }

  @Test("--attach with prefer-on-device: the cloud answers with the reason, the photo's exact bytes go both ways, --json lists the files")
  func attachGoesToTheCloud() async throws {
    // The server plays an image-editing model: it answers with the picture it was sent.
    let server = try await TestHTTPServer.start { request, _ in GeminiEchoReply.reply(to: request) }
    defer { Task { await server.stop() } }
    let directory = try TemporaryDirectory("attach")
    defer { directory.remove() }
    let png = try Bitmap.samplePortrait(width: 32, height: 24).pngData()
    let file = directory.appending("photo.png")
    try png.write(to: file)

    // TMPDIR: the session's own artifact store (the image answer) lands in this test's directory.
    let result = try await run(["generate", "--prompt", "What is in this photo?", "--attach", file.path, "--mode", "prefer-on-device",
                                "--cloud-url", server.baseURL.absoluteString, "--cloud-model", "gemini-test", "--json"],
                               environment: ["TMPDIR": directory.url.path])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try json(result.stdout)
    #expect(object["source"] as? String == "cloud")
    #expect(object["text"] as? String == GeminiEchoReply.text)
    let answered = try #require((object["artifacts"] as? [[String: Any]])?.first, "\(object)")
    #expect(answered["mimeType"] as? String == "image/png")
    #expect(FileManager.default.contents(atPath: try #require(answered["path"] as? String)) == png,
            "the image answer lands as a file with the bytes that were sent")
    #expect((object["fallbackReason"] as? String)?.contains("image/png") == true, "\(object)")
    let listed = try #require((object["attachments"] as? [[String: Any]])?.first)
    #expect(listed["mimeType"] as? String == "image/png" && listed["name"] as? String == "photo.png")
    #expect(listed["path"] == nil, "the copy of the attached photo is gone at exit: \(listed)")
    // The session's own store sits in a folder only this user can enter; the answer's file stays.
    let privateFolder = directory.appending("HybridAI-artifacts-\(getuid())")
    var status = stat()
    #expect(lstat(privateFolder.path, &status) == 0 && status.st_mode & 0o777 == 0o700)
    let answeredPath = try #require(answered["path"] as? String)
    #expect(answeredPath.hasPrefix(privateFolder.path + "/"), "\(answeredPath)")

    let body = try #require(server.requests.first?.body)
    let sent = try #require(JSONSerialization.jsonObject(with: body) as? [String: Any])
    let parts = try #require(((sent["contents"] as? [[String: Any]])?.last)?["parts"] as? [[String: Any]])
    let inline = try #require(parts.compactMap { $0["inlineData"] as? [String: Any] }.first)
    #expect(inline["mimeType"] as? String == "image/png")
    #expect(Data(base64Encoded: inline["data"] as? String ?? "") == png, "the exact bytes")

    let refused = try await run(["generate", "--prompt", "And this?", "--attach", directory.appending("missing.png").path, "--json"])
    #expect(refused.status == 1)
    #expect((try json(refused.stdout)["error"] as? [String: Any])?["kind"] as? String == "attachment.unreadable")
  }

  @Test("generate --attach with a model and its projector answers on device with llama-mtmd-cli's tokens; the projector beside the model is paired; --no-mmproj is text only")
  func attachAnsweredOnDevice() async throws {
    let pair = TestRepository.dependency("models/pairs/vision")
    let (model, projector) = (pair.appendingPathComponent("model.gguf").path, pair.appendingPathComponent("mmproj.gguf").path)
    let photo = TestRepository.dependency("photos/astronaut.png").path
    let expected = try await MultimodalReference.answerText(model: model, projector: projector, image: photo)

    for projectorArguments in [["--mmproj", projector], []] {   // given, then paired from the folder
      let result = try await run(["generate", "--model", model] + projectorArguments + [
        "--attach", photo, "--greedy", "--max-tokens", "8", "--mode", "on-device", "--json", "Describe."])
      #expect(result.status == 0, "\(result.stderr)")
      let object = try json(result.stdout)
      #expect(object["source"] as? String == "on-device")
      #expect(object["text"] as? String == expected, "llama-mtmd-cli: \(expected.debugDescription)")
      #expect(((object["usage"] as? [String: Any])?["outputTokens"] as? Int) == 8)
    }
    let textOnly = try await run(["generate", "--model", model, "--no-mmproj", "--attach", photo, "--mode", "on-device",
                                  "--json", "Describe."])
    #expect(textOnly.status != 0)
    #expect((try json(textOnly.stdout)["error"] as? [String: Any])?["kind"] as? String == "unsupportedRequest",
            "\(textOnly.stdout)")
  }

  @Test("a --model path that is not there is a usage error naming it (not a model 'not downloaded yet')")
  func missingModel() async throws {
    let result = try await run(["generate", "--prompt", "Hi", "--model", "/nonexistent/m.gguf"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("--model: no file at /nonexistent/m.gguf") && !result.stderr.contains("not downloaded"),
            "\(result.stderr)")
  }

  @Test("paths given by hand: a mistyped --sessions-dir is not created, a file or folder in the wrong place is said so in plain words")
  func pathsGivenByHand() async throws {
    let scratch = try TemporaryDirectory("paths")
    defer { scratch.remove() }
    let typo = scratch.appending("no-such-store")
    let listed = try await run(["sessions", "list", "--sessions-dir", typo.path])
    #expect(listed.status == 0 && listed.stdout == "no sessions\n" && listed.stderr.contains("no session store at"))
    #expect(!FileManager.default.fileExists(atPath: typo.path), "listing does not make a store")
    let shown = try await run(["sessions", "show", "abc", "--sessions-dir", typo.path])
    #expect(shown.status == 1 && shown.stderr.contains("no session store at"))

    let file = scratch.appending("a-file")
    try Data("x".utf8).write(to: file)
    let onFile = try await run(["sessions", "list", "--sessions-dir", file.path])
    #expect(onFile.status == 1 && onFile.stderr.contains("is a file, not a folder"), "\(onFile.stderr)")
    #expect(!onFile.stderr.contains("NSCocoaErrorDomain") && !onFile.stderr.contains("Usage:"))

    let onFolder = try await run(["keys", "list", "--keys-file", scratch.url.path])
    #expect(onFolder.status == 1 && onFolder.stderr.contains("it is a folder"), "\(onFolder.stderr)")
    #expect(!onFolder.stderr.contains("NSCocoaErrorDomain"))
  }

  @Test("chat answers lines from standard input and exits at end of input; /usage sums the answers")
  func chatSession() async throws {
    let result = try await run(["chat", "--greedy", "--max-tokens", "8"], input: "Hello\nWhat is 2+2?\n/usage\n/exit\n")
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.components(separatedBy: "ai> ").count == 3)
    // Each answer's line, then the session's sum and how full the context is.
    let answerLines = result.stderr.split(separator: "\n").filter { $0.contains("output ") && $0.contains("finish:") }
    #expect(answerLines.count == 2)
    let session = try #require(result.stderr.split(separator: "\n").first { $0.contains("[session: prompt") },
                               "\(result.stderr)")
    let outputs = answerLines.compactMap { Self.number(after: "output ", in: String($0)) }
    #expect(Self.number(after: "· output ", in: String(session)) == outputs.reduce(0, +))
    #expect(session.contains("of 4096 tokens"))
  }

  @Test("chat: /help lists the commands, an unknown /word is not sent to the model, // sends a message starting with /")
  func chatCommands() async throws {
    let result = try await run(["chat", "--greedy", "--max-tokens", "4"], input: "/help\n/save notes\n//etc is a folder\n/exit\n")
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("/attach FILE") && result.stderr.contains("//text"), "\(result.stderr)")
    #expect(result.stderr.contains("unknown command /save (not sent to the model)"), "\(result.stderr)")
    #expect(result.stdout.components(separatedBy: "ai> ").count == 2, "one answer, to the // message: \(result.stdout)")
    let prompts = result.stderr.split(separator: "\n").compactMap { Self.number(after: "prompt ", in: String($0)) }
    #expect(prompts.count == 1)
  }

  @Test("out-of-range and negative numbers are refused with exit 64 naming the flag, never a crash",
        arguments: [(["--context-size=-1"], "--context-size"), (["--context-size", "9223372036854775807"], "--context-size"),
                    (["--context-size", "0"], "--context-size"), (["--temperature", "-1"], "--temperature"),
                    (["--temperature", "nan"], "--temperature"), (["--threads", "0"], "--threads"),
                    (["--log-level", "bogus"], "--log-level"), (["--max-tokens", "-5"], "--max-tokens")])
  func outOfRange(_ extra: [String], _ flag: String) async throws {
    let result = try await run(["generate", "--prompt", "Hi"] + extra)
    #expect(result.status == 64, "\(extra): \(result.stderr)")
    #expect(result.stderr.contains("Error: \(flag) must"), "\(extra): \(result.stderr)")
  }

  @Test("a negative number after a space is a value (--frequency-penalty -0.5); chat refuses a bad --session id at once")
  func negativeValuesAndSessionIDs() async throws {
    let penalty = try await run(["generate", "--prompt", "Hi", "--frequency-penalty", "-0.5", "--greedy", "--max-tokens", "2"])
    #expect(penalty.status == 0, "\(penalty.stderr)")
    let chat = try await run(["chat", "--session", "../evil"], input: "Hi\n")
    #expect(chat.status == 64 && chat.stderr.contains("is not a session id"), "\(chat.stderr)")
    #expect(!chat.stdout.contains("ai> "), "nothing is answered")
  }

  @Test("chat --context-policy rolling keeps a conversation going past a small window and says what it dropped")
  func chatContextPolicy() async throws {
    let long = "Tell me about the sea. " + String(repeating: "The sea is deep and blue and wide. ", count: 6)
    let input = Array(repeating: long, count: 4).joined(separator: "\n") + "\n/exit\n"
    let failing = try await run(["chat", "--greedy", "--max-tokens", "8", "--context-size", "160"], input: input)
    #expect(failing.stderr.contains("error: the prompt needs"), "\(failing.stderr)")
    #expect(failing.status == 1, "turns failed: a script must be able to tell")
    let rolling = try await run(["chat", "--greedy", "--max-tokens", "8", "--context-size", "160",
                                 "--context-policy", "rolling"], input: input)
    #expect(rolling.status == 0, "\(rolling.stderr)")
    #expect(!rolling.stderr.contains("error:"), "\(rolling.stderr)")
    #expect(rolling.stderr.contains("context: dropped the"), "\(rolling.stderr)")
  }

  /// The integer after `label` in `text`.
  static func number(after label: String, in text: String) -> Int? {
    guard let range = text.range(of: label) else { return nil }
    return Int(text[range.upperBound...].prefix { $0.isNumber })
  }

  @Test("--mode against a `hybrid serve`: the cloud answers; after SIGTERM the server exits cleanly and prefer-cloud falls back")
  func modesAgainstServe() async throws {
    let server = try await ServerProcess(executable: Self.executable, arguments: [
      "--model", "smollm2=\(ModelLocatorPath.path)", "--alias", "gemini-2.5-flash=smollm2", "--data", Self.scratchRegistry()])
    let url = server.baseURL.absoluteString
    let cloudArguments = ["--cloud-url", url, "--cloud-model", "smollm2", "--greedy", "--max-tokens", "6", "--json"]

    let viaCloud = try await run(["generate", "--prompt", "Hi", "--mode", "prefer-cloud"] + cloudArguments)
    #expect(viaCloud.status == 0, "\(viaCloud.stderr)")
    let cloudJSON = try json(viaCloud.stdout)
    #expect(cloudJSON["source"] as? String == "cloud" && cloudJSON["modelVersion"] as? String == "smollm2")
    #expect(cloudJSON.keys.contains("fallbackReason") && cloudJSON["fallbackReason"] is NSNull)

    let onDevice = try await run(["generate", "--prompt", "Hi", "--mode", "prefer-on-device"] + cloudArguments)
    #expect(try json(onDevice.stdout)["source"] as? String == "on-device")

    // The lists keep the command line's order (models, then aliases), not the names' order.
    let geminiList = try await TestHTTP.send(.GET, URL(string: url + "/v1beta/models")!)
    #expect((try geminiList.json["models"] as? [[String: Any]])?.map { $0["name"] as? String } == ["models/smollm2", "models/gemini-2.5-flash"])
    let openAIList = try await TestHTTP.send(.GET, URL(string: url + "/v1beta/openai/models")!)
    #expect((try openAIList.json["data"] as? [[String: Any]])?.map { $0["id"] as? String } == ["smollm2", "gemini-2.5-flash"])

    // Without --cloud-model the server's first model answers; an alias answers as its model.
    for (api, extra) in [("gemini", [String]()), ("openai", ["--cloud-api", "openai"])] {
      let base = api == "gemini" ? url : url + "/v1beta/openai"
      let unnamed = try await run(["generate", "--prompt", "Hi", "--mode", "cloud", "--cloud-url", base, "--greedy",
                                   "--max-tokens", "6", "--json"] + extra)
      #expect(unnamed.status == 0, "\(api): \(unnamed.stderr)")
      let unnamedJSON = try json(unnamed.stdout)
      #expect(unnamedJSON["modelVersion"] as? String == "smollm2", "\(api)")
      #expect(unnamedJSON["text"] as? String == cloudJSON["text"] as? String, "\(api)")
    }
    let aliased = try await run(["generate", "--prompt", "Hi", "--mode", "cloud", "--cloud-url", url, "--cloud-model",
                                 "gemini-2.5-flash", "--greedy", "--max-tokens", "6", "--json"])
    #expect(aliased.status == 0, "\(aliased.stderr)")
    #expect(try json(aliased.stdout)["modelVersion"] as? String == "smollm2")
    #expect(try json(aliased.stdout)["text"] as? String == cloudJSON["text"] as? String)

    // The same server through its OpenAI API: the same greedy answer.
    let openAIArguments = ["--cloud-api", "openai", "--cloud-url", url + "/v1beta/openai", "--cloud-model", "smollm2",
                           "--greedy", "--max-tokens", "6", "--json"]
    let viaOpenAI = try await run(["generate", "--prompt", "Hi", "--mode", "cloud"] + openAIArguments)
    #expect(viaOpenAI.status == 0, "\(viaOpenAI.stderr)")
    let openAIJSON = try json(viaOpenAI.stdout)
    #expect(openAIJSON["source"] as? String == "cloud" && openAIJSON["modelVersion"] as? String == "smollm2")
    #expect(openAIJSON["text"] as? String == cloudJSON["text"] as? String)

    let stopped = await server.stop()   // SIGTERM: graceful shutdown
    #expect(stopped.succeeded, "\(stopped)")

    let fallback = try await run(["generate", "--prompt", "Hi", "--mode", "prefer-cloud"] + cloudArguments)
    #expect(fallback.status == 0, "\(fallback.stderr)")
    let fallbackJSON = try json(fallback.stdout)
    #expect(fallbackJSON["source"] as? String == "on-device")
    #expect((fallbackJSON["fallbackReason"] as? String)?.contains("offline") == true)
    #expect(fallback.stderr.contains("falling back"))   // logged at warning level

    let onlyCloud = try await run(["generate", "--prompt", "Hi", "--mode", "cloud"] + cloudArguments)
    #expect(onlyCloud.status == 1)
    let error = try #require(try json(onlyCloud.stdout)["error"] as? [String: Any])
    #expect(error["kind"] as? String == "gemini.offline.connectionRefused")
    let onlyOpenAI = try await run(["generate", "--prompt", "Hi", "--mode", "cloud"] + openAIArguments)
    #expect(onlyOpenAI.status == 1)
    #expect((try json(onlyOpenAI.stdout)["error"] as? [String: Any])?["kind"] as? String == "openai.offline.connectionRefused")
  }

  @Test("serve shuts down gracefully on SIGINT: exit status 0")
  func serveStopsOnSIGINT() async throws {
    let server = try await ServerProcess(executable: Self.executable, arguments: [
      "--model", "smollm2=\(ModelLocatorPath.path)", "--data", Self.scratchRegistry()])
    let stopped = await server.stop(signal: SIGINT)
    #expect(stopped.succeeded, "\(stopped)")
  }

  @Test("serve rejects bad --model specs and ports before starting")
  func serveValidation() {
    #expect(throws: (any Error).self) { try ServeCommand.parse(["--model", "bad name=/x.gguf"]) }
    #expect(throws: (any Error).self) { try ServeCommand.parse(["--port", "70000"]) }
    let settings = try? ServeCommand.parse(["--model", "/models/My Model.Q4.gguf"]).flags
    #expect((try? ServeSettings(ServeConfiguration.flagsOnly(settings ?? [:])).models.first?.name) == "my-model.q4")
    #expect(throws: (any Error).self) { try ServeCommand.parse(["--alias", "gemini-2.5-flash=nope"]) }
    #expect(throws: (any Error).self) { try ServeCommand.parse(["--alias", "smollm2=smollm2"]) }
    #expect(throws: (any Error).self) { try ServeCommand.parse(["--alias", "no equals"]) }
    let aliased = try? ServeCommand.parse(["--alias", "models/gemini-2.5-flash=smollm2"]).flags
    let aliases = try? ServeSettings(ServeConfiguration.flagsOnly(aliased ?? [:])).aliases
    #expect(aliases?.first?.alias == "gemini-2.5-flash" && aliases?.first?.model == "smollm2")
  }

  @Test("--cloud-timeout: a cloud that accepts and never answers is offline (noResponse) after that long (both APIs): only-cloud fails, prefer-cloud answers on device; a bad value exits 64",
        arguments: [["--cloud-model", "m"], ["--cloud-api", "openai", "--cloud-model", "m"]])
  func cloudTimeout(_ api: [String]) async throws {
    let silent = try LoopbackSocket(listening: true)   // accepts, never answers
    defer { silent.close() }
    let cloud = ["--cloud-url", "http://127.0.0.1:\(silent.port)", "--cloud-timeout", "0.5", "--json"] + api
    // With the default (300 s) this would wait five minutes: the read timeout's own message shows the flag took.
    let result = try await run(["generate", "--prompt", "Hi", "--mode", "cloud"] + cloud)
    #expect(result.status == 1, "\(result.stderr)")
    let error = try #require(try json(result.stdout)["error"] as? [String: Any])
    let prefix = api.contains("openai") ? "openai" : "gemini"
    #expect(error["kind"] as? String == "\(prefix).offline.noResponse" && (error["message"] as? String)?.contains("read timeout") == true,
            "\(result.stdout)")
    let fellBack = try await run(["generate", "--prompt", "Hi", "--mode", "prefer-cloud", "--greedy", "--max-tokens", "3"] + cloud)
    #expect(fellBack.status == 0, "\(fellBack.stderr)")
    let answer = try json(fellBack.stdout)
    #expect(answer["source"] as? String == "on-device" && (answer["fallbackReason"] as? String)?.contains("no response") == true,
            "\(fellBack.stdout)")
    for bad in ["0", "-3", "nan", "100000"] {
      let refused = try await run(["generate", "--prompt", "Hi", "--cloud-timeout", bad])
      #expect(refused.status == 64 && refused.stderr.contains("--cloud-timeout"), "\(bad): \(refused.stderr)")
    }
  }

  @Test("--cloud-api openai needs the server or the served model's name; a bad --cloud-api is rejected")
  func openAICloudNeedsAModelName() {
    #expect(throws: (any Error).self) { try GenerateCommand.parse(["--prompt", "x", "--mode", "cloud", "--cloud-api", "openai"]) }
    #expect((try? GenerateCommand.parse(["--prompt", "x", "--mode", "cloud", "--cloud-api", "openai",
                                         "--cloud-url", "http://127.0.0.1:1/v1"])) != nil)
    #expect(throws: (any Error).self) { try GenerateCommand.parse(["--prompt", "x", "--cloud-api", "grpc"]) }
    #expect((try? GenerateCommand.parse(["--prompt", "x", "--mode", "cloud", "--cloud-api", "openai", "--cloud-model", "m"])) != nil)
  }

  @Test("conflicting sampling flags are rejected before anything runs")
  func conflictingFlags() {
    #expect(throws: (any Error).self) { try GenerateCommand.parse(["--prompt", "x", "--greedy", "--top-k", "3"]) }
    #expect(throws: (any Error).self) { try GenerateCommand.parse(["--prompt", "x", "--top-p", "1.5"]) }
  }

  @Test("sampling flags map to GenerationOptions")
  func samplingFlags() async throws {
    let command = try GenerateCommand.parse(["--prompt", "x", "--top-k", "5", "--seed", "3", "--temperature", "0.4",
                                             "--max-tokens", "9", "--stop", "END"])
    let options = command.sampling.generationOptions
    #expect(options.sampling == .random(top: 5, seed: 3))
    #expect(options.temperature == 0.4 && options.maximumResponseTokens == 9 && options.stopSequences == ["END"])
  }
}

/// The bootstrap's model file, as the CLI finds it.
enum ModelLocatorPath {
  static var path: String { HybridAIOnDevice.ModelLocator.defaultModelPath() }
}

@Suite("Repetition measure")
struct RepetitionMeasureTests {
  @Test("a loop repeats its trigrams; prose does not; short texts count nothing")
  func measures() {
    let loop = RepetitionMeasure("The cat sat on the mat. The cat sat on the mat.")
    #expect(loop.trigrams == 10 && loop.repeatedTrigrams == 4)
    #expect(RepetitionMeasure("Swift is a language for apps on Apple platforms and Linux.").ratio == 0)
    #expect(RepetitionMeasure("Hi there").trigrams == 0 && RepetitionMeasure("Hi there").ratio == 0)
    let tally = RepetitionTally()
    #expect(tally.summary == nil)
    tally.record("The cat sat on the mat. The cat sat on the mat.")
    tally.record("Swift is a language for apps.")
    #expect(tally.summary == "2 answers · 28.6% of word trigrams repeated · worst answer 40.0%")
  }
}
