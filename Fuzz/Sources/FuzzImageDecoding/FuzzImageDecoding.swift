// PNG and JPEG bytes → `Bitmap(data:maximumPixelCount:)` (libpng and libjpeg-turbo behind
// CImageCodecs, whose errors must come back as ImageError, never as a crash or longjmp out of
// bounds), then what the person-mask tool does with a decoded image: resize and tensor bytes.
//
// Properties: a decoded bitmap is RGB with width × height × 3 samples; it survives our own PNG
// encoder unchanged (PNG is lossless) and our own JPEG encoder at its size; tensor bytes have the
// size the tensor shape says.
import Foundation
import FuzzDriver
import TFLiteImage

@_cdecl("FuzzImageDecoding_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

/// Small enough that a header declaring a huge image is refused before allocating (the default
/// allows 2^26 pixels, 192 MiB of samples) and an execution stays fast.
private let maximumPixelCount = 1 << 22

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let data = Data(UnsafeRawBufferPointer(start: start, count: count))
  _ = ImageFormat(sniffing: data)?.displayName
  let bitmap: Bitmap
  do {
    bitmap = try Bitmap(data: data, maximumPixelCount: maximumPixelCount)
  } catch {
    _ = error.description
    return 0
  }
  precondition(bitmap.channels == 3, "a decoded bitmap has \(bitmap.channels) channels")
  precondition(bitmap.width > 0 && bitmap.height > 0, "a decoded bitmap is \(bitmap.width) × \(bitmap.height)")
  precondition(bitmap.pixels.count == bitmap.width * bitmap.height * 3,
               "\(bitmap.pixels.count) samples for \(bitmap.width) × \(bitmap.height) RGB")

  // The round trips cost two codecs each: only for small images, to keep executions fast.
  if bitmap.pixelCount <= 1 << 16 {
    do {
      let again = try Bitmap(data: try bitmap.pngData(), maximumPixelCount: maximumPixelCount)
      precondition(again == bitmap, "PNG encode → decode changed the pixels (\(bitmap.width) × \(bitmap.height))")
    } catch {
      fatalError("a decoded bitmap does not survive PNG encode → decode: \(error)")
    }
    // JPEG holds at most 65,500 pixels a side (jpegData throws beyond).
    if bitmap.width <= 65_500 && bitmap.height <= 65_500 {
      do {
        let again = try Bitmap(data: try bitmap.jpegData(quality: 75), maximumPixelCount: maximumPixelCount)
        precondition(again.width == bitmap.width && again.height == bitmap.height,
                     "JPEG encode → decode changed the size: \(bitmap.width) × \(bitmap.height) → \(again.width) × \(again.height)")
      } catch {
        fatalError("a decoded bitmap does not survive JPEG encode → decode: \(error)")
      }
    }
  }

  let width = Int(UInt(bitmap.width) % 97) + 1, height = Int(UInt(bitmap.height) % 89) + 1
  do {
    let resized = try bitmap.resized(width: width, height: height)
    precondition(resized.width == width && resized.height == height && resized.channels == 3,
                 "resized to \(resized.width) × \(resized.height) × \(resized.channels), not \(width) × \(height) × 3")
    let tensor = resized.tensorData(as: .float32(range: .minusOneToOne))
    precondition(tensor.count == resized.tensorShape.reduce(1, *) * 4,
                 "\(tensor.count) tensor bytes for shape \(resized.tensorShape)")
    precondition(resized.tensorData(as: .uint8).count == width * height * 3, "uint8 tensor bytes")
  } catch {
    fatalError("resizing a decoded \(bitmap.width) × \(bitmap.height) bitmap to \(width) × \(height) failed: \(error)")
  }
  return 0
}
