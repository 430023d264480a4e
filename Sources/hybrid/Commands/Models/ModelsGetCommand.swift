import ArgumentParser
import Foundation
import HybridCommandLine
import ModelDelivery

/// `hybrid models get NAME` — downloads a model from the registry (resumable, verified) and prints its path.
struct ModelsGetCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "get", abstract: "Download a model onto this machine and print its path.",
    discussion: """
      --type local: the copy already here if any (no network), else the latest. \
      --type background: the copy here now, and update it in the background for next time (this \
      command waits for that update before exiting). --type latest: ask the server, download a newer \
      version if there is one. Interrupted downloads resume where they stopped.
      """)

  enum DownloadTypeArgument: String, ExpressibleByArgument, CaseIterable {
    case local, background, latest

    var downloadType: ModelDownloadType {
      switch self {
      case .local: .localModel
      case .background: .localModelUpdateInBackground
      case .latest: .latestModel
      }
    }
  }

  @Argument(help: "The model's name.") var name: String
  @Option(name: .long, help: "local, background or latest.") var type: DownloadTypeArgument = .latest
  @Option(name: .long, help: "Where downloaded models live. Default: $XDG_CACHE_HOME/hybridai/models.") var dir: String?
  @Flag(name: .long, help: "Refuse to download over a cellular or metered connection.") var noCellular = false
  @Flag(name: .long, help: "With --no-cellular: wait for an allowed connection instead of failing.") var waitForNetwork = false
  @Option(name: .long, help: "The server's API key, if it requires one. Default: $HYBRIDAI_SERVER_API_KEY.") var apiKey: String?
  @Flag(name: .long, help: "Print the model as JSON.") var json = false
  @OptionGroup var server: RegistryServerOptions
  @OptionGroup var logging: LoggingOptions

  func run() async throws {
    logging.bootstrap()
    // A file-size limit (RLIMIT_FSIZE) then fails write(2) with EFBIG — reported as notEnoughSpace —
    // instead of killing the process.
    signal(SIGXFSZ, SIG_IGN)
    let key = apiKey ?? ProcessInfo.processInfo.environment["HYBRIDAI_SERVER_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
    let downloader = ModelDownloader(server: try server.url(), directory: dir.map { URL(fileURLWithPath: $0, isDirectory: true) },
                                     apiKey: key)
    let updates = downloader.progress(for: name)
    let progress = Task { [name] in
      var bar = ProgressBar(label: name)
      for await update in updates {
        bar.update(completed: update.bytesReceived, total: update.totalBytes)
      }
      bar.finish()
    }
    defer { progress.cancel() }
    let model: CustomModel
    do {
      model = try await downloader.getModel(
        name: name, downloadType: type.downloadType,
        conditions: ModelDownloadConditions(allowsCellularAccess: !noCellular, waitsForAllowedNetwork: waitForNetwork))
    } catch let error as ModelDownloadError {
      Terminal.status("error: \(error)")
      throw ExitCode(ModelFetchExitCode.downloadStatus(error))
    }
    if type == .background { await downloader.waitForBackgroundUpdates() }
    // A download's progress stream has ended by now; let the bar draw its last frame. (With
    // nothing downloaded the stream stays open, hence the bound.)
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await progress.value }
      group.addTask { try? await Task.sleep(for: .seconds(1)) }
      await group.next()
      progress.cancel()
      group.cancelAll()
    }
    if json { try printJSON(model) } else { Terminal.write("\(model.path)\n") }
    Terminal.status("\(model.name) version \(model.version): \(model.size) bytes, sha256 \(model.hash)")
  }
}
