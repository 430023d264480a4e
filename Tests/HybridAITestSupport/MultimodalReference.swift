import Foundation
import HybridAIProcess
import Testing

/// llama.cpp's `llama-mtmd-cli` (built by scripts/bootstrap) as the reference for an on-device
/// answer about an image: its greedy answer as an answer's text reads (control tokens left out).
public enum MultimodalReference {
  /// The bootstrap's vision pair (SmolVLM's architecture, tiny, random weights).
  public static var visionPair: URL { TestRepository.dependency("models/pairs/vision") }

  /// llama-mtmd-cli's greedy answer of `tokens` tokens to `prompt` (with its media marker where the
  /// image goes) about `image`, without the control tokens it writes out and an answer's text leaves out.
  public static func answerText(model: String, projector: String, image: String, prompt: String = "Describe.<__media__>",
                                tokens: Int = 8) async throws -> String {
    let output = try await run([
      "-m", model, "--mmproj", projector, "--image", image, "-p", prompt, "-n", "\(tokens)", "--temp", "0", "-t", "2",
    ])
    let controlTokens = /<row_\d+_col_\d+>|<fake_token_around_image>|<global-img>|<\|(im_start|im_end|endoftext)\|>/
    return String(output.replacing(controlTokens, with: "")).trimmingCharacters(in: .newlines)
  }

  /// What `llama-mtmd-cli` with `arguments` writes to its standard output, whole.
  ///
  /// The tool writes its answer through llama.cpp's asynchronous log, which it never flushes at
  /// exit: on a loaded machine the end of the answer went missing. The bootstrap's
  /// `libflush-llama-log.so` (scripts/support/flush-llama-log.c), preloaded, flushes it; the blank
  /// line the tool logs after the answer, its last output, is checked.
  public static func run(_ arguments: [String]) async throws -> String {
    let outcome = try await ChildProcess(
      executable: TestRepository.dependency("llama-server/llama-mtmd-cli"), arguments: arguments,
      environment: ["LD_PRELOAD": TestRepository.dependency("llama-server/libflush-llama-log.so").path]
    ).run(output: .collected(limit: 1 << 20))
    #expect(outcome.status == 0, "llama-mtmd-cli: \(outcome.standardError.suffix(1000))")
    #expect(outcome.standardOutput.hasSuffix("\n\n"), "llama-mtmd-cli's whole answer: \(outcome.standardOutput.debugDescription)")
    return outcome.standardOutput
  }
}
