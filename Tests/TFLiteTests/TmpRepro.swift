import Foundation
import Testing
import TFLite

@Test func tmpRepro() throws {
  let path = ProcessInfo.processInfo.environment["REPRO"] ?? "/tmp/lt/abort1.tflite"
  let options = Interpreter.Options(invocationTimeLimit: .seconds(10), maximumTensorByteCount: 256 << 20, maximumTotalTensorByteCount: 1 << 30)
  FileHandle.standardError.write("open\n".data(using: .utf8)!)
  let i = try Interpreter(modelPath: path, options: options)
  FileHandle.standardError.write("allocate\n".data(using: .utf8)!)
  try i.allocateTensors()
  FileHandle.standardError.write("invoke\n".data(using: .utf8)!)
  try i.invoke()
  FileHandle.standardError.write("done\n".data(using: .utf8)!)
}
