import Foundation
import Testing

@testable import TFLiteImage

@Suite("Reading and writing files")
struct FileTests {
  @Test("write(to:) picks PNG or JPEG by extension, and init(contentsOf:) reads them back")
  func roundTrip() throws {
    let directory = try TestImages.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let image = TestImages.gradient(width: 30, height: 20, channels: 3)

    let pngURL = directory.appendingPathComponent("image.png")
    try image.write(to: pngURL)
    #expect(ImageFormat(sniffing: try Data(contentsOf: pngURL)) == .png)
    #expect(try Bitmap(contentsOf: pngURL) == image)

    let jpegURL = directory.appendingPathComponent("image.JPG")
    try image.write(to: jpegURL)
    #expect(ImageFormat(sniffing: try Data(contentsOf: jpegURL)) == .jpeg)
    #expect(TestImages.difference(try Bitmap(contentsOf: jpegURL), image).mean < 3)

    let forced = directory.appendingPathComponent("mask.bin")
    try image.write(to: forced, format: .png)
    #expect(try Bitmap(contentsOf: forced) == image)
  }

  @Test("missing files, directories and non-file URLs are unreadable; an empty file is empty")
  func unreadable() throws {
    let directory = try TestImages.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }

    let missing = directory.appendingPathComponent("missing.png")
    #expect {
      try Bitmap(contentsOf: missing)
    } throws: { error in
      guard case .unreadableFile(let path, let reason) = error as? ImageError else { return false }
      return path == missing.path && !reason.isEmpty
    }
    #expect {
      try Bitmap(contentsOf: directory)
    } throws: { error in
      if case .unreadableFile = error as? ImageError { true } else { false }
    }
    #expect(throws: ImageError.unreadableFile(path: "https://example.com/a.png", reason: "not a file URL")) {
      try Bitmap(contentsOf: URL(string: "https://example.com/a.png")!)
    }

    let empty = directory.appendingPathComponent("empty.png")
    try Data().write(to: empty)
    #expect(throws: ImageError.emptyData) { try Bitmap(contentsOf: empty) }
  }

  @Test("writing into a missing directory is unwritable")
  func unwritable() throws {
    let directory = try TestImages.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let target = directory.appendingPathComponent("no/such/dir/out.png")
    #expect {
      try TestImages.gradient(width: 2, height: 2, channels: 1).write(to: target)
    } throws: { error in
      if case .unwritableFile(let path, _) = error as? ImageError { path == target.path } else { false }
    }
  }
}
