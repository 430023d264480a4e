import Foundation
import HybridAITestSupport
import Testing

@testable import TFLiteImage

/// Cut and mutated files: each decode either succeeds or throws an ``ImageError``; the process
/// neither crashes nor hangs.
@Suite("Fuzzing the decoders")
struct FuzzTests {
  private static let image = TestImages.gradient(width: 24, height: 16, channels: 3)

  private static let samples: [(String, Data)] = [
    ("png", try! image.pngData()),
    ("interlaced png", PNGBuilder.png(
      width: 24, height: 16, bitDepth: 8, colorType: .rgb, interlaced: true,
      scanlines: PNGBuilder.adam7(pixels: image.pixels, width: 24, height: 16, bytesPerPixel: 3))),
    ("jpeg", TestImages.jpeg(pixels: image.pixels, width: 24, height: 16, components: 3)),
    ("progressive jpeg",
     TestImages.jpeg(pixels: image.pixels, width: 24, height: 16, components: 3, progressive: true)),
  ]

  @Test("every prefix of a file fails with a typed error", arguments: 0..<4)
  func everyPrefix(sample: Int) {
    let (name, data) = FuzzTests.samples[sample]
    for length in 0..<data.count {
      do {
        _ = try Bitmap(data: data.prefix(length))
        Issue.record("\(name): a \(length)-byte prefix of \(data.count) decoded")
      } catch {
        switch error {
        case .emptyData, .unsupportedFormat, .truncated, .corrupt: break
        default: Issue.record("\(name), prefix \(length): unexpected \(error)")
        }
      }
    }
  }

  @Test("randomly mutated files decode or fail with a typed error", arguments: 0..<4)
  func mutations(sample: Int) {
    let (_, data) = FuzzTests.samples[sample]
    var generator = SeededRandom(seed: UInt64(sample) + 1)
    var failures = 0
    for _ in 0..<300 {
      var bytes = Array(data)
      for _ in 0..<Int.random(in: 1...8, using: &generator) {
        bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
      }
      do {
        let decoded = try Bitmap(data: Data(bytes), maximumPixelCount: 1 << 22)
        #expect(decoded.pixels.count == decoded.width * decoded.height * 3)
      } catch {
        failures += 1
      }
    }
    #expect(failures > 0)
  }
}
