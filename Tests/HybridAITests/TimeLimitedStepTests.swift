import HybridAITestSupport
import Testing

/// The test helper that turns a wait that never ends into a failure naming its step.
struct TimeLimitedStepTests {
  @Test("a step within its limit gives its value; one past it throws StepTimedOut naming the step, at the limit")
  func limits() async throws {
    #expect(try await timeLimitedStep("quick", within: .seconds(60)) { 42 } == 42)
    await #expect(throws: CancellationError.self) {
      try await timeLimitedStep("throws", within: .seconds(60)) { throw CancellationError() }
    }
    let clock = ContinuousClock()
    let started = clock.now
    do {
      try await timeLimitedStep("never ends", within: .milliseconds(200)) {
        try await Task.sleep(for: .seconds(3600))
      }
      Issue.record("a step that never ends returned")
    } catch let error as StepTimedOut {
      #expect(error.step == "never ends" && error.limit == .milliseconds(200))
      #expect("\(error)" == "the step \"never ends\" did not finish within 0.2 seconds")
    }
    #expect(clock.now - started < .seconds(3000), "the caller was not held by the step's work")
  }
}
