import Configuration
import Foundation
import SystemPackage
import Yams

/// The effective settings of `hybrid serve` and where each came from: its flags win over the
/// environment (`HYBRIDAI_SERVE_…`, then the older `HYBRIDAI_ADMIN_TOKEN`-style names), which wins
/// over the config file (`--config FILE`, JSON or YAML), which wins over the defaults. Read with
/// swift-configuration's providers, one layer at a time so that each value knows its source;
/// unknown keys, unknown `HYBRIDAI_SERVE_` variables and values of the wrong type are errors
/// that name the file or variable.
struct ServeConfiguration: Sendable {
  /// Where a value came from.
  enum Source: Sendable, Equatable {
    case flag, environment(String), file(String), defaultValue

    /// How an error or `--print-config` names it, for `setting`.
    func describe(_ setting: ServeSetting) -> String {
      switch self {
      case .flag: "--\(setting.name)"
      case .environment(let variable): "$\(variable)"
      case .file(let path): "\(setting.name) in \(path)"
      case .defaultValue: "the default \(setting.name)"
      }
    }
  }

  struct Entry: Sendable {
    let content: ConfigContent
    let source: Source
    /// How errors and `--print-config` name where it came from ("--port", "admin-token-file in serve.yaml").
    let origin: String
  }

  private(set) var entries: [String: Entry] = [:]
  /// The config file read, if any.
  private(set) var file: String?

  // MARK: - Reading values

  func string(_ setting: ServeSetting) -> String? {
    if case .string(let value) = entries[setting.name]?.content { return value }
    return nil
  }

  func integer(_ setting: ServeSetting) -> Int? {
    if case .int(let value) = entries[setting.name]?.content { return value }
    return nil
  }

  func number(_ setting: ServeSetting) -> Double? {
    switch entries[setting.name]?.content {
    case .double(let value)?: value
    case .int(let value)?: Double(value)
    default: nil
    }
  }

  func boolean(_ setting: ServeSetting) -> Bool {
    if case .bool(let value) = entries[setting.name]?.content { return value }
    return false
  }

  func list(_ setting: ServeSetting) -> [String] {
    if case .stringArray(let value) = entries[setting.name]?.content { return value }
    return []
  }

  /// Where `setting`'s value came from, as an error names it ("--port", "port in serve.yaml").
  func origin(_ setting: ServeSetting) -> String {
    entries[setting.name]?.origin ?? Source.defaultValue.describe(setting)
  }

  // MARK: - Resolving

  /// Resolves every setting from `flags` (the values given on the command line), `environment`
  /// and the config file (`--config`, else `$HYBRIDAI_SERVE_CONFIG`).
  static func resolve(flags: [ServeSetting: ConfigContent], environment: [String: String]) async throws(ServeConfigurationError)
    -> ServeConfiguration {
    var layers: [Layer] = [Layer(provider: InMemoryProvider(name: "flags", values: flagValues(flags)), source: { _ in .flag })]
    try checkEnvironment(environment)
    let prefixed = EnvironmentVariablesProvider(environmentVariables: environment)
      .prefixKeys(with: ["hybridai", "serve"])
    layers.append(Layer(provider: prefixed, source: { .environment($0.environmentVariable) }))
    var legacy: [AbsoluteConfigKey: ConfigValue] = [:]
    for setting in ServeSetting.all {
      for variable in setting.legacyEnvironment.reversed() {
        if let value = environment[variable], !value.isEmpty {
          legacy[AbsoluteConfigKey([setting.name])] = ConfigValue(
            setting.kind == .list ? .stringArray([value]) : .string(value), isSecret: setting.isSecret)
        }
      }
    }
    layers.append(Layer(provider: InMemoryProvider(name: "legacy environment", values: legacy), source: { setting in
      .environment(setting.legacyEnvironment.first { environment[$0]?.isEmpty == false } ?? setting.environmentVariable)
    }))

    var path: String?
    if case .string(let flag)? = flags[.config] { path = flag } else { path = environment[ServeSetting.config.environmentVariable] }
    if let path {
      let provider = try await fileProvider(path)
      layers.append(Layer(provider: provider, source: { _ in .file(path) }))
    }

    var configuration = ServeConfiguration()
    configuration.file = path
    for setting in ServeSetting.all {
      if let entry = try lookUp(setting, in: layers) {
        configuration.entries[setting.name] = entry
      } else if let defaultValue = setting.defaultValue {
        configuration.entries[setting.name] = Entry(content: defaultValue, source: .defaultValue, origin: Source.defaultValue.describe(setting))
      }
    }
    return configuration
  }

