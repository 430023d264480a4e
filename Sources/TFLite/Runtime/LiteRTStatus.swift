/// Names for LiteRT status codes, for error messages (`LiteRtGetStatusString` is not exported by
/// the pinned library).
enum LiteRTStatus {
  static func describe(_ status: Int32) -> String {
    let name: String
    switch status {
    case 0: name = "ok"
    case 1: name = "invalid argument"
    case 2: name = "memory allocation failure"
    case 3: name = "runtime failure"
    case 4: name = "missing input tensor"
    case 5: name = "unsupported"
    case 6: name = "not found"
    case 7: name = "timeout expired"
    case 8: name = "wrong version"
    case 9: name = "unknown error"
    case 10: name = "already exists"
    case 100: name = "cancelled"
    case 500: name = "file I/O error"
    case 501: name = "invalid flatbuffer"
    case 502: name = "dynamic loading error"
    case 503: name = "serialization error"
    case 504: name = "compilation error"
    case 1000: name = "index out of bounds"
    case 1001: name = "invalid IR type"
    case 1002: name = "invalid graph invariant"
    case 1003: name = "graph modification error"
    default: name = "error"
    }
    return "\(name) (LiteRT status \(status))"
  }
}
