import Foundation

/// The share of CPU time the hypervisor gave to other guests while this virtual machine wanted it
/// ("steal", the eighth field of `/proc/stat`'s `cpu` line), over an interval.
///
/// On a shared VM, steal is one thing that moves a benchmark's speed: measured on this project's
/// 2-core VM, `llama-batched-bench` decoded 48 tok/s with 3% steal and 25 tok/s with 30% (OpenMP's
/// barrier waits for the descheduled core, so a step loses more than the stolen share). A round
/// whose two sides saw different steal compares machines, not programs. It is not the only one: in
/// another run steal stayed near 0% while the same program's speed still moved by half.
struct CPUSteal: Sendable {
  /// Cumulative ticks of `/proc/stat`'s `cpu` line: all of them and the stolen ones.
  struct Sample: Sendable {
    var total: UInt64
    var stolen: UInt64
  }

  /// Now; `nil` where `/proc/stat` cannot be read or has no steal field (not Linux).
  static func sample() -> Sample? {
    guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .ascii),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return nil }
    let fields = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
    guard fields.count >= 8 else { return nil }
    // user nice system idle iowait irq softirq steal [guest guest_nice — already in user and nice]
    return Sample(total: fields.prefix(8).reduce(0, +), stolen: fields[7])
  }

  /// The stolen fraction (0…1) between `start` and `end`; `nil` when no time passed or either is missing.
  static func fraction(from start: Sample?, to end: Sample?) -> Double? {
    guard let start, let end, end.total > start.total else { return nil }
    return Double(end.stolen &- start.stolen) / Double(end.total - start.total)
  }

  /// Runs `body` and returns its result with the steal during it.
  static func measuring<T>(_ body: () async throws -> T) async rethrows -> (value: T, steal: Double?) {
    let start = sample()
    let value = try await body()
    return (value, fraction(from: start, to: sample()))
  }
}
