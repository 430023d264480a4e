import ArgumentParser
import Foundation
import HybridAIBenchmarks
import HybridCommandLine

extension BenchCommand {
  /// Where the report goes, and logging: shared by every benchmark.
  struct ReportOptions: ParsableArguments {
    @Option(name: .long, help: "Also write the Markdown report to this file.")
    var output: String?

    @OptionGroup var logging: LoggingOptions
  }

  /// Progress lines on standard error.
  static let progress: @Sendable (String) -> Void = { Terminal.status("… \($0)") }

  /// Prints the report, and writes it to `output` when given.
  static func publish(_ report: BenchmarkReport, to output: String?) throws {
    Terminal.write(report.markdown + "\n")
    if let output { try report.markdown.write(toFile: output, atomically: true, encoding: .utf8) }
  }
}
