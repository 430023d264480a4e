import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who wrote a blob store's staging file, written into its name (`<host>-<pid>-<start>`), so that
/// a store opened on a directory other processes share — instances of a server on one data folder
/// — removes only what a process that has ended left behind, never another's upload in progress.
///
/// A file is abandoned when its host is this one and no process with its id and start time runs;
/// a file written elsewhere (another host or container, or an older name) is abandoned once it has
/// not changed for ``abandonedAfter``.
struct StagingFileOwner: Equatable {
  var host: String
  var processID: Int32
  /// The process's start time (clock ticks after boot on Linux), telling it from a later process
  /// given the same id; 0 where it cannot be read.
  var startTime: UInt64

  /// How long a staging file of an unknown or distant writer may go unchanged before it counts as
  /// abandoned.
  static let abandonedAfter: TimeInterval = 24 * 3600

  /// This process.
  static let current = StagingFileOwner(host: hostTag(), processID: getpid(), startTime: startTime(of: getpid()) ?? 0)

  /// `<host>-<pid>-<start>`.
  var tag: String { "\(host)-\(processID)-\(startTime)" }

  /// The owner a staging file's name (after the prefix) begins with, if it has one.
  init?(fileNameSuffix suffix: Substring) {
    let parts = suffix.split(separator: "-", maxSplits: 3, omittingEmptySubsequences: false)
    guard parts.count == 4, !parts[0].isEmpty, let pid = Int32(parts[1]), let start = UInt64(parts[2]) else { return nil }
    self.init(host: String(parts[0]), processID: pid, startTime: start)
  }

  init(host: String, processID: Int32, startTime: UInt64) {
    self.host = host
    self.processID = processID
    self.startTime = startTime
  }

  /// Whether the staging file at `path` (named with `suffix` after the prefix) was left by a writer
  /// that is gone.
  static func isAbandoned(path: String, suffix: Substring) -> Bool {
    if let owner = StagingFileOwner(fileNameSuffix: suffix), owner.host == current.host {
      return !owner.isRunning
    }
    var status = stat()
    guard stat(path, &status) == 0 else { return false }
    return Date().timeIntervalSince1970 - TimeInterval(status.st_mtim.tv_sec) > abandonedAfter
  }

  /// Whether a process with this id and start time runs on this host.
  var isRunning: Bool {
    guard kill(processID, 0) == 0 || errno == EPERM else { return false }
    guard startTime != 0, let running = Self.startTime(of: processID) else { return true }
    return running == startTime
  }

  /// The host's name, reduced to letters, digits and dots (no `-`, which separates the fields).
  private static func hostTag() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    let name = gethostname(&buffer, buffer.count - 1) == 0
      ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    let tag = String(name.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == ".") }.prefix(64))
    return tag.isEmpty ? "host" : tag
  }

  /// A process's start time from `/proc/<pid>/stat` (field 22), where there is one.
  static func startTime(of processID: Int32) -> UInt64? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(processID)/stat") else { return nil }
    let text = String(decoding: data, as: UTF8.self)
    // The command name (field 2) is in parentheses and may hold spaces: count after its end.
    guard let end = text.lastIndex(of: ")") else { return nil }
    let fields = text[text.index(after: end)...].split(separator: " ")
    // fields[0] is field 3 (state), so field 22 is fields[19].
    return fields.count > 19 ? UInt64(fields[19]) : nil
  }
}
