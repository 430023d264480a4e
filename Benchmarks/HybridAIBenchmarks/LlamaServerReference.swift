import AsyncHTTPClient
import Foundation
import HybridAIProcess

/// llama.cpp's own `llama-server` (built by scripts/bootstrap from the pinned source) as the
/// serving benchmark's reference: same model, threads, parallel slots and context per slot as
/// `hybrid serve`, continuous batching (its default), on a free loopback port.
struct LlamaServerReference: Sendable {
  let executable: String

  /// A started server.
  struct Running: Sendable {
    let process: RunningChildProcess
    let port: Int
    var apiRoot: URL { URL(string: "http://127.0.0.1:\(port)/v1")! }
    func stop() async { _ = await process.stop(signal: SIGTERM, gracePeriod: .seconds(5)) }
  }

  /// Starts it with `slots` parallel slots of `contextPerSlot` tokens, `offload`'s layers on a
  /// GPU and `extraArguments`, and waits until `/health` is 200.
  func start(model: String, threads: Int, slots: Int, contextPerSlot: Int, offload: ReferenceOffload,
             extraArguments: [String] = []) async throws -> Running {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw BenchmarkError.referenceFailed("\(executable) is not an executable (run scripts/bootstrap)")
    }
    let port = try Self.freePort()
    let process = try await ChildProcess(executable: executable, arguments: [
      "-m", model, "--host", "127.0.0.1", "--port", "\(port)", "-t", "\(threads)", "-tb", "\(threads)",
      "-np", "\(slots)", "-c", "\(slots * contextPerSlot)", "--no-webui", "--log-disable",
    ] + offload.arguments + extraArguments).start()
    let health = HTTPClientRequest(url: "http://127.0.0.1:\(port)/health")
    for _ in 0..<600 {
      guard process.isRunning else { break }
      if let response = try? await HTTPClient.shared.execute(health, timeout: .seconds(2)), response.status.code == 200 {
        return Running(process: process, port: port)
      }
      try await Task.sleep(for: .milliseconds(100))
    }
    _ = await process.stop(signal: SIGKILL, gracePeriod: .seconds(1))
    throw BenchmarkError.referenceFailed("llama-server did not become healthy on port \(port)")
  }

  /// A loopback port free a moment ago (llama-server cannot report a port it picked itself).
  private static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BenchmarkError.referenceFailed("socket: errno \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
        guard bind(fd, pointer, length) == 0 else { return -1 }
        return getsockname(fd, pointer, &length)
      }
    }
    guard bound == 0 else { throw BenchmarkError.referenceFailed("bind: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
