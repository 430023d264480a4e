import Foundation

/// What `wrk --latency` printed for one run: throughput, latency and failures.
///
/// The lines read (wrk 4.x):
/// ```
///     Latency   654.32us  210.45us   9.87ms   88.12%
///      50%  612.00us
///      99%    1.43ms
///   245678 requests in 5.00s, 61.23MB read
///   Socket errors: connect 0, read 0, write 0, timeout 0
///   Non-2xx or 3xx responses: 12
/// Requests/sec:  49135.60
/// ```
struct WrkOutput: Sendable, Equatable {
  var requestsPerSecond: Double
  /// Mean latency, in milliseconds.
  var averageLatencyMilliseconds: Double
  /// Median and 99th-percentile latency, in milliseconds (with `--latency`).
  var medianLatencyMilliseconds: Double?
  var p99LatencyMilliseconds: Double?
  /// Requests completed.
  var requests: Int
  /// Answers with a status outside 200–399.
  var non2xx3xxResponses = 0
  /// Connect, read, write and timeout errors together.
  var socketErrors = 0

  /// Parses wrk's report; `nil` when it has no `Requests/sec:` or `Latency` line.
  init?(parsing text: String) {
    var requestsPerSecond: Double?
    var average: Double?
    var requests = 0
    for rawLine in text.split(whereSeparator: \.isNewline) {
      let fields = rawLine.split(whereSeparator: \.isWhitespace).map(String.init)
      guard let first = fields.first else { continue }
      switch first {
      case "Requests/sec:":
        requestsPerSecond = fields.count > 1 ? Double(fields[1]) : nil
      case "Latency" where fields.count > 1:   // also "Latency Distribution"
        average = average ?? Self.milliseconds(fields[1])
      case "50%" where fields.count > 1:
        medianLatencyMilliseconds = Self.milliseconds(fields[1])
      case "99%" where fields.count > 1:
        p99LatencyMilliseconds = Self.milliseconds(fields[1])
      case "Socket":   // Socket errors: connect 0, read 0, write 0, timeout 0
        socketErrors = fields.compactMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: ","))) }.reduce(0, +)
      case "Non-2xx":  // Non-2xx or 3xx responses: 12
        non2xx3xxResponses = fields.last.flatMap { Int($0) } ?? 0
      default:
        if fields.count > 2, fields[1] == "requests", fields[2] == "in", let count = Int(first) { requests = count }
      }
    }
    guard let requestsPerSecond, let average else { return nil }
    self.requestsPerSecond = requestsPerSecond
    self.averageLatencyMilliseconds = average
    self.requests = requests
  }

  /// wrk's durations (`812.00us`, `1.43ms`, `2.01s`, `1.50m`) in milliseconds.
  static func milliseconds(_ text: String) -> Double? {
    let units: [(suffix: String, milliseconds: Double)] = [("us", 1e-3), ("ms", 1), ("s", 1e3), ("m", 60e3), ("h", 3600e3)]
    for unit in units where text.hasSuffix(unit.suffix) {
      if let value = Double(text.dropLast(unit.suffix.count)) { return value * unit.milliseconds }
    }
    return nil
  }
}
