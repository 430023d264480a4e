import Foundation
import HybridAI

extension Attachment {
  /// The file at `path` as given on the command line (`--attach`, `/attach`): relative to the
  /// current directory, `..` resolved; its kind read from its bytes.
  init(commandLinePath path: String) throws(AttachmentError) {
    let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
    try self.init(contentsOf: url.standardizedFileURL)
  }
}
