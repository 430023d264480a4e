// Image bytes → `ImageHeader.dimensions(of:)`, the header read that refuses a decompression bomb
// before the on-device projector decodes an attachment (PNG, GIF, BMP, and JPEG's segment walk).
//
// Properties: it never reads past the bytes it is given (AddressSanitizer), ends on any input, and
// reads only the first 64 KiB — the same answer for the input cut there.
import Foundation
import FuzzDriver
import HybridAI

@_cdecl("FuzzImageHeader_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let data = Data(UnsafeRawBufferPointer(start: start, count: count))
  let dimensions = ImageHeader.dimensions(of: data)
  let fromPrefix = ImageHeader.dimensions(of: data.prefix(64 * 1024))
  precondition(dimensions?.width == fromPrefix?.width && dimensions?.height == fromPrefix?.height,
               "bytes past the first 64 KiB changed the answer")
  if let dimensions {
    precondition(dimensions.width >= 0 && dimensions.height >= 0 || data.starts(with: Array("BM".utf8)),
                 "only a BMP may declare a negative width: \(dimensions)")
  }
  return 0
}