  /// The flags alone (what `validate()` can check before the file is read).
  static func flagsOnly(_ flags: [ServeSetting: ConfigContent]) -> ServeConfiguration {
    var configuration = ServeConfiguration()
    for setting in ServeSetting.all {
      if let content = flags[setting] {
        configuration.entries[setting.name] = Entry(content: content, source: .flag, origin: Source.flag.describe(setting))
      } else if let defaultValue = setting.defaultValue {
        configuration.entries[setting.name] = Entry(content: defaultValue, source: .defaultValue, origin: Source.defaultValue.describe(setting))
      }
    }
    return configuration
  }

  /// One place values come from.
  struct Layer {
    let provider: any ConfigProvider
    let source: @Sendable (ServeSetting) -> Source
  }

  private static func flagValues(_ flags: [ServeSetting: ConfigContent]) -> [AbsoluteConfigKey: ConfigValue] {
    var values: [AbsoluteConfigKey: ConfigValue] = [:]
    for (setting, content) in flags where setting != .config {
      values[AbsoluteConfigKey([setting.name])] = ConfigValue(content, isSecret: setting.isSecret)
    }
    for setting in ServeSetting.all where setting.isSecret {
      if let content = flags[ServeSetting(setting.fileName, .string)] {
        values[AbsoluteConfigKey([setting.fileName])] = ConfigValue(content, isSecret: false)
      }
    }
    return values
  }

  /// The first layer that sets `setting` (or, for a secret, names its file).
  private static func lookUp(_ setting: ServeSetting, in layers: [Layer]) throws(ServeConfigurationError) -> Entry? {
    for layer in layers {
      let source = layer.source(setting)
      do {
        if let value = try layer.provider.value(forKey: AbsoluteConfigKey([setting.name]), type: setting.kind.configType).value {
          return Entry(content: value.content, source: source, origin: source.describe(setting))
        }
      } catch {
        throw .wrongType(source.describe(setting), expected: setting.kind.expectation)
      }
      guard setting.isSecret else { continue }
      let fileSetting = ServeSetting(setting.fileName, .string)
      let fileSource = layer.source(fileSetting)
      let lookup: LookupResult
      do {
        lookup = try layer.provider.value(forKey: AbsoluteConfigKey([setting.fileName]), type: .string)
      } catch {
        throw .wrongType(fileSource.describe(fileSetting), expected: "a file path")
      }
      if case .string(let path)? = lookup.value?.content {
        let origin = fileSource.describe(fileSetting)
        return Entry(content: try readSecret(path, for: setting, named: origin), source: fileSource, origin: origin)
      }
    }
    return nil
  }

  /// A secret's file: one value (trimmed), or for a list one value a line (blank lines and `#` comments skipped).
  private static func readSecret(_ path: String, for setting: ServeSetting, named origin: String) throws(ServeConfigurationError)
    -> ConfigContent {
    let text: String
    do {
      text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
      throw .unreadableSecret(origin, path: path, reason: (error as NSError).localizedDescription)
    }
    let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    guard !lines.isEmpty else { throw .unreadableSecret(origin, path: path, reason: "the file is empty") }
    if setting.kind == .list { return .stringArray(lines) }
    guard lines.count == 1 else { throw .unreadableSecret(origin, path: path, reason: "expected one line, found \(lines.count)") }
    return .string(lines[0])
  }

  /// Refuses `HYBRIDAI_SERVE_` variables that name no setting (a typo would otherwise do nothing).
  private static func checkEnvironment(_ environment: [String: String]) throws(ServeConfigurationError) {
    var known = Set(ServeSetting.all.map(\.environmentVariable))
    known.insert(ServeSetting.config.environmentVariable)
    for setting in ServeSetting.all where setting.isSecret { known.insert(ServeSetting(setting.fileName, .string).environmentVariable) }
    for variable in environment.keys.sorted() where variable.hasPrefix(ServeSetting.environmentPrefix) && !known.contains(variable) {
      throw .unknownEnvironmentVariable(variable, suggestion: suggestion(for: variable, among: known))
    }
  }

