extension Bitmap {
  /// The same image with three channels: gray is copied into R, G and B, alpha is dropped (not
  /// composited), RGB is returned unchanged.
  public var rgb: Bitmap {
    switch channels {
    case 3:
      return self
    case 1:
      var rgb = [UInt8](repeating: 0, count: pixelCount * 3)
      for index in 0..<pixelCount {
        let value = pixels[index]
        rgb[index * 3] = value
        rgb[index * 3 + 1] = value
        rgb[index * 3 + 2] = value
      }
      return Bitmap(unchecked: width, height: height, channels: 3, pixels: rgb)
    default:
      var rgb = [UInt8](repeating: 0, count: pixelCount * 3)
      for index in 0..<pixelCount {
        rgb[index * 3] = pixels[index * channels]
        rgb[index * 3 + 1] = pixels[index * channels + 1]
        rgb[index * 3 + 2] = pixels[index * channels + 2]
      }
      return Bitmap(unchecked: width, height: height, channels: 3, pixels: rgb)
    }
  }
}
