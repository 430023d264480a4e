import Foundation

/// The format and length of a RIFF/WAVE file, read from its header.
///
/// ```swift
/// let info = try WAVInfo(data: wav)
/// print(info.sampleRate, info.channels, info.duration)   // 22050 1 1.43
/// ```
public struct WAVInfo: Sendable, Hashable {
  /// The `fmt ` chunk's format tag (1 is integer PCM, 3 is IEEE float).
  public let audioFormat: UInt16
  /// The number of interleaved channels.
  public let channels: Int
  /// Sample frames per second.
  public let sampleRate: Int
  /// Bits per sample of one channel.
  public let bitsPerSample: Int
  /// Bytes per second of audio (`fmt ` chunk's byte rate).
  public let byteRate: Int
  /// The bytes of audio in the `data` chunk (clamped to what the file holds).
  public let dataByteCount: Int

  /// The audio's length in seconds.
  public var duration: Double { Double(dataByteCount) / Double(byteRate) }

  /// Parses and validates a WAV header: `RIFF` size `WAVE`, a `fmt ` chunk with a non-zero channel
  /// count, sample rate and byte rate, and a `data` chunk.
  ///
  /// A `data` chunk whose declared size runs past the end of the file (as a streaming writer
  /// leaves it) counts the bytes actually present.
  ///
  /// - Throws: ``WAVError``.
  public init(data: Data) throws(WAVError) {
    let bytes = [UInt8](data)
    guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
      throw .notRIFFWAVE
    }
    func uint16(_ offset: Int) -> UInt16 { UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8 }
    func uint32(_ offset: Int) -> UInt32 {
      UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
        | UInt32(bytes[offset + 3]) << 24
    }
    var format: (tag: UInt16, channels: Int, rate: Int, byteRate: Int, bits: Int)?
    var dataCount: Int?
    var offset = 12
    while offset + 8 <= bytes.count, dataCount == nil {
      let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
      let size = Int(uint32(offset + 4))
      let body = offset + 8
      switch id {
      case "fmt ":
        guard size >= 16, body + 16 <= bytes.count else { throw .truncatedChunk(id) }
        format = (uint16(body), Int(uint16(body + 2)), Int(uint32(body + 4)), Int(uint32(body + 8)),
                  Int(uint16(body + 14)))
      case "data":
        guard format != nil else { throw .missingChunk("fmt ") }
        dataCount = min(size, bytes.count - body)
      default:
        guard body + size <= bytes.count else { throw .truncatedChunk(id) }
      }
      offset = body + size + (size & 1)
    }
    guard let format else { throw .missingChunk("fmt ") }
    guard let dataCount else { throw .missingChunk("data") }
    guard format.channels > 0 else { throw .invalidFormat("zero channels") }
    guard format.rate > 0 else { throw .invalidFormat("zero sample rate") }
    guard format.byteRate > 0 else { throw .invalidFormat("zero byte rate") }
    guard format.bits > 0 else { throw .invalidFormat("zero bits per sample") }
    audioFormat = format.tag
    channels = format.channels
    sampleRate = format.rate
    bitsPerSample = format.bits
    byteRate = format.byteRate
    dataByteCount = dataCount
  }
}
