import ArgumentParser
import Foundation
import HybridAI
import HybridAIOnDevice
import HybridCommandLine
import HybridOnDeviceCommandLine

extension EmbeddingPurpose: ExpressibleByArgument {
  /// `retrieval-query` or Gemini's `RETRIEVAL_QUERY`.
  public init?(argument: String) {
    self.init(rawValue: argument.uppercased().replacingOccurrences(of: "-", with: "_"))
  }

  /// The kebab-case spelling, for help texts.
  var argumentName: String { rawValue.lowercased().replacingOccurrences(of: "_", with: "-") }
}

extension EmbeddingPooling: ExpressibleByArgument {
  public init?(argument: String) {
    self.init(rawValue: argument.lowercased().split(separator: "-").enumerated()
      .map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined())
  }
}

/// `hybrid embed` — the vectors of texts, on device or from a cloud, with their similarities.
struct EmbedCommand: AsyncParsableCommand, Sendable {
  static let configuration = CommandConfiguration(
    commandName: "embed",
    abstract: "Embed texts: a vector per text, on-device or in the cloud (--mode cloud), and how similar they are.",
    discussion: """
      Each argument is one text; "-" reads texts from standard input, one per line (empty lines \
      skipped). Prints each text's token count, size and first values, then the cosine similarity \
      of every pair; --json prints the whole vectors.

      On device the model's own pooling is used (the mean for a chat model, as llama-server's \
      --pooling mean); a text may have up to --batch-size tokens. Vectors of different models \
      cannot be compared, so there is no hybrid mode: --mode on-device (the default) or cloud.
      """)

  @Argument(help: ArgumentHelp("The texts; - reads them from standard input, one per line.", valueName: "text"))
  var texts: [String] = []

  @Option(name: .long, parsing: .unconditional, help: "Keep the first N values of each vector, scaled to unit length.")
  var dimensions: Int?

  @Option(name: .long, help: ArgumentHelp(
    "What the vectors are for, for a model that tunes them (Gemini's taskType): "
      + EmbeddingPurpose.allCases.map(\.argumentName).joined(separator: ", ") + ".", valueName: "purpose"))
  var purpose: EmbeddingPurpose?

  @Option(name: .long, help: ArgumentHelp("On device: automatic (the model's own, else mean), mean, first-token, last-token.",
                                          valueName: "pooling"))
  var pooling: EmbeddingPooling = .automatic

  @Option(name: .long, parsing: .unconditional, help: "On device: the longest text in tokens (one llama.cpp batch; default 512).")
  var batchSize = 512

  @Flag(name: .long, help: "Print one JSON object: model, source, promptTokens, and each text's vector and tokens.")
  var json = false

  @OptionGroup var model: ModelOptions
  @OptionGroup var routing: RoutingOptions
  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    if texts.isEmpty {
      throw ValidationError("Missing the texts: hybrid embed \"first text\" \"second text\" (- reads them from standard input, one per line)")
    }
    if texts.contains("-"), texts.count > 1 { throw ValidationError("- reads every text from standard input: give no other text") }
    if let dimensions, dimensions < 1 { throw ValidationError("--dimensions must be at least 1, got \(dimensions)") }
    guard (1...Int(Int32.max)).contains(batchSize) else { throw ValidationError("--batch-size must be at least 1, got \(batchSize)") }
    if let mode = routing.mode, mode != .onDevice, mode != .cloud {
      throw ValidationError("--mode \(mode.rawValue): vectors of two models cannot be compared, so embeddings come from one: "
        + "--mode on-device or --mode cloud")
    }
  }

  func run() async throws {
    logging.bootstrap()
    do {
      let texts = try readTexts()
      let response = try await Task { try await embed(texts) }.value
      report(response, texts: texts)
    } catch let error as ValidationError {
      json ? JSONOutput.print(ErrorReport(error)) : Terminal.status("error: \(error)")
      throw ExitCode.validationFailure
    } catch {
      json ? JSONOutput.print(ErrorReport(error)) : Terminal.status("error: \(error)")
      throw ExitCode.failure
    }
  }

  /// The arguments, or standard input's non-empty lines for `-`.
  private func readTexts() throws -> [String] {
    guard texts == ["-"] else { return texts }
    let lines = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
      .split(whereSeparator: \.isNewline).map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    guard !lines.isEmpty else { throw ValidationError("the texts were to come from standard input (-), which held none") }
    return lines
  }

  private func embed(_ texts: [String]) async throws -> EmbeddingResponse {
    let embedder: any EmbeddingModel
    if routing.mode == .cloud {
      let cloud = await routing.makeCloudModel()
      guard let cloud = cloud as? any EmbeddingModel else {
        throw ValidationError("the cloud model \(cloud.modelIdentifier) does not embed")
      }
      embedder = cloud
    } else {
      var configured = try model.makeModel()
      var configuration = configured.configuration
      configuration.batchSize = batchSize
      configuration.pooling = pooling
      configured = SystemLanguageModel(modelPath: configured.modelPath, configuration: configuration)
      embedder = configured
    }
    do {
      return try await embedder.embeddings(for: EmbeddingRequest(texts: texts, dimensions: dimensions, purpose: purpose))
    } catch GenerationError.exceededContextWindowSize(let tokens, let limit) where routing.mode != .cloud {
      throw ValidationError("a text has \(tokens) tokens, more than the \(limit) embedded at once: raise --batch-size "
        + "(at most --context-size) or split the text")
    }
  }

  private func report(_ response: EmbeddingResponse, texts: [String]) {
    if json {
      JSONOutput.print(EmbeddingReport(response, texts: texts))
      return
    }
    Terminal.status("\(response.modelVersion) (\(response.source.rawValue)): \(response.embeddings.count) vectors of "
      + "\(response.embeddings.first?.dimensions ?? 0) values" + (response.promptTokens.map { ", \($0) tokens" } ?? ""))
    for (index, (text, embedding)) in zip(texts, response.embeddings).enumerated() {
      let start = embedding.values.prefix(4).map { String(format: "%.4f", $0) }.joined(separator: ", ")
      let tokens = embedding.tokenCount.map { "\($0) token\($0 == 1 ? "" : "s")  " } ?? ""
      Terminal.write("\(index + 1)  \(tokens)[\(start), …]  \(Self.preview(text))\n")
    }
    guard response.embeddings.count > 1 else { return }
    Terminal.write("cosine similarity:\n")
    for first in response.embeddings.indices {
      for second in response.embeddings.indices where second > first {
        let similarity = response.embeddings[first].cosineSimilarity(to: response.embeddings[second])
        Terminal.write("  \(first + 1)–\(second + 1)  \(String(format: "%.4f", similarity))\n")
      }
    }
  }

  /// The text on one line, at most 60 characters.
  static func preview(_ text: String) -> String {
    let line = text.replacingOccurrences(of: "\n", with: " ")
    return line.count <= 60 ? "\"\(line)\"" : "\"\(line.prefix(59))…\""
  }
}

/// `hybrid embed --json`'s object.
struct EmbeddingReport: Encodable {
  struct Vector: Encodable {
    var text: String
    var tokens: Int?
    var values: [Float]
  }
  var model: String
  var source: String
  var promptTokens: Int?
  var dimensions: Int
  var embeddings: [Vector]

  init(_ response: EmbeddingResponse, texts: [String]) {
    model = response.modelVersion
    source = response.source.rawValue
    promptTokens = response.promptTokens
    dimensions = response.embeddings.first?.dimensions ?? 0
    embeddings = zip(texts, response.embeddings).map { Vector(text: $0, tokens: $1.tokenCount, values: $1.values) }
  }
}
