import Foundation
import HybridAI
import Logging
import ModelDelivery
import TFLite
import TFLiteImage

/// Finds the person in a picture: a PNG mask artifact (white = person) made by MediaPipe's
/// `selfie_segmentation.tflite` through the TensorFlow Lite `Interpreter`.
///
/// The picture is a file of the conversation — a photo the user attached, an image a tool or the
/// model made — named by its id or file name (``HybridAI/ToolContext/conversationFile(named:)``),
/// or else a path inside one of the tool's ``AllowedDirectories`` (relative paths are relative
/// to the first), or a `file://` URL of an artifact inside one of them; anything else, `../`
/// tricks and symbolic links leading out included, is refused. When the argument names neither
/// (small models often write something else) and the conversation holds a picture, the newest
/// one is used and the output says so.
///
/// The picture is decoded (PNG or JPEG), converted to RGB, resized to the model's input
/// (bilinear, `Bitmap.resized`), fed as float32 in 0…1; the model's single-channel float output
/// becomes a gray mask (`Bitmap(mask:width:height:)`) that is resized back to the picture's size
/// and encoded as PNG — exactly what ``mask(for:)`` returns.
///
/// ```swift
/// let tool = SegmentPersonTool(modelPath: ".deps/models/tflite/selfie_segmentation.tflite",
///                              allowedDirectories: [URL(fileURLWithPath: "/srv/pictures")])
/// let output = try await tool.call(arguments: .init(path: "me.jpg"), context: context)
/// output.artifacts[0]   // me-mask.png, image/png
/// ```
public struct SegmentPersonTool: Tool {
  public let name = "segment_person"
  public let description = "Finds the person in a picture and creates a black-and-white PNG mask of them."

  /// Which picture to segment.
  @Generable
  public struct Arguments: Sendable {
    @Guide(description: "The picture's file name")
    public var path: String

    public init(path: String) {
      self.path = path
    }
  }

  /// Where the model comes from.
  public let modelSource: ModelSource
  /// Where pictures may be read from.
  public let allowedDirectories: AllowedDirectories
  /// Threads the interpreter uses; `nil` lets it choose.
  public var threadCount: Int?
  /// The largest picture (in pixels) decoded.
  public var maximumPixelCount: Int
  private let logger: Logger

  /// A segmentation tool with the model at `modelPath`.
  public init(modelPath: String, allowedDirectories: [URL], threadCount: Int? = nil,
              maximumPixelCount: Int = 1 << 24, logger: Logger = Logger(label: "HybridAI.tools.segmentPerson")) {
    self.init(modelSource: .file(path: modelPath), allowedDirectories: allowedDirectories, threadCount: threadCount,
              maximumPixelCount: maximumPixelCount, logger: logger)
  }

  /// A segmentation tool whose model is fetched from a registry with `downloader`.
  public init(downloader: ModelDownloader, modelName: String = "selfie_segmentation",
              downloadType: ModelDownloadType = .localModelUpdateInBackground, allowedDirectories: [URL],
              threadCount: Int? = nil, maximumPixelCount: Int = 1 << 24,
              logger: Logger = Logger(label: "HybridAI.tools.segmentPerson")) {
    self.init(modelSource: .registry(downloader, name: modelName, downloadType: downloadType),
              allowedDirectories: allowedDirectories, threadCount: threadCount, maximumPixelCount: maximumPixelCount,
              logger: logger)
  }

  /// A segmentation tool with the model from `modelSource`.
  public init(modelSource: ModelSource, allowedDirectories: [URL], threadCount: Int? = nil,
              maximumPixelCount: Int = 1 << 24, logger: Logger = Logger(label: "HybridAI.tools.segmentPerson")) {
    self.modelSource = modelSource
    self.allowedDirectories = AllowedDirectories(allowedDirectories)
    self.threadCount = threadCount
    self.maximumPixelCount = maximumPixelCount
    self.logger = logger
  }

