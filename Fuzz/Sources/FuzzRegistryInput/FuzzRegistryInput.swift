// Text → the model registry's identifier rules (`RegistryIdentifiers`: model names, versions,
// SHA-256 blob ids, installation ids), which stand between request paths and database queries,
// file names and URLs on both sides; `ModelReference` (`hf:`, `ollama:`, `registry:` or a path:
// what `--model` and `hybrid pull` take); `ModelFormat.sniff`; and the registry's JSON records as
// ModelDownloader reads them (`ModelDownloadInfo`, `RegistryModel`, `RegistryModelList`).
//
// Properties: a valid version prints back as written; `RegistryIdentifiers.isValidSHA256` and
// `BlobDigest.isValid` agree; a valid model name makes a `registry:` reference to itself; a
// reference's description reads back as the same reference.
import Foundation
import FuzzDriver
import HybridAI
import HybridAIFileStorage
import HybridAIWire
import ModelDelivery

@_cdecl("FuzzRegistryInput_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let bytes = UnsafeRawBufferPointer(start: start, count: count)
  let text = String(decoding: bytes, as: UTF8.self)

  if let version = RegistryIdentifiers.version(from: text) {
    precondition(String(version) == text, "version \(text) reads as \(version)")
  }
  precondition(RegistryIdentifiers.isValidSHA256(text) == BlobDigest.isValid(text),
               "the registry and the blob store disagree on \(text.debugDescription)")
  precondition((BlobDigest(hex: text) != nil) == BlobDigest.isValid(text), "BlobDigest(hex:) disagrees with isValid")
  _ = RegistryIdentifiers.isValidInstallationId(text)
  if RegistryIdentifiers.isValidModelName(text) {
    do {
      let reference = try ModelReference("registry:" + text)
      precondition(reference == .registry(name: text), "registry:\(text) reads as \(reference)")
    } catch {
      fatalError("a valid model name makes no registry reference: \(text.debugDescription): \(error)")
    }
  }

  if let reference = try? ModelReference(text) {
    _ = reference.isFetchedWhenMissing
    // Paths come from command lines, which hold no NUL.
    if !text.utf8.contains(0) { _ = reference.shortName }
    do {
      let reread = try ModelReference(reference.description)
      precondition(reread == reference, "\(text.debugDescription) → \(reference.description.debugDescription) → \(reread)")
    } catch {
      fatalError("the description of \(text.debugDescription) does not read back: \(reference.description.debugDescription): \(error)")
    }
  }

  _ = ModelFormat.sniff(bytes)
  let data = Data(bytes)
  let decoder = JSONDecoder()
  if let info = try? decoder.decode(ModelDownloadInfo.self, from: data) {
    _ = RegistryIdentifiers.isValidModelName(info.name)
    _ = RegistryIdentifiers.version(from: info.version)
    _ = RegistryIdentifiers.isValidSHA256(info.sha256)
    _ = info.format.flatMap(ModelFormat.init(rawValue:))
  }
  if let model = try? decoder.decode(RegistryModel.self, from: data) {
    for version in model.versions { _ = version.isPublished }
  }
  _ = try? decoder.decode(RegistryModelList.self, from: data)
  return 0
}
