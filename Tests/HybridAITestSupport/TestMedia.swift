import Foundation

/// Small real media files for tests: a PNG and WAVs built byte by byte.
public enum TestMedia {
  /// A 1×1 PNG.
  public static let onePixelPNG = Data(base64Encoded:
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

  /// A 16-bit mono PCM WAV of a 440 Hz tone at `sampleRate` (0 seconds: a header with no samples).
  public static func toneWAV(seconds: Double, sampleRate: Int = 8000) -> Data {
    let samples = (0..<Int(Double(sampleRate) * seconds)).map {
      Int16(sin(Double($0) * 2 * .pi * 440 / Double(sampleRate)) * 8000)
    }
    var data = Data()
    func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    data.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36 + samples.count * 2))
    data.append(contentsOf: Array("WAVEfmt ".utf8)); append(UInt32(16)); append(UInt16(1)); append(UInt16(1))
    append(UInt32(sampleRate)); append(UInt32(sampleRate * 2)); append(UInt16(2)); append(UInt16(16))
    data.append(contentsOf: Array("data".utf8)); append(UInt32(samples.count * 2))
    for sample in samples { append(sample) }
    return data
  }
}