  public func call(arguments: Arguments, context: ToolContext) async throws -> ToolOutput {
    // A file of the conversation first (the photo the user attached), else a path; checked before the model loads.
    var attached = context.conversationFile(named: arguments.path)
    var substitution = ""
    if attached == nil, !allowedDirectories.containsFile(arguments.path), let newest = context.newestConversationFile(of: .image) {
      attached = newest
      substitution = " ('\(arguments.path)' names no file; used the conversation's newest picture, \(newest.name))"
    }
    let file = attached == nil ? try allowedDirectories.resolve(arguments.path) : nil
    let pictureName = attached?.name ?? file?.lastPathComponent ?? arguments.path
    context.report(progress: 0.05, "loading the model")
    let modelPath = try await resolveModelPath()
    if Task.isCancelled { throw SegmentPersonToolError.cancelled }
    context.report(progress: 0.2, "reading the picture")
    let picture: Bitmap
    do {
      if let attached {
        picture = try Bitmap(data: context.contents(of: attached), maximumPixelCount: maximumPixelCount)
      } else if let file {
        picture = try Bitmap(contentsOf: file, maximumPixelCount: maximumPixelCount)
      } else {
        throw SegmentPersonToolError.invalidPath(arguments.path)
      }
    } catch let error as ImageError {
      throw SegmentPersonToolError.image(error)
    }
    context.report(progress: 0.4, "segmenting")
    let (png, foreground) = try segment(picture, modelPath: modelPath)
    context.report(progress: 1, "done")
    let stem = URL(fileURLWithPath: pictureName).deletingPathExtension().lastPathComponent
    let percent = Int((foreground * 100).rounded())
    logger.info("segmented a picture", metadata: [
      "file": "\(pictureName)", "attachment": "\(attached?.id ?? "none")", "size": "\(picture.width)x\(picture.height)", "foreground": "\(percent)%",
    ])
    let fileName = ArtifactName.sanitized("\(stem)-mask.png")
    return ToolOutput("Created \(fileName) (\(picture.width)×\(picture.height), \(percent)% person)\(substitution)",
                      artifacts: [Artifact(data: png, mimeType: "image/png", name: fileName)])
  }

  /// The PNG mask for `picture`, at the picture's size, with the configured model.
  ///
  /// - Throws: ``SegmentPersonToolError``.
  public func mask(for picture: Bitmap) async throws(SegmentPersonToolError) -> Data {
    try segment(picture, modelPath: try await resolveModelPath()).png
  }

  private func resolveModelPath() async throws(SegmentPersonToolError) -> String {
    switch modelSource {
    case .file(let path):
      return path
    case .registry(let downloader, let name, let downloadType):
      do {
        let model = try await downloader.getModel(name: name, downloadType: downloadType)
        logger.debug("using the registry's model", metadata: ["model": "\(name)", "version": "\(model.version)"])
        return model.path
      } catch is CancellationError {
        throw .cancelled
      } catch {
        logger.error("the segmentation model could not be fetched", metadata: ["model": "\(name)", "error": "\(error)"])
        throw .modelUnavailable(reason: "\(error)")
      }
    }
  }

  /// Runs the model on `picture`; the PNG mask and the fraction of mask values above 0.5.
  private func segment(_ picture: Bitmap, modelPath: String) throws(SegmentPersonToolError) -> (png: Data, foreground: Double) {
    do {
      let interpreter = try Interpreter(modelPath: modelPath, options: Interpreter.Options(threadCount: threadCount))
      try interpreter.allocateTensors()
      let input = try interpreter.input(at: 0)
      let inputShape = input.shape.dimensions
      guard inputShape.count == 4, inputShape[0] == 1, inputShape[3] == 3, input.dataType == .float32 else {
        throw SegmentPersonToolError.unexpectedModel(reason: "input \(input.dataType) \(input.shape), not float32 [1, h, w, 3]")
      }
      let (height, width) = (inputShape[1], inputShape[2])
      let resized = try picture.rgb.resized(width: width, height: height)
      try interpreter.copy(resized.tensorData(as: .float32(range: .zeroToOne)), toInputAt: 0)
      try interpreter.invoke()
      let output = try interpreter.output(at: 0)
      guard output.dataType == .float32, output.data.count == width * height * 4 else {
        throw SegmentPersonToolError.unexpectedModel(
          reason: "output \(output.dataType) \(output.shape), not float32 [1, \(height), \(width), 1]")
      }
      let values = output.data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
      let foreground = Double(values.count(where: { $0 > 0.5 })) / Double(max(1, values.count))
      let mask = try Bitmap(mask: values, width: width, height: height)
        .resized(width: picture.width, height: picture.height, maximumPixelCount: max(maximumPixelCount, picture.pixelCount))
      return (try mask.pngData(), foreground)
    } catch let error as SegmentPersonToolError {
      throw error
    } catch let error as InterpreterError {
      throw .interpreter(error)
    } catch let error as ImageError {
      throw .image(error)
    } catch {
      throw .unexpectedModel(reason: "\(error)")
    }
  }
}
