import Foundation

/// Small real media files for tests: a PNG, an animated GIF and WAVs built byte by byte.
public enum TestMedia {
  /// A 1×1 PNG.
  public static let onePixelPNG = Data(base64Encoded:
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

  /// An animated GIF, 1×1, of two frames: white, then black (a looping animation's first frame is
  /// what readers that take one frame decode).
  public static let twoFrameGIF = Data([
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00,  // GIF89a, 1×1, 2 colours
    0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00,  // white, black
    0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x03, 0x01, 0x00, 0x00, 0x00,  // loop forever
    0x21, 0xF9, 0x04, 0x00, 0x0A, 0x00, 0x00, 0x00,  // 0.1 s
    0x2C, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00,  // a white pixel
    0x21, 0xF9, 0x04, 0x00, 0x0A, 0x00, 0x00, 0x00,
    0x2C, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x4C, 0x01, 0x00,  // a black one
    0x3B,
  ])

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
