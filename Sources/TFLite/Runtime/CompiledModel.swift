import CLiteRT
import Foundation

/// A `LiteRtCompiledModel` on the CPU: the model prepared for running (operators resolved,
/// XNNPACK delegate applied, tensors allocated), with its options and invoke deadline.
final class CompiledModel {
  let loaded: LoadedModel
  let handle: LiteRtCompiledModel
  /// Kept for the compiled model's lifetime (LiteRT may refer to them).
  private let options: LiteRtOptions
  /// Polled by the runtime between operations (see `HybridLiteRtDeadlinePassed`).
  private let deadline: UnsafeMutablePointer<HybridLiteRtDeadline>
  /// The ``SignatureIO`` whose input buffers the interpreter's input tensors point at, after its
  /// last run succeeded with nothing in between; 0 for none (see `run`).
  private var registeredInputs = 0
  /// ``SignatureIO/identifier``s handed out so far.
  private var ioCount = 0

  var api: HybridLiteRtApi { loaded.api }

  init(loaded: LoadedModel, options interpreterOptions: Interpreter.Options) throws(InterpreterError) {
    self.loaded = loaded
    let api = loaded.api
    var options: LiteRtOptions?
    guard api.LiteRtCreateOptions(&options) == 0, let options else {
      throw .failedToCreateInterpreter(reason: "cannot create compilation options")
    }
    var status = api.LiteRtSetOptionsHardwareAccelerators(options, Int32(kHybridLiteRtHwAcceleratorCpu))
    if status == 0, let threads = interpreterOptions.threadCount {
      // The CPU (XNNPACK) options travel as an opaque payload: a NUL-terminated TOML string that
      // LiteRT parses and the destructor frees.
      let payload = strdup("num_threads = \(threads)\n")
      var opaque: LiteRtOpaqueOptions?
      status = api.LiteRtCreateOpaqueOptions("xnnpack", payload, { free($0) }, &opaque)
      if status == 0, let opaque {
        status = api.LiteRtAddOpaqueOptions(options, opaque)
        if status != 0 { api.LiteRtDestroyOpaqueOptions(opaque) }
      } else {
        free(payload)
      }
    }
    guard status == 0 else {
      api.LiteRtDestroyOptions(options)
      throw .failedToCreateInterpreter(reason: "cannot set CPU options: \(LiteRTStatus.describe(status))")
    }

    var compiled: LiteRtCompiledModel?
    status = api.LiteRtCreateCompiledModel(loaded.environment, loaded.model, options, &compiled)
    guard status == 0, let compiled else {
      api.LiteRtDestroyOptions(options)
      throw .failedToCreateInterpreter(reason: LiteRTStatus.describe(status))
    }
    self.handle = compiled
    self.options = options
    deadline = .allocate(capacity: 1)
    deadline.initialize(to: HybridLiteRtDeadline(deadline_ns: 0, expired: false))
    // The runtime polls the function between operations: only pay for it when a limit is set
    // (on okay_nabu, ~6 µs an invoke, it is measurable).
    if interpreterOptions.invocationTimeLimit != nil {
      _ = api.LiteRtSetCompiledModelCancellationFunction(compiled, deadline, HybridLiteRtDeadlinePassed)
    }
  }

  deinit {
    api.LiteRtDestroyCompiledModel(handle)
    api.LiteRtDestroyOptions(options)
    deadline.deinitialize(count: 1)
    deadline.deallocate()
  }

  /// Changes the shape of input `position` of `signature` (any shape the runtime accepts, as
  /// TFLite's non-strict resize: not only dynamic dimensions).
  func resizeInput(signature: Int, position: Int, to shape: Tensor.Shape) throws(InterpreterError) {
    registeredInputs = 0
    let dimensions = shape.dimensions.map { Int32(clamping: $0) }
    let status = dimensions.withUnsafeBufferPointer {
      api.LiteRtCompiledModelResizeInputTensorNonStrict(handle, signature, position, $0.baseAddress, $0.count)
    }
    guard status == 0 else {
      throw .invalidShape(reason: "the runtime cannot resize input \(position) to \(shape): \(LiteRTStatus.describe(status))")
    }
  }

  /// The current shape of input `position` of `signature`.
  func inputShape(signature: Int, position: Int) throws(InterpreterError) -> Tensor.Shape {
    var layout = LiteRtLayout()
    let status = api.LiteRtGetCompiledModelInputTensorLayout(handle, signature, position, &layout)
    guard status == 0 else {
      throw .failedToAllocateTensors(reason: "cannot read the shape of input \(position): \(LiteRTStatus.describe(status))")
    }
    return LiteRTLayout.shape(of: layout)
  }

