import Foundation
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
}
