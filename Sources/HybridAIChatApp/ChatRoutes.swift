/// The web chat's URL paths.
enum ChatRoutes {
  /// The API's root.
  static let apiRoot = "/v1/chat"
  static let sessions = apiRoot + "/sessions"

  static func session(_ id: String) -> String { sessions + "/" + id }

  /// Where the bytes of file `fileID` of session `sessionID` are served.
  static func filePath(sessionID: String, fileID: String) -> String {
    session(sessionID) + "/files/" + fileID
  }
}
