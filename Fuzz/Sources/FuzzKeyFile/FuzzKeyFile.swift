// api-keys.json → `APIKeyFile.records()` and `APIKeyAuthority`, which `hybrid serve` and the
// registry read at start and re-read whenever the file changes (a file `hybrid keys` writes, but
// that people edit and copy around). The input is written to one file per process (reused).
//
// Properties: the authority has a key file problem exactly when the file does not read; a file
// that reads makes keys required.
import Foundation
import FuzzDriver
import HybridAIServing
import Logging

@_cdecl("FuzzKeyFile_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

/// The authority logs every file it reads or refuses: silenced, once.
private let quietLogging: Void = LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }

private let keyFile = APIKeyFile(url: URL(fileURLWithPath: NSTemporaryDirectory())
  .appendingPathComponent("hybridai-fuzz-keys-\(ProcessInfo.processInfo.processIdentifier).json"))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  _ = quietLogging
  let data = Data(UnsafeRawBufferPointer(start: start, count: count))
  guard (try? data.write(to: keyFile.url)) != nil else { return 0 }

  let records: [APIKeyRecord]?
  do {
    records = try keyFile.records()
  } catch {
    _ = error.description
    records = nil
  }
  let authority = APIKeyAuthority(keyFile: keyFile)
  let problem = authority.keyFileProblem
  if let records {
    precondition(problem == nil, "the file reads, yet the authority reports: \(problem ?? "")")
    precondition(authority.isRequired, "a key file that reads does not make keys required")
    for record in records {
      _ = record.isRevoked
      _ = APIKeyFile.identifier(inKey: APIKeyFile.keyPrefix + record.id + "_secret")
    }
  } else {
    precondition(problem != nil, "the file does not read, yet the authority reports no problem")
  }
  for scope in APIKeyScope.allCases { _ = authority.hasActiveKey(withScope: scope) }
  _ = APIKeyFile.identifier(inKey: String(decoding: data.prefix(128), as: UTF8.self))
  return 0
}
