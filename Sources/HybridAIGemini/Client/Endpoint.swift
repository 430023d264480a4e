import Foundation

/// A path of the API below its version (`models/gemini-2.5-flash:generateContent`) and its query.
struct Endpoint: Sendable {
  var path: String
  var query: [(String, String)] = []

  /// `models/{model}` or `models/{model}:{method}`; a name that already has a collection
  /// (`models/…`, `tunedModels/…`) is used as it is.
  static func model(_ name: String, method: String? = nil, query: [(String, String)] = []) -> Endpoint {
    let resource = name.contains("/") ? name : "models/\(name)"
    return Endpoint(path: resource + (method.map { ":\($0)" } ?? ""), query: query)
  }

  /// The full URL below `baseURL` and `apiVersion`. A base URL that already ends with the
  /// version (`http://127.0.0.1:8080/v1beta`, as `hybrid serve` prints it) is taken as that
  /// version's root, not given it twice.
  func url(baseURL: URL, apiVersion: String) -> String {
    var base = baseURL.absoluteString
    while base.hasSuffix("/") { base.removeLast() }
    if base.hasSuffix("/" + apiVersion) { base.removeLast(apiVersion.count + 1) }
    let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#"))
    let encodedPath = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    var url = "\(base)/\(apiVersion)/\(encodedPath)"
    if !query.isEmpty {
      let valueAllowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+?#"))
      url += "?" + query.map { name, value in
        "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: valueAllowed) ?? value)"
      }.joined(separator: "&")
    }
    return url
  }
}
