import Foundation
import HybridAIProcess
import HybridAITestSupport
import Testing

/// `hybrid tflite inspect` and `hybrid tflite run`, run as a user would run them, on the models
/// and the Python LiteRT reference that scripts/bootstrap installs.
@Suite("hybrid tflite")
struct TFLiteCommandTests {
  static func model(_ name: String) throws -> String { try TestRepository.model("tflite/\(name)").path }

  func run(_ arguments: [String]) async throws -> HybridCommandTests.Run {
    try #require(FileManager.default.isExecutableFile(atPath: HybridCommandTests.executable.path),
                 "build the hybrid product first")
    return try await HybridCommandTests().run(["tflite"] + arguments)
  }

  func json(_ text: String) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
  }

  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tflite-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  @Test("inspect --json: tensors, types, shapes, quantization, signatures")
  func inspectJSON() async throws {
    let result = try await run(["inspect", try Self.model("okay_nabu.tflite"), "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let report = try json(result.stdout)
    let input = try #require((report["inputs"] as? [[String: Any]])?.first)
    #expect(input["name"] as? String == "serving_default_input_audio:0")
    #expect(input["dataType"] as? String == "int8")
    #expect(input["shape"] as? [Int] == [1, 3, 40])
    #expect(input["zeroPoint"] as? Int == -128)
    let output = try #require((report["outputs"] as? [[String: Any]])?.first)
    #expect(output["dataType"] as? String == "uint8")
    #expect(output["scale"] as? Double == 0.00390625)
    let signature = try #require((report["signatures"] as? [[String: Any]])?.first)
    #expect(signature["key"] as? String == "serving_default")
    #expect((signature["inputs"] as? [[String: Any]])?.first?["name"] as? String == "input_audio")
  }

  @Test("inspect prints text, and nothing of the runtime's own on either stream")
  func inspectText() async throws {
    let result = try await run(["inspect", try Self.model("selfie_segmentation.tflite")])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("input_1  float32 [1, 256, 256, 3]  786432 bytes"))
    #expect(result.stdout.contains("activation_10  float32 [1, 256, 256, 1]"))
    #expect(result.stdout.contains("signatures: none"))
    #expect(result.stderr.isEmpty, "\(result.stderr)")
  }

  @Test("run --input … --output equals Python's LiteRT byte for byte")
  func runMatchesReference() async throws {
    let python = TestRepository.litertPython
    try #require(FileManager.default.isExecutableFile(atPath: python.path), "missing \(python.path): run scripts/bootstrap")
    let model = try Self.model("selfie_segmentation.tflite")
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var state: UInt32 = 12345
    var input = Data(capacity: 256 * 256 * 3 * 4)
    for _ in 0..<(256 * 256 * 3) {
      state = state &* 1_664_525 &+ 1_013_904_223
      let value = Float(state >> 8) / Float(1 << 24)
      withUnsafeBytes(of: value.bitPattern.littleEndian) { input.append(contentsOf: $0) }
    }
    let inputFile = directory.appendingPathComponent("input.bin")
    try input.write(to: inputFile)
    let outputFile = directory.appendingPathComponent("mask.bin")

    let result = try await run(["run", model, "--input", inputFile.path, "--output", outputFile.path, "--threads", "2"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("invoke "))
    #expect(!result.stdout.contains("INFO:") && !result.stderr.contains("INFO:"), "the runtime's log stays hidden")

    let reference = try await ChildProcess.run(python, [
      TestRepository.file("Tests/TFLiteTests/Reference/litert_reference.py").path,
      model, directory.appendingPathComponent("reference").path, "--threads", "2", "--input", inputFile.path])
    #expect(reference.succeeded, "\(reference.standardError)")
    let expected = try Data(contentsOf: directory.appendingPathComponent("reference/output-0.bin"))
    #expect(try Data(contentsOf: outputFile) == expected)
  }

  @Test("run --random is reproducible; --output-dir names files after the outputs; --repeat times each invoke")
  func runRandom() async throws {
    let model = try Self.model("face_detection_short_range.tflite")
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let first = try await run(["run", model, "--random", "42", "--output-dir", directory.path, "--repeat", "3", "--json"])
    #expect(first.status == 0, "\(first.stderr)")
    let report = try json(first.stdout)
    let outputs = try #require(report["outputs"] as? [[String: Any]])
    #expect(outputs.map { $0["name"] as? String } == ["regressors", "classificators"])
    let timings = try #require(report["timings"] as? [String: Any])
    #expect((timings["invokeMilliseconds"] as? [Double])?.count == 3)
    #expect(timings["medianInvokeMilliseconds"] is Double)
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    #expect(files == ["classificators.bin", "regressors.bin"])
    #expect(try Data(contentsOf: directory.appendingPathComponent("regressors.bin")).count == 896 * 16 * 4)

    let second = try json(try await run(["run", model, "--random", "42", "--json"]).stdout)
    let third = try json(try await run(["run", model, "--random", "43", "--json"]).stdout)
    func checksums(_ report: [String: Any]) -> [String] {
      (report["outputs"] as? [[String: Any]] ?? []).compactMap { $0["checksum"] as? String }
    }
    #expect(checksums(report) == checksums(second))
    #expect(checksums(report) != checksums(third))

    // Names with characters unfit for files are cleaned.
    let nabu = try await run(["run", try Self.model("okay_nabu.tflite"), "--random", "1", "--output-dir", directory.path])
    #expect(nabu.status == 0, "\(nabu.stderr)")
    #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("StatefulPartitionedCall_0.bin").path))
  }

  @Test("--verbose lets the runtime's messages through to standard error")
  func verbose() async throws {
    let result = try await run(["run", try Self.model("okay_nabu.tflite"), "--random", "1", "--verbose"])
    #expect(result.status == 0)
    #expect(result.stderr.contains("XNNPACK"))
    #expect(!result.stdout.contains("XNNPACK"))
  }

  @Test("errors: missing model, not a model, wrong input size, wrong input count, no inputs")
  func errors() async throws {
    let missing = try await run(["run", "/nonexistent/m.tflite", "--random", "1"])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("No model file at /nonexistent/m.tflite"))

    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let text = directory.appendingPathComponent("notes.tflite")
    try Data("not a model at all".utf8).write(to: text)
    let notModel = try await run(["inspect", text.path])
    #expect(notModel.status == 1)
    #expect(notModel.stderr.contains("Not a TFLite model"))

    // A file where --output-dir's folder should be: the reason in plain words, no Foundation dump.
    let inTheWay = try await run(["run", try Self.model("okay_nabu.tflite"), "--random", "1", "--output-dir", text.path])
    #expect(inTheWay.status == 1 && inTheWay.stderr.contains("cannot make the folder \(text.path) for --output-dir: File exists"),
            "\(inTheWay.stderr)")
    #expect(!inTheWay.stderr.contains("NSCocoaErrorDomain"))

    let small = directory.appendingPathComponent("small.bin")
    try Data(count: 100).write(to: small)
    let nabu = try Self.model("okay_nabu.tflite")
    let wrongSize = try await run(["run", nabu, "--input", small.path])
    #expect(wrongSize.status == 1)
    #expect(wrongSize.stderr.contains("Got 100 bytes for a tensor of 120 bytes"))

    let wrongCount = try await run(["run", nabu, "--input", small.path, small.path])
    #expect(wrongCount.status == 1)
    #expect(wrongCount.stderr.contains("1 input(s); got 2"))

    let neither = try await run(["run", nabu])
    #expect(neither.status == 64)
    #expect(neither.stderr.contains("--input") && neither.stderr.contains("--random"))
  }
}
