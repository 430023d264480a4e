import Foundation
import HybridAIOnDevice
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
@testable import hybrid
import Testing

/// `hybrid serve`'s configuration: a YAML or JSON file under the environment under the flags,
/// secrets from files, clear errors for unknown keys and bad values — resolved in process, and
/// through the real executable (`--print-config`, a server started from a file, `hybrid keys`).
@Suite("hybrid serve: config file, environment, flags; hybrid keys")
struct ServeConfigurationTests {
  func write(_ text: String, to name: String, in directory: TemporaryDirectory) throws -> String {
    let url = directory.url.appending(path: name)
    try Data(text.utf8).write(to: url)
    return url.path
  }

  func settings(_ arguments: [String], environment: [String: String] = [:]) async throws -> (ServeConfiguration, ServeSettings) {
    let flags = try ServeCommand.parse(arguments).flags
    let configuration = try await ServeConfiguration.resolve(flags: flags, environment: environment)
    return (configuration, try ServeSettings(configuration))
  }

  @Test("flags win over the environment, which wins over the file, which wins over the defaults; each value knows its source")
  func layering() async throws {
    let directory = try TemporaryDirectory("serve-config")
    defer { directory.remove() }
    let file = try write("""
      # a service's settings
      host: 0.0.0.0
      port: 9000
      max-concurrent-requests: 4
      model: ["a=/models/a.gguf", "b=/models/b.gguf"]
      alias: ["gemini-2.5-flash=a"]
      no-chat: true
      tokens-per-minute: 5000
      """, to: "serve.yaml", in: directory)
    let (configuration, settings) = try await settings(
      ["--config", file, "--port", "9100"],
      environment: ["HYBRIDAI_SERVE_PORT": "9200", "HYBRIDAI_SERVE_MAX_CONCURRENT_REQUESTS": "6", "HOME": "/root"])
    #expect(settings.port == 9100 && configuration.origin(.port) == "--port")
    #expect(settings.maxConcurrentRequests == 6 && configuration.origin(.maxConcurrentRequests) == "$HYBRIDAI_SERVE_MAX_CONCURRENT_REQUESTS")
    #expect(settings.host == "0.0.0.0" && configuration.origin(.host) == "host in \(file)")
    #expect(settings.models.map(\.name) == ["a", "b"] && settings.aliases.first?.alias == "gemini-2.5-flash")
    #expect(settings.noChat && settings.tokensPerMinute == 5000)
    #expect(settings.contextSize == 4096 && configuration.origin(.contextSize) == "the default context-size")

    // The same from JSON.
    let json = try write(#"{"port": 9300, "registry-only": true, "log-format": "json"}"#, to: "serve.json", in: directory)
    let (_, fromJSON) = try await self.settings(["--config", json])
    #expect(fromJSON.port == 9300 && fromJSON.registryOnly && fromJSON.models.isEmpty && fromJSON.logFormat == .json)
    // The file named by the environment.
    let (_, fromEnvironment) = try await self.settings([], environment: ["HYBRIDAI_SERVE_CONFIG": json])
    #expect(fromEnvironment.port == 9300)
  }

  @Test("the web chat's answer limits: numbers from a flag, a file (a whole number too) and the environment; bad ones refused")
  func chatAnswerLimits() async throws {
    let defaults = try await settings([]).1
    #expect(defaults.chatMaxTokens == 1024 && defaults.chatLoopPenalty == 0.8)
    #expect(defaults.chatOptions.maximumResponseTokens == 1024 && defaults.chatOptions.loopPenalty == .standard)
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = try write("chat-loop-penalty: 1\nchat-max-tokens: 300\n", to: "serve.yaml", in: directory)
    let fromFile = try await settings(["--config", file]).1
    #expect(fromFile.chatLoopPenalty == 1 && fromFile.chatMaxTokens == 300)
    let fromEnvironment = try await settings(["--config", file], environment: ["HYBRIDAI_SERVE_CHAT_LOOP_PENALTY": "0.5"]).1
    #expect(fromEnvironment.chatLoopPenalty == 0.5)
    let fromFlag = try await settings(["--config", file, "--chat-loop-penalty", "0"]).1
    #expect(fromFlag.chatLoopPenalty == 0 && fromFlag.chatOptions.hasPenalties == false, "0 is off")
    await #expect(throws: ServeConfigurationError.self) {
      try await settings([], environment: ["HYBRIDAI_SERVE_CHAT_LOOP_PENALTY": "-1"])
    }
    await #expect(throws: ServeConfigurationError.self) { try await settings([], environment: ["HYBRIDAI_SERVE_CHAT_MAX_TOKENS": "0"]) }
    let words = try write("chat-loop-penalty: strong\n", to: "words.yaml", in: directory)
    await #expect(throws: ServeConfigurationError.self) { try await settings(["--config", words]) }
  }

