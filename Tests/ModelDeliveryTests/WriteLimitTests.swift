import Foundation
import HybridAIProcess
import ModelDelivery
import Testing

/// A real `EFBIG`: the download runs in a child process (this test bundle again, running only
/// ``childDownloadsUnderAFileSizeLimit()``) under `ulimit -f` with `SIGXFSZ` ignored, so writing
/// past the limit fails with `EFBIG` — which must end in `notEnoughSpace`, with the previous
/// version intact.
@Suite struct WriteLimitTests {
  static let childKey = "MODEL_DELIVERY_WRITE_LIMIT_CHILD"
  static let serverKey = "MODEL_DELIVERY_WRITE_LIMIT_SERVER"
  static let directoryKey = "MODEL_DELIVERY_WRITE_LIMIT_DIRECTORY"
  static let resultFile = "child-result.txt"

  /// This test bundle's executable, when it can be run again.
  static var testExecutable: String? {
    guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
          path.hasSuffix(".xctest"), FileManager.default.isExecutableFile(atPath: "/bin/sh") else { return nil }
    return path
  }

  static var isChild: Bool { ProcessInfo.processInfo.environment[childKey] != nil }

  @Test(.enabled(if: !isChild && testExecutable != nil))
  func aFileSizeLimitIsNotEnoughSpaceAndThePreviousVersionStays() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let oldData = TestSupport.bytes(100_000, seed: 71)
    await environment.server.publish("m", data: oldData)
    let v1 = try await environment.downloader().getModel(name: "m", downloadType: .latestModel)
    await environment.server.publish("m", data: TestSupport.bytes(4 << 20, seed: 72))

    // 2048 blocks: 1 MiB (or 2 MiB where a block is 1 KiB) — less than the 4 MiB file.
    let child = ChildProcess(
      executable: "/bin/sh",
      arguments: ["-c", #"trap '' XFSZ; ulimit -f 2048 && exec "$0" --testing-library swift-testing --filter 'WriteLimitTests/childDownloadsUnderAFileSizeLimit'"#,
                  try #require(Self.testExecutable)],
      environment: [Self.childKey: "1", Self.serverKey: environment.server.baseURL.absoluteString,
                    Self.directoryKey: environment.directory.path],
      timeLimit: .seconds(120))
    let outcome = try await child.run(output: .collectedWithStandardError(limit: 16 << 20))

    let result = try? String(contentsOf: environment.directory.appendingPathComponent(Self.resultFile), encoding: .utf8)
    let childLog = outcome.standardOutput
    #expect(result?.hasPrefix("notEnoughSpace required=") == true,
            "child result: \(result ?? "none"); exit \(outcome.status); log: \(childLog.suffix(2000))")
    // The previous version is intact and still the installed one; the part holds what the limit
    // allowed, and `required` is the rest.
    #expect(try Data(contentsOf: URL(fileURLWithPath: v1.path)) == oldData)
    #expect(try await environment.downloader().getModel(name: "m", downloadType: .localModel) == v1)
    let part = environment.modelsDirectory.appendingPathComponent("m/download.part").path
    let partSize = try #require(try FileManager.default.attributesOfItem(atPath: part)[.size] as? Int)
    #expect(partSize > 0 && partSize <= 2 << 20)
    let required = result?.split(separator: " ").first { $0.hasPrefix("required=") }.flatMap { Int($0.dropFirst(9)) }
    #expect(required == (4 << 20) - partSize)
  }

  /// The child's side; skipped unless the test above started this process.
  @Test(.enabled(if: isChild))
  func childDownloadsUnderAFileSizeLimit() async throws {
    let environment = ProcessInfo.processInfo.environment
    let server = try #require(environment[Self.serverKey].flatMap(URL.init(string:)))
    let directory = URL(fileURLWithPath: try #require(environment[Self.directoryKey]), isDirectory: true)
    let downloader = TestSupport.downloader(server, directory: directory)
    let outcome: String
    do {
      let model = try await downloader.getModel(name: "m", downloadType: .latestModel)
      outcome = "installed version \(model.version)"
    } catch ModelDownloadError.notEnoughSpace(let required, let available) {
      outcome = "notEnoughSpace required=\(required) available=\(available)"
    } catch {
      outcome = "other error: \(error)"
    }
    try Data(outcome.utf8).write(to: directory.appendingPathComponent(Self.resultFile))
  }
}
