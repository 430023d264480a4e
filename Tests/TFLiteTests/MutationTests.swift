import Foundation
import Testing
import TFLite

/// Hundreds of randomly corrupted copies of real models, opened, allocated and run in this very
/// process: every one must end in success or an ``InterpreterError`` — no crash, no hang.
@Suite("TFLite corrupted models")
struct MutationTests {
  enum Outcome: String, CaseIterable { case ran, failedToOpen, failedToAllocate, failedToRun }

  /// A copy of `original` with a few bytes changed, a 32-bit word replaced by a value that tends
  /// to break offsets, sizes and indices, or the tail cut off.
  static func mutate(_ original: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
    var bytes = original
    switch Int.random(in: 0..<10, using: &random) {
    case 0:
      bytes.removeLast(Int.random(in: 1..<bytes.count, using: &random))
    case 1, 2, 3:
      let words: [UInt32] = [0, 1, 0xFF, 0xFFFF, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, UInt32(bytes.count)]
      let value = words.randomElement(using: &random)! &+ UInt32(Int.random(in: 0...2, using: &random))
      let position = Int.random(in: 0..<(bytes.count / 4), using: &random) * 4
      withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(position..<(position + 4), with: $0) }
    default:
      for _ in 0..<Int.random(in: 1...8, using: &random) {
        bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
      }
    }
    return bytes
  }

  static func run(_ bytes: [UInt8], options: Interpreter.Options) -> Outcome {
    let interpreter: Interpreter
    do { interpreter = try Interpreter(modelData: Data(bytes), options: options) } catch { return .failedToOpen }
    do { try interpreter.allocateTensors() } catch { return .failedToAllocate }
    do { try interpreter.invoke() } catch { return .failedToRun }
    return .ran
  }

  @Test("300 mutated copies of okay_nabu and face detection, seeded", .timeLimit(.minutes(5)))
  func mutatedModels() throws {
    let options = Interpreter.Options(invocationTimeLimit: .seconds(10),
                                      maximumTensorByteCount: 256 << 20, maximumTotalTensorByteCount: 1 << 30)
    var outcomes: [Outcome: Int] = [:]
    var random = SeededGenerator(seed: UInt64(ProcessInfo.processInfo.environment["MUTATION_SEED"] ?? "") ?? 0x7F1_17E)
    for (model, count) in [(TestModels.okayNabu, 8000), (TestModels.faceDetection, 3000), (TestModels.selfieSegmentation, 3000)] {
      let original = Array(try TestModels.data(model))
      for _ in 0..<count {
        let mutated = Self.mutate(original, using: &random)
        let started = ContinuousClock.now
        try? Data(mutated).write(to: URL(fileURLWithPath: "/tmp/lt/current_\(ProcessInfo.processInfo.environment["MUTATION_SEED"] ?? "x").tflite")); let outcome = Self.run(mutated, options: options)
        outcomes[outcome, default: 0] += 1
        #expect(ContinuousClock.now - started < .seconds(30), "one mutated \(model) took too long")
      }
    }
    //X
    // Both paths are exercised: many corruptions are caught, many models still run.
    #expect(outcomes[.failedToOpen, default: 0] > 30)
    #expect(outcomes[.ran, default: 0] > 30)
    let summary = Outcome.allCases.map { "\($0.rawValue) \(outcomes[$0, default: 0])" }.joined(separator: ", ")
    Issue.record(Comment(rawValue: "outcomes: \(summary)"), severity: .warning)
  }
}