  /// The current shapes of the outputs of `signature`; `allocate` makes the runtime (re)allocate
  /// its tensors first, as after a resize.
  func outputShapes(signature: Int, count: Int, allocate: Bool) throws(InterpreterError) -> [Tensor.Shape] {
    guard count > 0 else { return [] }
    var layouts = [LiteRtLayout](repeating: LiteRtLayout(), count: count)
    let status = layouts.withUnsafeMutableBufferPointer {
      api.LiteRtGetCompiledModelOutputTensorLayouts(handle, signature, $0.count, $0.baseAddress, allocate)
    }
    guard status == 0 else {
      throw .failedToAllocateTensors(reason: "cannot allocate the outputs: \(LiteRTStatus.describe(status))")
    }
    return layouts.map(LiteRTLayout.shape(of:))
  }

  /// The size of the buffer the runtime wants for input or output `position` of `signature`.
  func bufferSize(signature: Int, position: Int, isInput: Bool) throws(InterpreterError) -> Int {
    var requirements: LiteRtTensorBufferRequirements?
    var status = isInput
      ? api.LiteRtGetCompiledModelInputBufferRequirements(handle, signature, position, &requirements)
      : api.LiteRtGetCompiledModelOutputBufferRequirements(handle, signature, position, &requirements)
    var size = 0
    if status == 0, let requirements {
      status = api.LiteRtGetTensorBufferRequirementsBufferSize(requirements, &size)
    }
    guard status == 0 else {
      throw .failedToAllocateTensors(
        reason: "cannot size the buffer of \(isInput ? "input" : "output") \(position): \(LiteRTStatus.describe(status))")
    }
    return size
  }

  /// Runs `signature` on `io`'s buffers, within `timeLimit` if given.
  ///
  /// `LiteRtRunCompiledModel` registers every buffer it is given with the interpreter on every
  /// run (locks it, points the tensor's custom allocation at it — about 2,000 instructions a
  /// buffer in the pinned build, a third of okay_nabu's overhead over the bare TFLite invoke). A
  /// null input handle tells it to skip that: the tensor keeps the memory registered last time.
  /// So an input is registered once, on the first run of a ``SignatureIO``, and passed as null
  /// while the same `SignatureIO` runs again with nothing in between: another `SignatureIO` (a
  /// signature, or new buffers after a resize or re-allocation), a failed or cancelled run, or a
  /// resize registers afresh. The data is read from the registered memory in place, so inputs
  /// copied there between runs are seen. Outputs cannot be skipped (the runtime reads each
  /// output handle).
  func run(signature: Int, io: SignatureIO, timeLimit: Duration?) throws(InterpreterError) {
    let inputs = registeredInputs == io.identifier ? io.unchangedInputHandles : io.inputHandles
    registeredInputs = 0
    guard let timeLimit else {
      // No cancellation callback was registered (see init): no deadline to keep.
      let status = api.LiteRtRunCompiledModel(handle, signature, inputs.count, inputs.baseAddress,
                                              io.outputHandles.count, io.outputHandles.baseAddress)
      guard status == 0 else { throw .invocationFailed(reason: LiteRTStatus.describe(status)) }
      registeredInputs = io.identifier
      return
    }
    let (seconds, attoseconds) = timeLimit.components
    let nanoseconds = UInt64(clamping: seconds) &* 1_000_000_000 &+ UInt64(clamping: attoseconds / 1_000_000_000)
    deadline.pointee = HybridLiteRtDeadline(deadline_ns: HybridLiteRtMonotonicNanoseconds() &+ nanoseconds, expired: false)
    let status = api.LiteRtRunCompiledModel(handle, signature, inputs.count, inputs.baseAddress,
                                            io.outputHandles.count, io.outputHandles.baseAddress)
    let expired = deadline.pointee.expired
    deadline.pointee = HybridLiteRtDeadline(deadline_ns: 0, expired: false)
    guard status == 0 else {
      if expired { throw .invocationTimedOut(limit: timeLimit) }
      throw .invocationFailed(reason: LiteRTStatus.describe(status))
    }
    registeredInputs = io.identifier
  }

  /// A new ``SignatureIO/identifier``.
  func makeIOIdentifier() -> Int {
    ioCount += 1
    return ioCount
  }
}