  /// The config file's provider, after checking that it is a mapping of known settings.
  private static func fileProvider(_ path: String) async throws(ServeConfigurationError) -> any ConfigProvider {
    let text: String
    do {
      text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
      throw .unreadableFile(path, reason: (error as NSError).localizedDescription)
    }
    let parsed: Any?
    do {
      parsed = try Yams.load(yaml: text)   // YAML is a superset of JSON: one check for both
    } catch {
      throw .invalidFile(path, reason: "\(error)")
    }
    guard let mapping = parsed as? [String: Any] else {
      throw .invalidFile(path, reason: "expected a mapping of settings (key: value) at the top level")
    }
    var known = Set(ServeSetting.all.map(\.name))
    for setting in ServeSetting.all where setting.isSecret { known.insert(setting.fileName) }
    for key in mapping.keys.sorted() where !known.contains(key) {
      throw .unknownKey(key, file: path, suggestion: suggestion(for: key, among: known))
    }
    for (key, value) in mapping where value is [String: Any] {
      throw .wrongType("\(key) in \(path)", expected: "a value, not a nested mapping")
    }
    let filePath = FilePath(path)
    do {
      switch URL(fileURLWithPath: path).pathExtension.lowercased() {
      case "json": return try await FileProvider<JSONSnapshot>(filePath: filePath)
      case "yaml", "yml": return try await FileProvider<YAMLSnapshot>(filePath: filePath)
      default: throw ServeConfigurationError.invalidFile(path, reason: "expected a .yaml, .yml or .json file")
      }
    } catch let error as ServeConfigurationError {
      throw error
    } catch {
      throw .invalidFile(path, reason: "\(error)")
    }
  }

  /// The closest of `candidates` to `name`, if close enough to be a typo.
  static func suggestion(for name: String, among candidates: Set<String>) -> String? {
    let lowered = name.lowercased()
    var best: (candidate: String, distance: Int)?
    for candidate in candidates.sorted() {
      let distance = editDistance(lowered, candidate.lowercased())
      if best.map({ distance < $0.distance }) ?? true { best = (candidate, distance) }
    }
    guard let best, best.distance <= max(2, name.count / 4) else { return nil }
    return best.candidate
  }

  private static func editDistance(_ lhs: String, _ rhs: String) -> Int {
    let a = Array(lhs), b = Array(rhs)
    var previous = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
      var current = [i] + Array(repeating: 0, count: b.count)
      for j in stride(from: 1, through: b.count, by: 1) {
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      }
      previous = current
    }
    return a.isEmpty ? b.count : previous[b.count]
  }

  // MARK: - Printing

  /// The effective settings as a YAML config file, each with its source; secrets masked.
  func printable() -> String {
    var lines = ["# hybrid serve: effective configuration" + (file.map { " (config file: \($0))" } ?? "")]
    for setting in ServeSetting.all {
      guard let entry = entries[setting.name] else {
        lines.append("# \(setting.name): (not set)")
        continue
      }
      let value = setting.isSecret ? Self.masked(entry.content) : Self.yaml(entry.content)
      lines.append("\(setting.name): \(value)  # \(entry.source == .defaultValue ? "default" : entry.origin)")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private static func masked(_ content: ConfigContent) -> String {
    if case .stringArray(let values) = content { return "[" + values.map { _ in "\"********\"" }.joined(separator: ", ") + "]" }
    return "\"********\""
  }

  private static func yaml(_ content: ConfigContent) -> String {
    switch content {
    case .string(let value): quoted(value)
    case .int(let value): "\(value)"
    case .bool(let value): "\(value)"
    case .double(let value): "\(value)"
    case .stringArray(let values): "[" + values.map(quoted).joined(separator: ", ") + "]"
    default: "\(content)"
    }
  }

  /// A double-quoted scalar (JSON's escaping is valid YAML).
  private static func quoted(_ value: String) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes])) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }
}

/// Why `hybrid serve`'s configuration cannot be used.
enum ServeConfigurationError: Error, CustomStringConvertible, Equatable {
  case unreadableFile(String, reason: String)
  case invalidFile(String, reason: String)
  case unknownKey(String, file: String, suggestion: String?)
  case unknownEnvironmentVariable(String, suggestion: String?)
  case wrongType(String, expected: String)
  case unreadableSecret(String, path: String, reason: String)
  case invalidValue(String, reason: String)

  var description: String {
    switch self {
    case .unreadableFile(let path, let reason): "cannot read the config file \(path): \(reason)"
    case .invalidFile(let path, let reason): "the config file \(path) is not valid: \(reason)"
    case .unknownKey(let key, let file, let suggestion):
      "unknown setting \(key) in \(file)" + (suggestion.map { " (did you mean \($0)?)" } ?? "")
        + "; hybrid serve --help lists the settings (a flag's name is its key)"
    case .unknownEnvironmentVariable(let variable, let suggestion):
      "unknown setting $\(variable)" + (suggestion.map { " (did you mean $\($0)?)" } ?? "")
    case .wrongType(let origin, let expected): "\(origin) must be \(expected)"
    case .unreadableSecret(let origin, let path, let reason): "cannot read the secret file \(path) (\(origin)): \(reason)"
    case .invalidValue(let origin, let reason): "\(origin) \(reason)"
    }
  }
}
