import HybridAI

extension Gemini {
  /// How the model may use the request's tools (`toolConfig` of a ``GenerateContentRequest``).
  ///
  /// ```swift
  /// // Only ever call get_weather, and let the API check the arguments against its schema:
  /// let config = Gemini.ToolConfig(functionCallingConfig: .init(mode: .any, allowedFunctionNames: ["get_weather"]))
  /// ```
  ///
  /// Members this library does not model (`retrievalConfig`, …) are kept in ``otherFields`` and
  /// written back unchanged.
  public struct ToolConfig: Sendable, Hashable, Codable {
    /// Function-calling settings.
    public var functionCallingConfig: FunctionCallingConfig?
    /// Other members (e.g. `retrievalConfig`), kept as data.
    public var otherFields: [String: JSONValue]

    /// A tool configuration.
    public init(functionCallingConfig: FunctionCallingConfig? = nil, otherFields: [String: JSONValue] = [:]) {
      self.functionCallingConfig = functionCallingConfig
      self.otherFields = otherFields
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyCodingKey.self)
      functionCallingConfig = try container.wire(FunctionCallingConfig.self, "functionCallingConfig")
      var others: [String: JSONValue] = [:]
      for key in container.allKeys
      where key.stringValue != "functionCallingConfig" && key.stringValue != "function_calling_config" {
        others[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
      }
      otherFields = others
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: AnyCodingKey.self)
      for (name, value) in otherFields.sorted(by: { $0.key < $1.key }) {
        try container.encode(value, forKey: AnyCodingKey(name))
      }
      try container.encodeIfPresent(functionCallingConfig, forKey: AnyCodingKey("functionCallingConfig"))
    }
  }

  /// Whether and which functions the model may call (`toolConfig.functionCallingConfig`).
  public struct FunctionCallingConfig: Sendable, Hashable, Codable {
    /// The function-calling mode: `AUTO`, `ANY`, `NONE` or `VALIDATED`.
    public struct Mode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
      public var rawValue: String
      public init(rawValue: String) { self.rawValue = rawValue }

      /// The model decides between answering and calling functions (the API's default).
      public static let auto = Mode(rawValue: "AUTO")
      /// The model must call functions (only those in ``FunctionCallingConfig/allowedFunctionNames``
      /// when set).
      public static let any = Mode(rawValue: "ANY")
      /// The model must not call functions.
      public static let none = Mode(rawValue: "NONE")
      /// The model decides, and its function calls are constrained to the declared schemas.
      public static let validated = Mode(rawValue: "VALIDATED")

      public var description: String { rawValue }

      public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self).uppercased()
      }
    }

    /// The mode; `nil` means the API's default (`AUTO`).
    ///
    /// Compare with `Mode.none` spelled out: `mode == .none` means "no mode" (`nil`).
    public var mode: Mode?
    /// With ``Mode/any`` (or `VALIDATED`): the only functions the model may call.
    public var allowedFunctionNames: [String]?

    /// A function-calling configuration with a mode (`mode` is not optional here, so `.none`
    /// means ``Mode/none``).
    public init(mode: Mode, allowedFunctionNames: [String]? = nil) {
      self.mode = mode
      self.allowedFunctionNames = allowedFunctionNames
    }

    /// A function-calling configuration without a mode (the API's default, `AUTO`).
    public init(allowedFunctionNames: [String]? = nil) {
      self.allowedFunctionNames = allowedFunctionNames
    }

    private enum CodingKeys: String, CodingKey { case mode, allowedFunctionNames }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyCodingKey.self)
      mode = try container.wire(Mode.self, "mode")
      allowedFunctionNames = try container.wire([String].self, "allowedFunctionNames")
    }
  }
}
