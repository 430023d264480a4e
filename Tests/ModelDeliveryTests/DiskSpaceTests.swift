import Foundation
import ModelDelivery
import Testing

/// Too little disk: the probe's answer, and real write failures (`ENOSPC`, `EFBIG`), all end in
/// `notEnoughSpace` with the previous version untouched.
@Suite struct DiskSpaceTests {
  /// Installs version 1 (100 kB), publishes a 4 MiB version 2; returns version 1.
  static func installVersionOne(_ environment: FaultyEnvironment) async throws -> CustomModel {
    await environment.server.publish("m", data: TestSupport.bytes(100_000, seed: 61))
    let v1 = try await environment.downloader().getModel(name: "m", downloadType: .latestModel)
    await environment.server.publish("m", data: TestSupport.bytes(4 << 20, seed: 62))
    return v1
  }

  static func expectIntact(_ v1: CustomModel, in environment: FaultyEnvironment) async throws {
    #expect(try Data(contentsOf: URL(fileURLWithPath: v1.path)) == TestSupport.bytes(100_000, seed: 61))
    #expect(try await environment.downloader().getModel(name: "m", downloadType: .localModel) == v1)
  }

  @Test func theProbeSaysTooLittleSpaceBeforeAnyByteIsFetched() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let v1 = try await Self.installVersionOne(environment)
    let downloader = environment.downloader(diskSpaceProbe: FixedDiskSpaceProbe(bytes: 1_000_000))

    await #expect(throws: ModelDownloadError.notEnoughSpace(required: 4 << 20, available: 1_000_000)) {
      try await downloader.getModel(name: "m", downloadType: .latestModel)
    }
    #expect(environment.server.stats.blobRequests == 1)   // version 1's only
    try await Self.expectIntact(v1, in: environment)
  }

  @Test func aResumedPartNeedsOnlyTheRest() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let size = 4 << 20
    await environment.server.publish("m", data: TestSupport.bytes(size, seed: 63))
    environment.server.configure { $0.stallOffset = 3 << 20 }
    let first = environment.downloader()
    let task = Task { try await first.getModel(name: "m", downloadType: .latestModel) }
    #expect(await TestSupport.eventually { TestSupport.bytesOnDevice("m", first) >= 3 << 20 })
    task.cancel()
    _ = try? await task.value
    #expect(await TestSupport.waitUntilUnlocked(environment.modelsDirectory.appendingPathComponent("m")))
    let part = environment.modelsDirectory.appendingPathComponent("m/download.part").path
    let partSize = try #require(try FileManager.default.attributesOfItem(atPath: part)[.size] as? Int)
    #expect(partSize == 3 << 20)
    environment.server.configure { $0.stallOffset = nil }

    // Less than the file but more than what is left: fine.
    let model = try await environment.downloader(diskSpaceProbe: FixedDiskSpaceProbe(bytes: Int64(size - partSize)))
      .getModel(name: "m", downloadType: .latestModel)
    #expect(model.size == Int64(size))
  }

  /// `ENOSPC` from the kernel: the part file is a link to `/dev/full` (its sidecar names the blob,
  /// so the downloader resumes into it), and every write fails as on a full disk.
  @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/full")))
  func aFullDiskIsNotEnoughSpaceAndThePreviousVersionStays() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let v1 = try await Self.installVersionOne(environment)
    let newData = TestSupport.bytes(4 << 20, seed: 62)
    let newSHA = await TestSHA256.hex(newData)
    let directory = environment.modelsDirectory.appendingPathComponent("m")
    try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("download.part").path,
                                               withDestinationPath: "/dev/full")
    try Data(#"{"sha256": "\#(newSHA)", "sizeBytes": \#(newData.count), "version": "2"}"#.utf8)
      .write(to: directory.appendingPathComponent("download.part.json"))
    // No free-space figure, so nothing is refused up front: the failure comes from the write.
    let downloader = environment.downloader(diskSpaceProbe: FixedDiskSpaceProbe(bytes: nil))

    await #expect(throws: ModelDownloadError.notEnoughSpace(required: Int64(newData.count), available: 0)) {
      try await downloader.getModel(name: "m", downloadType: .latestModel)
    }

    try await Self.expectIntact(v1, in: environment)
    #expect(downloader.modelFile(named: "m").fileState == .ready(path: v1.path, version: "1"))
  }
}
