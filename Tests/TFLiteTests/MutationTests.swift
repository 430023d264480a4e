import Foundation
import HybridAITestSupport
import Testing
import TFLite

/// Hundreds of randomly corrupted copies of real models, opened, allocated and run in this very
/// process: every one must end in success or an ``InterpreterError`` — no crash, no hang.
@Suite("TFLite corrupted models")
struct MutationTests {
  enum Outcome: String, CaseIterable { case ran, failedToOpen, failedToAllocate, failedToRun }

  /// A copy of `original` with a few bytes changed, a 32-bit word replaced by a value that tends
  /// to break offsets, sizes and indices, or the tail cut off.
  static func mutate(_ original: [UInt8], using random: inout SeededRandom) -> [UInt8] {
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

  /// How many mutations, and of which models: 300 by default (200 of okay_nabu, 100 of face
  /// detection); `HYBRIDAI_TFLITE_MUTATIONS=N` runs N (two thirds okay_nabu, a sixth each face
  /// detection and selfie segmentation) for a longer stress run, `HYBRIDAI_TFLITE_MUTATION_SEED`
  /// picks another seed, and `HYBRIDAI_TFLITE_MUTATION_DUMP=FILE` writes each mutated copy there
  /// before it runs, so the one that brought a process down can be examined.
  static var plan: (seed: UInt64, counts: [(String, Int)], dump: String?) {
    let environment = ProcessInfo.processInfo.environment
    let seed = environment["HYBRIDAI_TFLITE_MUTATION_SEED"].flatMap { UInt64($0) } ?? 0x7F1_17E
    let dump = environment["HYBRIDAI_TFLITE_MUTATION_DUMP"]
    guard let total = environment["HYBRIDAI_TFLITE_MUTATIONS"].flatMap({ Int($0) }), total > 0 else {
      return (seed, [(TestModels.okayNabu, 200), (TestModels.faceDetection, 100)], dump)
    }
    let nabu = total * 2 / 3
    let face = (total - nabu) / 2
    return (seed, [(TestModels.okayNabu, nabu), (TestModels.faceDetection, face),
                   (TestModels.selfieSegmentation, total - nabu - face)], dump)
  }

  @Test("300 seeded mutations of okay_nabu and face detection: opened, allocated and run in process",
        .timeLimit(.minutes(10)))
  func mutatedModels() throws {
    let plan = Self.plan
    let options = Interpreter.Options(invocationTimeLimit: .seconds(10),
                                      maximumTensorByteCount: 256 << 20, maximumTotalTensorByteCount: 1 << 30)
    var outcomes: [Outcome: Int] = [:]
    var random = SeededRandom(seed: plan.seed)
    for (model, count) in plan.counts {
      let original = Array(try TestModels.data(model))
      for _ in 0..<count {
        let mutated = Self.mutate(original, using: &random)
        if let dump = plan.dump { try Data(mutated).write(to: URL(fileURLWithPath: dump)) }
        // Hangs are bounded by the interpreter's own invocation time limit (a typed timeout) and by
        // the test's time limit; no timing is asserted.
        let outcome = Self.run(mutated, options: options)
        outcomes[outcome, default: 0] += 1
      }
    }
    let total = plan.counts.reduce(0) { $0 + $1.1 }
    #expect(outcomes.values.reduce(0, +) == total)
    // Both paths are exercised: many corruptions are caught, many models still run.
    #expect(outcomes[.failedToOpen, default: 0] > total / 10)
    #expect(outcomes[.ran, default: 0] > total / 10)
    let summary = Outcome.allCases.map { "\($0.rawValue) \(outcomes[$0, default: 0])" }.joined(separator: ", ")
    Issue.record(Comment(rawValue: "seed \(plan.seed), outcomes: \(summary)"), severity: .warning)
  }
}
