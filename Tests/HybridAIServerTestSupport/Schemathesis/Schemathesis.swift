import Foundation
import HybridAITestSupport
import Testing

/// Schemathesis, as the API fuzzing tests run it: from the bootstrap's venv, through
/// `schemathesis_run.sh` beside this file (bounded, deterministic, sandboxed).
public enum Schemathesis {
  /// The runner: `schemathesis_run.sh NAME SCHEMA BASE_URL [OPTIONS…]`.
  public static let runner = TestRepository.file("Tests/HybridAIServerTestSupport/Schemathesis/schemathesis_run.sh")

  /// Ends the test with how to install Schemathesis when the bootstrap has not.
  public static func requireInstalled() throws {
    let schemathesis = TestRepository.dependency("schemathesis-venv/bin/schemathesis")
    try #require(FileManager.default.isExecutableFile(atPath: schemathesis.path),
                 "schemathesis is missing at \(schemathesis.path): run scripts/bootstrap (make test does)")
  }
}