  @Test("prompt scheduling: auto by default (the model's placement decides), either mode from a flag, a file or the environment; others refused")
  func promptScheduling() async throws {
    #expect(try await settings([]).1.promptScheduling == nil)
    #expect(try await settings([]).1.promptCacheMemoryMiB == nil)  // 256 MiB on the CPU, off on a GPU
    #expect(try await settings(["--prompt-cache-memory", "0"]).1.promptCacheMemoryMiB == 0)
    await #expect(throws: ServeConfigurationError.self) {
      try await settings([], environment: ["HYBRIDAI_SERVE_PROMPT_CACHE_MEMORY": "-1"])
    }
    #expect(try await settings(["--prompt-scheduling", "throughput"]).1.promptScheduling == .throughput)
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = try write("prompt-scheduling: reproducible\n", to: "serve.yaml", in: directory)
    #expect(try await settings(["--config", file]).1.promptScheduling == .reproducible)
    #expect(try await settings(["--config", file], environment: ["HYBRIDAI_SERVE_PROMPT_SCHEDULING": "AUTO"]).1.promptScheduling == nil)
    await #expect(throws: ServeConfigurationError.self) {
      try await settings([], environment: ["HYBRIDAI_SERVE_PROMPT_SCHEDULING": "fast"])
    }
    await #expect(throws: (any Error).self, "a flag is checked as it is parsed") { try await settings(["--prompt-scheduling", "fast"]) }
  }

  @Test("cors-origin: none by default; origins or * from flags, a file or the environment; a URL with a path refused")
  func corsOrigins() async throws {
    #expect(try await settings([]).1.corsOrigins.isEmpty)
    #expect(try await settings(["--cors-origin", "https://app.example.com", "--cors-origin", "http://localhost:3000"]).1.corsOrigins
      == ["https://app.example.com", "http://localhost:3000"])
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = try write("cors-origin: ['*']\n", to: "serve.yaml", in: directory)
    #expect(try await settings(["--config", file]).1.corsOrigins == ["*"])
    await #expect(throws: (any Error).self, "a path is not an origin") { try await settings(["--cors-origin", "https://app.example.com/chat"]) }
    await #expect(throws: ServeConfigurationError.self) {
      try await settings([], environment: ["HYBRIDAI_SERVE_CORS_ORIGIN": "app.example.com"])
    }
  }

  @Test("embedding pooling: the model's own by default; from a flag, a file or the environment; an unknown one is refused")
  func embeddingPooling() async throws {
    #expect(try await settings([]).1.embeddingPooling == .automatic)
    #expect(try await settings(["--embedding-pooling", "last-token"]).1.embeddingPooling == .lastToken)
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = try write("embedding-pooling: first-token\n", to: "serve.yaml", in: directory)
    #expect(try await settings(["--config", file]).1.embeddingPooling == .firstToken)
    #expect(try await settings([], environment: ["HYBRIDAI_SERVE_EMBEDDING_POOLING": "MEAN"]).1.embeddingPooling == .mean)
    await #expect(throws: ServeConfigurationError.self) {
      try await settings([], environment: ["HYBRIDAI_SERVE_EMBEDDING_POOLING": "max"])
    }
    await #expect(throws: (any Error).self, "a flag is checked as it is parsed") { try await settings(["--embedding-pooling", "max"]) }
  }

  @Test("batch contexts: one by default; from a flag, a file or the environment; not above max-concurrent-requests, not 0")
  func batchContexts() async throws {
    #expect(try await settings([]).1.batchContexts == nil)
    #expect(try await settings(["--batch-contexts", "2"]).1.batchContexts == 2)
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = try write("batch-contexts: 4\nmax-concurrent-requests: 64\n", to: "serve.yaml", in: directory)
    #expect(try await settings(["--config", file]).1.batchContexts == 4)
    #expect(try await settings([], environment: ["HYBRIDAI_SERVE_BATCH_CONTEXTS": "3"]).1.batchContexts == 3)
    await #expect(throws: ServeConfigurationError.self, "more contexts than sequences") {
      try await settings([], environment: ["HYBRIDAI_SERVE_BATCH_CONTEXTS": "9", "HYBRIDAI_SERVE_MAX_CONCURRENT_REQUESTS": "8"])
    }
    await #expect(throws: ServeConfigurationError.self) { try await settings([], environment: ["HYBRIDAI_SERVE_BATCH_CONTEXTS": "0"]) }
    await #expect(throws: (any Error).self, "a flag is checked as it is parsed") {
      try await settings(["--batch-contexts", "9", "--max-concurrent-requests", "8"])
    }
  }

  @Test("draft-max: 48 by default, 0 turns speculative decoding off, out of range refused")
  func draftMax() async throws {
    #expect(try await settings([]).1.draftMax == 48)
    #expect(try await settings(["--draft-max", "0"]).1.draftMax == 0)
    #expect(try await settings([], environment: ["HYBRIDAI_SERVE_DRAFT_MAX": "16"]).1.draftMax == 16)
    await #expect(throws: ServeConfigurationError.self) { try await settings([], environment: ["HYBRIDAI_SERVE_DRAFT_MAX": "-1"]) }
    await #expect(throws: (any Error).self, "a flag is checked as it is parsed") { try await settings(["--draft-max", "5000"]) }
  }

  @Test("draft-model: MODEL=FILE per served model; an unknown model, a missing file, two for one model or draft-max 0 beside it refused")
  func draftModel() async throws {
    let file = TestRepository.dependency("models/SmolLM2-135M-Instruct.Q4_1.gguf").path
    #expect(try await settings([]).1.draftModels.isEmpty)
    #expect(try await settings(["--draft-model", "smollm2=\(file)"]).1.draftModels == ["smollm2": file])
    #expect(try await settings([], environment: ["HYBRIDAI_SERVE_DRAFT_MODEL": "smollm2=\(file)"]).1.draftModels == ["smollm2": file])
    for (arguments, says) in [
      (["--draft-model", "other=\(file)"], "naming a served model (served: smollm2)"),
      (["--draft-model", "smollm2=/nonexistent.gguf"], "no readable file at /nonexistent.gguf"),
      (["--draft-model", "smollm2=\(file)", "--draft-model", "smollm2=\(file)"], "model smollm2 already has a draft model"),
      (["--draft-model", "smollm2=\(file)", "--draft-max", "0"], "turns speculative decoding off"),
    ] {
      do {
        _ = try await settings(arguments)
        Issue.record("\(arguments) was taken")
      } catch {   // a flag is checked as it is parsed
        #expect("\(error)".contains(says), "\(error)")
      }
    }
    // Another vocabulary: the server does not start, and says why.
    let scratch = try TemporaryDirectory("serve-draft-model")
    defer { scratch.remove() }
    let gemma = TestRepository.dependency("models/gemma-3-270m-q4_k_m.gguf").path
    let refused = try await ChildProcess.run(HybridCommandTests.executable, [
      "serve", "--model", "smollm2=\(file)", "--draft-model", "smollm2=\(gemma)", "--port", "0",
      "--data", scratch.url.path, "--no-chat",
    ], mergingStandardError: true)
    #expect(refused.status == 1, "\(refused.standardOutput)")
    #expect(refused.standardOutput.contains("cannot be the draft model for speculative decoding: its tokenizer is SentencePiece"),
            "\(refused.standardOutput)")
  }

  @Test("mcp-config and mcp-servers: the MCP servers from mcpServers files or inline JSON (flag or config key); a missing or broken file or value, or one server name twice, refused naming it")
  func mcpConfig() async throws {
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    let time = try write(#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}"#, to: "time.json", in: scratch)
    let git = try write(#"{"servers": {"git": {"type": "stdio", "command": "uvx", "args": ["mcp-server-git"]}}}"#, to: "git.json", in: scratch)
    #expect(try await settings([]).1.mcpServers.isEmpty)
    #expect(try await settings(["--mcp-config", time, "--mcp-config", git]).1.mcpServers.map(\.name) == ["time", "git"])
    let file = try write("mcp-config: [\"\(time)\"]\n", to: "serve.yaml", in: scratch)
    #expect(try await settings(["--config", file]).1.mcpServers.map(\.arguments) == [["mcp-server-time"]])
    let broken = try write(#"{"mcpServers": {"time": {"args": []}}}"#, to: "broken.json", in: scratch)
    let brokenFile = try write("mcp-config: [\"\(broken)\"]\n", to: "broken.yaml", in: scratch)
    await #expect {
      try await settings(["--config", brokenFile])
    } throws: { error in
      guard case .invalidValue(let origin, let reason)? = error as? ServeConfigurationError else { return false }
      return origin.contains("mcp-config") && origin.contains("broken.yaml") && reason.contains("broken.json") && reason.contains("command")
    }

    // Servers inline (mcp-servers), beside the files' or alone; the same rules.
    let inline = #"{"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}"#
    #expect(try await settings(["--mcp-config", time, "--mcp-servers", inline]).1.mcpServers.map(\.name) == ["time", "fetch"])
    let inlineFile = try write("mcp-servers: '{\"mcpServers\": \(inline)}'\n", to: "inline.yaml", in: scratch)
    #expect(try await settings(["--config", inlineFile]).1.mcpServers.map(\.arguments) == [["mcp-server-fetch"]])
    for (value, needle) in [("[1]", "is not a JSON object of MCP servers"), (#"{"x": {"comand": "y"}}"#, "unknown key \"comand\""),
                            (#"{"time": {"command": "uvx"}}"#, "two MCP servers are named time")] {
      await #expect {
        try await settings(["--mcp-config", time, "--mcp-servers", value])
      } throws: { error in
        "\(error)".contains(needle)
      }
    }

    for (arguments, needle) in [([broken], "broken.json"), ([scratch.url.appending(path: "none.json").path], "none.json"),
                                ([time, time], "two MCP servers are named time")] {
      // Flags are checked as they are parsed; the message names the flag and the problem either way.
      await #expect {
        try await settings(arguments.flatMap { ["--mcp-config", $0] })
      } throws: { error in
        "\(error)".contains("--mcp-config") && "\(error)".contains(needle)
      }
    }
  }

  @Test("mcp-api-model: off by default; a served model's name (flag or config key) with mcp-config; without a server, or naming no served model, refused")
  func mcpAPIModel() async throws {
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    let servers = TestRepository.file("deploy/mcp-servers.json").path
    #expect(try await settings(["--mcp-config", servers]).1.mcpAPIModels.isEmpty)
    #expect(try await settings(["--mcp-config", servers, "--mcp-api-model", "smollm2"]).1.mcpAPIModels == ["smollm2"])
    let file = try write("mcp-config: [\"\(servers)\"]\nmcp-api-model: [smollm2]\n", to: "serve.yaml", in: scratch)
    #expect(try await settings(["--config", file]).1.mcpAPIModels == ["smollm2"])
    for (arguments, needle) in [(["--mcp-api-model", "smollm2"], "no MCP server is configured"),
                                (["--mcp-config", servers, "--mcp-api-model", "other"], "no served model is named other (served: smollm2)")] {
      await #expect {
        try await settings(arguments)
      } throws: { error in
        "\(error)".contains("--mcp-api-model") && "\(error)".contains(needle)
      }
    }
  }

  @Test("chat-template: MODEL=TEMPLATE for one model, TEMPLATE for every model (MODEL= wins); files, chatml and built-in names; typos refused with the reason")
  func chatTemplates() async throws {
    let directory = try TemporaryDirectory("serve-templates")
    defer { directory.remove() }
    let jinja = try write("{% for message in messages %}{{ message.content }}{% endfor %}", to: "mine.jinja", in: directory)
    let models = ["--model", "a=/models/a.gguf", "--model", "b=/models/b.gguf", "--model", "c=/models/c.gguf"]
    #expect(try await settings(models).1.chatTemplates.isEmpty, "each model's own template by default")
    let (_, both) = try await settings(models + ["--chat-template", "chatml", "--chat-template", "b=\(jinja)"])
    #expect(both.chatTemplates["a"]?.template == .named("chatml") && both.chatTemplates["c"]?.argument == "chatml")
    #expect(both.chatTemplates["b"]?.template == .jinja("{% for message in messages %}{{ message.content }}{% endfor %}"))
    #expect(both.chatTemplates["b"]?.argument == jinja)
    let file = try write("model: [\"a=/models/a.gguf\"]\nchat-template: [\"a=llama3\"]\n", to: "serve.yaml", in: directory)
    #expect(try await settings(["--config", file]).1.chatTemplates["a"]?.template == .named("llama3"))
    let fromEnvironment = try await settings(models, environment: ["HYBRIDAI_SERVE_CHAT_TEMPLATE": "c=gemma"]).1
    #expect(fromEnvironment.chatTemplates.keys.sorted() == ["c"])

    func refusal(_ arguments: [String]) async -> String {
      do {
        _ = try await settings(arguments)
        return "no error"
      } catch {
        return "\(error)"
      }
    }
    let unknownModel = await refusal(models + ["--chat-template", "d=chatml"])
    #expect(unknownModel.contains("no served model is named d (served: a, b, c"), "\(unknownModel)")
    let unknownName = await refusal(models + ["--chat-template", "chatmll"])
    #expect(unknownName.contains("chatmll is neither a file nor a template name") && unknownName.contains("llama3"), "\(unknownName)")
    let missingFile = await refusal(models + ["--chat-template", "a=\(directory.url.path)/missing.jinja"])
    #expect(missingFile.contains("no file at \(directory.url.path)/missing.jinja"), "\(missingFile)")
    let folder = await refusal(models + ["--chat-template", directory.url.path])
    #expect(folder.contains("is a folder, not a .jinja file"), "\(folder)")
    let twice = await refusal(models + ["--chat-template", "a=chatml", "--chat-template", "a=gemma"])
    #expect(twice.contains("model a already has a chat template"), "\(twice)")
    let registryOnly = await refusal(["--registry-only", "--chat-template", "chatml"])
    #expect(registryOnly.contains("loads no model"), "\(registryOnly)")
  }

  @Test("chat-template end to end: the served model renders with its configured template (its own preamble counted in countTokens), the other model and an alias as configured, the start line names it")
  func chatTemplateServed() async throws {
    let directory = try TemporaryDirectory("serve-template-run")
    defer { directory.remove() }
    let preamble = String(repeating: "Preamble line. ", count: 60)
    let template = try write(preamble + """
      {% for message in messages %}<|im_start|>{{ message.role }}
      {{ message.content }}<|im_end|>
      {% endfor %}<|im_start|>assistant

      """, to: "preamble.jinja", in: directory)
    let server = try await ServeLifecycleTests.Server(executable: HybridCommandTests.executable, arguments: [
      "--data", directory.appending("registry").path, "--no-chat", "--max-concurrent-requests", "1", "--context-size", "1024",
      "--model", "own=\(ModelLocatorPath.path)", "--model", "templated=\(ModelLocatorPath.path)",
      "--alias", "other-name=templated", "--chat-template", "templated=\(template)",
    ])
    let base = URL(string: "http://127.0.0.1:\(server.port)")!
    func promptTokens(_ model: String) async throws -> Int {
      let counted = try await TestHTTP.send(.POST, base.appending(path: "v1beta/models/\(model):countTokens"),
                                            json: ["contents": [["role": "user", "parts": [["text": "Hello there"]]]]])
      #expect(counted.status == 200, "\(counted.text)")
      return try #require((try JSONSerialization.jsonObject(with: counted.body) as? [String: Any])?["totalTokens"] as? Int)
    }
    let own = try await promptTokens("own"), templated = try await promptTokens("templated")
    #expect(templated - own > 100, "60 preamble lines are counted for the templated model only: \(own) vs \(templated)")
    #expect(try await promptTokens("other-name") == templated, "an alias runs its model's template")
    let answered = try await TestHTTP.send(.POST, base.appending(path: "v1beta/models/templated:generateContent"), json: [
      "contents": [["role": "user", "parts": [["text": "Say hi"]]]], "generationConfig": ["maxOutputTokens": 4, "temperature": 0],
    ])
    #expect(answered.status == 200, "\(answered.text)")
    let (status, stderr) = await server.stop()
    #expect(status == 0, "\(stderr.suffix(1500))")
    let startLines = stderr.split(separator: "\n").filter { $0.contains("hybrid serve: model ") }
    #expect(startLines.count == 2 && startLines.filter { $0.contains(", chat template \(template),") }.count == 1
      && startLines.contains { $0.contains("model templated on ") && $0.contains("chat template") }, "\(startLines)")
  }

  @Test("secrets from files (one value; a list one a line); --print-config masks them and names every source")
  func secretsAndPrinting() async throws {
    let directory = try TemporaryDirectory("serve-secrets")
    defer { directory.remove() }
    let token = try write("admin-secret-value\n", to: "admin-token", in: directory)
    let keys = try write("# client keys\nkey-one\n\nkey-two\n", to: "api-keys", in: directory)
    let file = try write("admin-token-file: \(token)\nport: 9000\n", to: "serve.yaml", in: directory)
    let (configuration, settings) = try await settings(["--config", file, "--api-key-file", keys],
                                                       environment: ["HYBRIDAI_ADMIN_TOKEN": "older-variable"])
    #expect(settings.adminToken == "older-variable", "the environment (even its older names) wins over the file")
    #expect(settings.apiKeys == ["key-one", "key-two"])
    let printed = configuration.printable()
    #expect(!printed.contains("key-one") && !printed.contains("older-variable") && !printed.contains("admin-secret-value"), "\(printed)")
    #expect(printed.contains(#"api-key: ["********", "********"]  # --api-key-file"#), "\(printed)")
    #expect(printed.contains("port: 9000  # port in \(file)") && printed.contains("context-size: 4096  # default"), "\(printed)")
    let (_, fromFile) = try await self.settings(["--config", file])
    #expect(fromFile.adminToken == "admin-secret-value")

    await #expect(throws: ServeConfigurationError.self) {
      try await self.settings(["--admin-token-file", directory.url.appending(path: "missing").path])
    }
    let empty = try write("\n", to: "empty", in: directory)
    await #expect { try await self.settings(["--admin-token-file", empty]) } throws: { "\($0)".contains("the file is empty") }
  }

  @Test("unknown keys (with a suggestion), unknown HYBRIDAI_SERVE_ variables, wrong types and bad values name their source")
  func errors() async throws {
    let directory = try TemporaryDirectory("serve-errors")
    defer { directory.remove() }
    func failure(_ text: String, name: String = "serve.yaml", environment: [String: String] = [:]) async -> String {
      do {
        let path = try write(text, to: name, in: directory)
        _ = try await settings(["--config", path], environment: environment)
        return "no error"
      } catch {
        return "\(error)"
      }
    }
    let typo = await failure("prot: 9000\n")
    #expect(typo.contains("unknown setting prot in") && typo.contains("did you mean port?"), "\(typo)")
    let type = await failure("port: many\n")
    #expect(type.contains("port in") && type.contains("must be a whole number"), "\(type)")
    let range = await failure("port: 70000\n")
    #expect(range.contains("port in") && range.contains("0...65535"), "\(range)")
    let nested = await failure("chat:\n  cloud-url: http://x\n")
    #expect(nested.contains("unknown setting chat"), "\(nested)")
    let notMapping = await failure("- port\n- 9000\n")
    #expect(notMapping.contains("expected a mapping"), "\(notMapping)")
    let broken = await failure("port: [9000\n")
    #expect(broken.contains("is not valid"), "\(broken)")
    let badAlias = await failure("alias: [\"x=nope\"]\n")
    #expect(badAlias.contains("alias in") && badAlias.contains("no served model is named nope"), "\(badAlias)")
    let extensionless = await failure("port: 1\n", name: "serve.conf")
    #expect(extensionless.contains(".yaml, .yml or .json"), "\(extensionless)")
    let variable = await failure("port: 1\n", environment: ["HYBRIDAI_SERVE_MAX_CONCURENT_REQUESTS": "2"])
    #expect(variable.contains("$HYBRIDAI_SERVE_MAX_CONCURENT_REQUESTS") && variable.contains("did you mean $HYBRIDAI_SERVE_MAX_CONCURRENT_REQUESTS?"), "\(variable)")
    let environmentType = await failure("port: 1\n", environment: ["HYBRIDAI_SERVE_CONTEXT_SIZE": "big"])
    #expect(environmentType.contains("$HYBRIDAI_SERVE_CONTEXT_SIZE must be a whole number"), "\(environmentType)")
    await #expect { try await self.settings(["--config", "/nonexistent/serve.yaml"]) } throws: { "\($0)".contains("cannot read the config file") }
  }

  @Test("the real executable: --print-config, a bad file exits 64 with the reason, a server started from a file, keys made by hybrid keys")
  func executable() async throws {
    let directory = try TemporaryDirectory("serve-config-cli")
    defer { directory.remove() }
    let data = directory.url.appending(path: "data").path
    let file = try write("registry-only: true\ndata: \(data)\nadmin-token: file-admin\n", to: "serve.yaml", in: directory)
    let printed = try await ChildProcess.run(HybridCommandTests.executable, ["serve", "--config", file, "--print-config"])
    #expect(printed.status == 0 && printed.standardOutput.contains("registry-only: true  # registry-only in \(file)"), "\(printed.standardOutput)")
    #expect(printed.standardOutput.contains(#"admin-token: "********""#) && !printed.standardOutput.contains("file-admin"))

    let bad = try write("registry-only: true\nport: high\n", to: "bad.yaml", in: directory)
    let refused = try await ChildProcess.run(HybridCommandTests.executable, ["serve", "--config", bad], mergingStandardError: true)
    #expect(refused.status == 64 && refused.standardOutput.contains("port in \(bad) must be a whole number"), "\(refused.standardOutput)")

    // Keys: made before the server starts and while it runs; the server sees both, and a revoke.
    let created = try await ChildProcess.run(HybridCommandTests.executable, ["keys", "create", "reader", "--scope", "registry-read", "--data", data])
    let reader = created.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(created.status == 0 && reader.hasPrefix("hai_"), "\(created)")
    let server = try await ServerProcess(executable: HybridCommandTests.executable, arguments: ["--config", file])
    defer { server.terminate() }
    let download = server.baseURL.appending(path: "v1/models/none:download")
    #expect(try await TestHTTP.send(.GET, download).status == 403, "keys are required: the file exists")
    #expect(try await TestHTTP.send(.GET, download, headers: ["x-goog-api-key": reader]).status == 404, "let in; no such model")
    let admin = try await ChildProcess.run(HybridCommandTests.executable, ["keys", "create", "ops", "--scope", "registry-admin", "--data", data, "--json"])
    let adminKey = try #require((try JSONSerialization.jsonObject(with: Data(admin.standardOutput.utf8)) as? [String: Any])?["key"] as? String)
    #expect(try await TestHTTP.send(.GET, server.baseURL.appending(path: "v1/admin/models"), headers: ["authorization": "Bearer \(adminKey)"]).status == 200)
    #expect(try await TestHTTP.send(.GET, server.baseURL.appending(path: "v1/admin/models"), headers: ["authorization": "Bearer file-admin"]).status == 200,
            "the admin token from the file works too")
    let listed = try await ChildProcess.run(HybridCommandTests.executable, ["keys", "list", "--data", data])
    #expect(listed.standardOutput.contains("reader") && listed.standardOutput.contains("registry-admin") && !listed.standardOutput.contains(reader))
    let listedJSON = try await ChildProcess.run(HybridCommandTests.executable, ["keys", "list", "--data", data, "--json"])
    let records = try #require(try JSONSerialization.jsonObject(with: Data(listedJSON.standardOutput.utf8)) as? [[String: Any]])
    #expect(records.allSatisfy { ($0["created"] as? String)?.hasPrefix("20") == true }, "ISO 8601 dates: \(listedJSON.standardOutput)")
    let order = ["generate", "registry-read", "registry-admin"]   // the scopes' fixed order, every time
    #expect(records.allSatisfy { ($0["scopes"] as? [String]).map { $0 == $0.sorted { order.firstIndex(of: $0)! < order.firstIndex(of: $1)! } } == true })
    #expect(try await ChildProcess.run(HybridCommandTests.executable, ["keys", "revoke", "reader", "--data", data]).status == 0)
    #expect(try await TestHTTP.send(.GET, download, headers: ["x-goog-api-key": reader]).status == 400, "revoked: refused at once")
    let unknown = try await ChildProcess.run(HybridCommandTests.executable, ["keys", "revoke", "nobody", "--data", data], mergingStandardError: true)
    #expect(unknown.status == 1 && unknown.standardOutput.contains("no API key has the id or name nobody"))
    #expect(await server.stop().status == 0)
  }

  /// A valid value of `setting` as a command-line argument (booleans take none).
  static func sampleArgument(for setting: ServeSetting) -> String? {
    let valid = [
      "host": "127.0.0.1", "alias": "a=smollm2", "chat-template": "chatml",
      "prompt-scheduling": "reproducible", "embedding-pooling": "mean", "gpu-layers": "0", "device": "CPU",
      "cors-origin": "https://app.example.com", "registry-database": "sqlite:/srv/registry.sqlite",
      "public-url": "https://models.example.com", "chat-cloud-url": "http://127.0.0.1:9", "log-level": "info",
      "log-format": "text", "batch-contexts": "1",
      "mmproj": "smollm2=" + TestRepository.dependency("models/pairs/vision/mmproj.gguf").path,
      "draft-model": "smollm2=" + TestRepository.dependency("models/SmolLM2-135M-Instruct.Q4_1.gguf").path,
      "mcp-config": TestRepository.file("deploy/mcp-servers.json").path, "mcp-api-model": "smollm2",
      "mcp-servers": #"{"time": {"command": "uvx", "args": ["mcp-server-time"]}}"#,
    ]
    if let value = valid[setting.name] { return value }
    switch setting.kind {
    case .boolean: return nil
    case .integer: return "3"
    case .number: return "1.5"
    case .string, .list: return "value"
    }
  }

  @Test("every setting agrees in its five places: a flag that sets it, its HYBRIDAI_SERVE_ variable, its config-file key, its --print-config line and docs/server.md")
  func everySettingInFivePlaces() async throws {
    let docs = try String(contentsOf: TestRepository.file("docs/server.md"), encoding: .utf8)
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    for setting in ServeSetting.all {
      let argument = Self.sampleArgument(for: setting)
      // A setting that only makes sense beside another is parsed with it.
      let companions = setting.name == "mcp-api-model" ? ["--mcp-config", TestRepository.file("deploy/mcp-servers.json").path] : []
      let flags = try ServeCommand.parse(["--\(setting.name)"] + (argument.map { [$0] } ?? []) + companions).flags
      #expect(flags[setting] != nil, "--\(setting.name) does not set the setting \(setting.name)")

      let text = argument ?? "true"
      let fromEnvironment = try await ServeConfiguration.resolve(flags: [:], environment: [setting.environmentVariable: text])
      #expect(fromEnvironment.entries[setting.name]?.source == .environment(setting.environmentVariable),
              "$\(setting.environmentVariable) does not set \(setting.name)")

      let yaml = setting.kind == .list ? "[\"\(text)\"]" : (setting.kind == .string ? "'\(text)'" : text)
      let file = try write("\(setting.name): \(yaml)\n", to: "\(setting.name).yaml", in: scratch)
      let fromFile = try await ServeConfiguration.resolve(flags: [.config: .string(file)], environment: [:])
      #expect(fromFile.entries[setting.name]?.source == .file(file), "the key \(setting.name) in a config file does not set it")
      #expect(fromFile.printable().contains("\n\(setting.name): "), "--print-config has no line for \(setting.name)")

      #expect(docs.contains("`\(setting.name)`") || docs.contains("--\(setting.name)"), "docs/server.md does not document \(setting.name)")
    }
  }

  /// The SHA-256 of the four bytes "GGUF" (`printf GGUF | sha256sum`).
  static let sha256OfGGUF = "b83633aa785344791618f2fddf131b010ea04912a60430760b070bad293f65bd"

  @Test("--model (or the config file's model key) takes hf: and ollama: references: NAME=REF, or REF named after its repository; one not on this machine is refused with where it looked")
  func modelReferences() async throws {
    let scratch = try TemporaryDirectory("serve-hf")
    defer { scratch.remove() }
    let commit = String(repeating: "c", count: 40)
    let repository = scratch.appending("hub/models--org--Tiny-GGUF")
    let blob = repository.appendingPathComponent("blobs/\(Self.sha256OfGGUF)")   // named by its bytes' SHA-256
    let snapshotFile = repository.appendingPathComponent("snapshots/\(commit)/Tiny-Q4_K_M.gguf")
    for folder in [blob, snapshotFile, repository.appendingPathComponent("refs/main")].map({ $0.deletingLastPathComponent() }) {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }
    try Data("GGUF".utf8).write(to: blob)
    try FileManager.default.createSymbolicLink(at: snapshotFile, withDestinationURL: blob)
    try Data(commit.utf8).write(to: repository.appendingPathComponent("refs/main"))
    let environment = ["HF_HUB_CACHE": scratch.appending("hub").path]

    let models = try ServeSettings.models(["hf:org/Tiny-GGUF", "small=hf:org/Tiny-GGUF:Q4_K_M", "plain=/models/a.gguf"],
                                          origin: "--model", environment: environment)
    #expect(models.map(\.name) == ["tiny", "small", "plain"])
    #expect(models.map(\.path) == [snapshotFile.path, snapshotFile.path, "/models/a.gguf"])
    #expect {
      try ServeSettings.models(["hf:org/Missing-GGUF"], origin: "--model", environment: environment)
    } throws: { error in
      "\(error)".contains("hf:org/Missing-GGUF is not on this machine")
    }

    // The same references from a config file; an error names the file's key.
    let file = scratch.appending("serve.yaml")
    try Data("model: [\"small=hf:org/Tiny-GGUF:Q4_K_M\", \"missing=hf:org/Missing-GGUF\"]\n".utf8).write(to: file)
    let configuration = try await ServeConfiguration.resolve(flags: [.config: .string(file.path)], environment: [:])
    #expect(configuration.list(.model).first == "small=hf:org/Tiny-GGUF:Q4_K_M")
    #expect {
      try ServeSettings.models(configuration.list(.model), origin: configuration.origin(.model), environment: environment)
    } throws: { error in
      "\(error)".contains("serve.yaml") && "\(error)".contains("hf:org/Missing-GGUF is not on this machine")
    }
    let fromFile = try ServeSettings.models(Array(configuration.list(.model).prefix(1)), origin: configuration.origin(.model),
                                            environment: environment)
    #expect(fromFile.map(\.path) == [snapshotFile.path])
  }
}
