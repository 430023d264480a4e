import Foundation
import HybridAIOnDevice
import HybridCommandLine
import ModelDelivery

/// `hybrid models list --local`: the GGUF models in Hugging Face's cache, Ollama's store, registry downloads and the
/// model folders, with the reference `--model` takes for each.
struct LocalModelsList {
  /// One model as listed: the catalogue's entry and the architecture its header declares.
  struct Row: Encodable {
    var source: String
    var reference: String
    var architecture: String?
    var quantization: String?
    var sizeBytes: Int64
    var projector: String?
    var file: String
  }

  let json: Bool

  func rows() -> [Row] {
    LocalModelCatalog(folders: ModelLocator.modelFolders()).entries().map { entry in
      Row(source: entry.source, reference: entry.reference, architecture: GGUFArchitecture.ofFile(atPath: entry.file),
          quantization: entry.quantization, sizeBytes: entry.sizeBytes, projector: entry.projector, file: entry.file)
    }
  }

  func print() throws {
    let rows = rows()
    if json { return try printJSON(rows) }
    guard !rows.isEmpty else {
      Terminal.write("no GGUF models in Hugging Face's cache, Ollama's store, the registry downloads or the model folders\n")
      return
    }
    let table = [["SOURCE", "REFERENCE", "ARCHITECTURE", "QUANT", "SIZE", "PROJECTOR"]] + rows.map { row in
      [row.source, row.reference, row.architecture ?? "?", row.quantization ?? "-", Self.size(row.sizeBytes),
       row.projector == nil ? "no" : "yes"]
    }
    let widths = (0..<table[0].count).map { column in table.map { $0[column].count }.max() ?? 0 }
    for line in table {
      let cells = zip(line, widths).map { cell, width in cell.padding(toLength: width, withPad: " ", startingAt: 0) }
      Terminal.write(cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n")
    }
  }

  /// Bytes for people: `98.4 MB`, `1.2 GB`.
  static func size(_ bytes: Int64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB"]
    var value = Double(bytes), unit = 0
    while value >= 1000, unit < units.count - 1 { value /= 1000; unit += 1 }
    return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
  }
}
