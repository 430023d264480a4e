import Foundation
import HybridAITestSupport
import Testing

/// `--log-format json`: every log record on standard error is one JSON object with the fields a
/// log collector reads.
@Suite("hybrid --log-format json")
struct LogFormatCommandTests {
  @Test("each log line is a JSON object with time, level, label, message and source; text output is unchanged")
  func jsonLines() async throws {
    let result = try await HybridCommandTests().run([
      "generate", "--prompt", "Hi", "--greedy", "--max-tokens", "2", "--log-level", "debug", "--log-format", "json"])
    #expect(result.status == 0, "\(result.stderr.suffix(1500))")
    #expect(!result.stdout.isEmpty, "the answer still goes to standard output")
    let records = result.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
    #expect(records.count >= 3, "\(result.stderr.suffix(1500))")
    for record in records {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any], "\(record)")
      for key in ["time", "level", "label", "message", "source"] {
        #expect(object[key] is String, "\(key) in \(record)")
      }
      #expect((object["time"] as? String).flatMap { try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0) } != nil,
              "\(record)")
    }
    #expect(records.contains { $0.contains(#""level":"debug""#) })
    #expect(records.contains { $0.contains(#""metadata":{"#) }, "metadata is kept as an object")
  }

  @Test("hybrid serve --log-format json: its own lines (listening, loaded, warnings, stopped) are JSON records too")
  func serveStatusLines() async throws {
    let scratch = try TemporaryDirectory("serve-json-log")
    defer { scratch.remove() }
    // Two contexts on the CPU: the warning about them is a record as well.
    let server = try await ServeLifecycleTests.Server.servingTheTestModel(in: scratch, ["--log-format", "json", "--batch-contexts", "2"])
    let (status, stderr) = await server.stop()
    #expect(status == 0, "\(stderr.suffix(1500))")
    let lines = stderr.split(separator: "\n").map(String.init)
    let plain = lines.filter { !$0.hasPrefix("{") }
    #expect(plain.isEmpty, "plain lines among the records: \(plain)")
    let records = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    #expect(records.count == lines.count)
    let own = records.filter { $0["label"] as? String == "hybrid.serve" }
    #expect(own.contains { ($0["message"] as? String)?.hasPrefix("model smollm2 on CPU") == true && $0["level"] as? String == "notice" },
            "\(own)")
    #expect(own.contains { ($0["message"] as? String)?.contains("contexts only add passes") == true && $0["level"] as? String == "warning" },
            "\(own)")
    #expect(own.last?["message"] as? String == "stopped", "\(own)")
  }
}
