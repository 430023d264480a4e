import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file system error in the system's words ("File exists", "Permission denied", "Is a
/// directory"), for messages people read — Foundation's own descriptions of them are
/// `Error Domain=NSCocoaErrorDomain Code=516 … UserInfo={…}` or "The operation could not be
/// completed. (NSCocoaErrorDomain error 256.)".
public enum FileSystemErrorText {
  /// The POSIX reason underneath `error`, else its localized description.
  public static func describe(_ error: any Error) -> String {
    let error = error as NSError
    if error.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(error.code))) }
    if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError { return describe(underlying) }
    switch error.code {
    case NSFileWriteFileExistsError: return String(cString: strerror(EEXIST))
    case NSFileNoSuchFileError, NSFileReadNoSuchFileError: return String(cString: strerror(ENOENT))
    case NSFileReadNoPermissionError, NSFileWriteNoPermissionError: return String(cString: strerror(EACCES))
    default: return error.localizedDescription
    }
  }
}
