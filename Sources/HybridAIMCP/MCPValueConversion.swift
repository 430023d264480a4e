import Foundation
import HybridAI
import MCP

/// MCP's JSON values and HybridAI's, converted through their shared JSON form.
enum MCPValueConversion {
  static func jsonValue(_ value: Value) -> JSONValue {
    switch value {
    case .null: .null
    case .bool(let flag): .bool(flag)
    case .int(let number): .number(Double(number))
    case .double(let number): .number(number)
    case .string(let text): .string(text)
    case .data(let mimeType, let data): .string("data:\(mimeType ?? "application/octet-stream");base64,\(data.base64EncodedString())")
    case .array(let items): .array(items.map(jsonValue))
    case .object(let fields): .object(fields.mapValues(jsonValue))
    }
  }

  static func value(_ json: JSONValue) -> Value {
    switch json {
    case .null: .null
    case .bool(let flag): .bool(flag)
    case .number(let number):
      number.rounded() == number && abs(number) < 9.0e15 ? .int(Int(number)) : .double(number)
    case .string(let text): .string(text)
    case .array(let items): .array(items.map(value))
    case .object(let fields): .object(fields.mapValues(value))
    }
  }
}
