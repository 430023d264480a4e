import Crypto
import Foundation

/// Which of a model's roll-out splits an installation falls into, stably: the same model and
/// installation id always land in the same bucket, and buckets spread evenly over installations.
enum RolloutBucket {
  /// Buckets are hundredths of a percent: `0..<10_000`.
  static let count = 10_000

  /// `SHA-256(name + "\n" + installationId)`, its first 8 bytes as a big-endian integer, mod 10,000.
  static func bucket(modelName: String, installationId: String) -> Int {
    let digest = SHA256.hash(data: Data("\(modelName)\n\(installationId)".utf8))
    let leading = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    return Int(leading % UInt64(count))
  }

  /// The version the split containing `bucket` names: the first split whose running total of
  /// basis points exceeds the bucket.
  static func version(forBucket bucket: Int, in rollout: ModelRecord.Rollout) -> Int? {
    var runningTotal = 0
    for split in rollout.splits {
      runningTotal += split.basisPoints
      if bucket < runningTotal { return split.version }
    }
    return nil
  }
}
