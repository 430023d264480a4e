import ArgumentParser
import Foundation
import HybridCommandLine
import ModelDelivery

/// `hybrid models pull hf:ORG/REPO[:QUANT][@REVISION]` — fetches a model from the Hugging Face Hub
/// into the shared cache that llama.cpp's `-hf` and huggingface_hub read; `registry:NAME` installs a
/// HybridAI registry's latest version.
struct ModelsPullCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pull",
    abstract: "Fetch a GGUF model from the Hugging Face Hub into its shared cache (hf:ORG/REPO[:QUANT][@REVISION]), or a registry's (registry:NAME).",
    discussion: """
      The GGUF of the quantization (default Q4_K_M, else Q8_0), every part of a split model and the mmproj projector \
      beside it land in $HF_HUB_CACHE (else $HF_HOME/hub, else ~/.cache/huggingface/hub; $LLAMA_CACHE first), where \
      llama.cpp's -hf and huggingface_hub find them too. A file already there is not fetched again; an interrupted \
      one resumes. $MODEL_ENDPOINT or $HF_ENDPOINT picks a mirror, $HF_TOKEN (or $HF_TOKEN_PATH) a token for gated repositories, \
      $HF_HUB_OFFLINE=1 the cache only. registry:NAME installs the latest version of a HybridAI registry's model \
      ($HYBRIDAI_SERVER, key $HYBRIDAI_SERVER_API_KEY) where --model registry:NAME finds it. Prints the model file's path.
      """)

  @Argument(help: "The model, e.g. hf:ggml-org/SmolLM2-135M-Instruct-GGUF:Q8_0 or registry:smollm2.")
  var reference: String

  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    switch try parsed() {
    case .huggingFace, .registry: break
    case .file, .ollama:
      throw ValidationError("pull takes an hf:ORG/REPO[:QUANT][@REVISION] or registry:NAME reference; a file or an ollama: model is already here")
    }
  }

  private func parsed() throws(ValidationError) -> ModelReference {
    do { return try ModelReference(reference) } catch { throw ValidationError("\(error)") }
  }

  func run() async throws {
    logging.bootstrap()
    do {
      let model = try await ModelReferenceFetcher().pull(try parsed(), progress: ModelFetchDisplay.bar())
      Terminal.write(model.weights.path + "\n")
      if let projector = model.projector { Terminal.status("  projector: \(projector.path)") }
    } catch {
      try ModelFetchExitCode.exitIfModelFetchFailure(error)
    }
  }
}
