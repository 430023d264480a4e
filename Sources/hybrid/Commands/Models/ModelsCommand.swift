import ArgumentParser
import Foundation

/// `hybrid models` — the model registry: deploy, publish, roll out, list and remove (admin), and get (client).
struct ModelsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "models",
    abstract: "Deploy custom models to a `hybrid serve` registry and download them; pull GGUF models from the Hugging Face Hub.",
    discussion: """
      Admin commands (deploy, publish, unpublish, rollout, list, show, rm) need the server's admin token \
      (--token or $HYBRIDAI_ADMIN_TOKEN). Every command takes --server (default $HYBRIDAI_SERVER, \
      else http://127.0.0.1:8080).
      Example: hybrid models deploy selfie selfie_segmentation.tflite --publish --tag vision
               hybrid models get selfie --type latest
               hybrid models pull hf:ggml-org/SmolLM2-135M-Instruct-GGUF:Q8_0
      """,
    subcommands: [
      ModelsDeployCommand.self, ModelsPublishCommand.self, ModelsUnpublishCommand.self, ModelsRolloutCommand.self,
      ModelsListCommand.self, ModelsShowCommand.self, ModelsRemoveCommand.self, ModelsGetCommand.self, ModelsPullCommand.self,
    ])
}

/// `--server`, shared by every `hybrid models` command.
struct RegistryServerOptions: ParsableArguments {
  @Option(name: .long, help: "The registry's base URL. Default: $HYBRIDAI_SERVER, else http://127.0.0.1:8080.")
  var server: String?

  func url() throws -> URL {
    let text = server ?? ProcessInfo.processInfo.environment["HYBRIDAI_SERVER"] ?? "http://127.0.0.1:8080"
    guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
      throw ValidationError("--server must be an http(s) URL, e.g. http://127.0.0.1:8080 (got '\(text)')")
    }
    return url
  }
}

/// `--token`, shared by the admin commands.
struct AdminTokenOptions: ParsableArguments {
  @Option(name: .long, help: "The registry's admin token. Default: $HYBRIDAI_ADMIN_TOKEN.")
  var token: String?

  func value() throws -> String {
    guard let token = token ?? ProcessInfo.processInfo.environment["HYBRIDAI_ADMIN_TOKEN"], !token.isEmpty else {
      throw ValidationError("the admin API needs a token: pass --token or set HYBRIDAI_ADMIN_TOKEN")
    }
    return token
  }
}
