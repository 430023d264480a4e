import Foundation

/// Tells how many bytes may still be written under a directory, so that a download that cannot
/// fit fails with ``ModelDownloadError/notEnoughSpace(required:available:)`` before it starts.
public protocol DiskSpaceProbe: Sendable {
  /// The bytes available to this process on the file system holding `directory`, or `nil` when
  /// that cannot be told (the check is then skipped).
  func availableBytes(at directory: URL) -> Int64?
}

/// The ``DiskSpaceProbe`` that asks the file system (`statvfs`: blocks available to unprivileged
/// users × fragment size).
public struct StatvfsDiskSpaceProbe: DiskSpaceProbe {
  /// The probe.
  public init() {}

  public func availableBytes(at directory: URL) -> Int64? {
    var stats = statvfs()
    guard statvfs(directory.path, &stats) == 0 else { return nil }
    let (bytes, overflow) = Int64(clamping: stats.f_bavail).multipliedReportingOverflow(by: Int64(clamping: stats.f_frsize))
    return overflow ? Int64.max : bytes
  }
}

/// A probe that always answers the same number (for tests).
public struct FixedDiskSpaceProbe: DiskSpaceProbe {
  /// The bytes answered.
  public var bytes: Int64?

  /// A probe answering `bytes`.
  public init(bytes: Int64?) { self.bytes = bytes }

  public func availableBytes(at directory: URL) -> Int64? { bytes }
}
