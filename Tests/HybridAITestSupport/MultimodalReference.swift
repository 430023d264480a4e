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
    let reference = try await ChildProcess(executable: TestRepository.dependency("llama-server/llama-mtmd-cli"), arguments: [
      "-m", model, "--mmproj", projector, "--image", image, "-p", prompt, "-n", "\(tokens)", "--temp", "0", "-t", "2",
    ]).run(output: .collected(limit: 1 << 20))
    #expect(reference.status == 0, "llama-mtmd-cli: \(reference.standardError.suffix(1000))")
    let controlTokens = /<row_\d+_col_\d+>|<fake_token_around_image>|<global-img>|<\|(im_start|im_end|endoftext)\|>/
    return String(reference.standardOutput.replacing(controlTokens, with: "")).trimmingCharacters(in: .newlines)
  }
}
