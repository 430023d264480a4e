import ArgumentParser
import Foundation
import HybridCommandLine
#if canImport(Glibc)
import Glibc
#endif

/// `hybrid bench …` — runs the `hybrid-bench` executable beside this one with the same arguments.
///
/// The benchmarks live in their own executable (Benchmarks/hybrid-bench) so that the CLI carries
/// no benchmark code; `swift build --product hybrid-bench` (or `make bench`) builds it.
struct BenchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bench",
    abstract: "Run the benchmarks (the hybrid-bench executable beside this one): on-device, hybrid, serving, guided, tflite, delivery.",
    discussion: "Every argument goes to hybrid-bench; `hybrid bench --help` lists its benchmarks.")

  @Argument(parsing: .captureForPassthrough, help: "The benchmark and its options, e.g. `on-device --reference PATH`.")
  var arguments: [String] = []

  func run() throws {
    let bench = Executables.sibling(named: "hybrid-bench")
    guard FileManager.default.isExecutableFile(atPath: bench.path) else {
      Terminal.status("error: \(bench.path) is missing; build it with `swift build --product hybrid-bench` "
        + "(same configuration as this hybrid), or run `make bench` (a bundle has it when made with scripts/make-bundle --with-bench)")
      throw ExitCode.failure
    }
    // Replaces this process, so signals, exit status and output are hybrid-bench's own.
    let argv = [bench.path] + arguments
    var cArguments = argv.map { strdup($0) } + [nil]
    execv(bench.path, &cArguments)
    Terminal.status("error: cannot run \(bench.path): \(String(cString: strerror(errno)))")
    throw ExitCode.failure
  }
}
