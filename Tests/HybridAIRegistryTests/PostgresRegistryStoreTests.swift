import Foundation
import HybridAIServerTestSupport
import HybridAIServing
import HybridAITestSupport
import Logging
import NIOCore
import PostgresNIO
import Testing
@testable import HybridAIRegistry

/// ``PostgresRegistryStore`` against a real PostgreSQL server (``TemporaryPostgres``): migrations,
/// concurrent writers, a server that restarts or is not there, registries sharing one database.
/// The rules both stores keep are ``RegistryStorageTests/storeRules(_:)``.
@Suite("PostgreSQL registry store")
struct PostgresRegistryStoreTests {
  static let logger = TestLogging.logger("registry.postgres")
  static let now = Date(timeIntervalSince1970: 1_800_000_000)
  static let sha = String(repeating: "cd", count: 32)

  @Test("a database at schema version 1 is upgraded by the migrations added since; a newer schema is refused")
  func migrationsFromVersion1() async throws {
    let postgres = try await TemporaryPostgres.shared()
    let database = try await postgres.createDatabase("migrations")
    let configuration = postgres.configuration(database: database)
    // What a version-1 build left behind: its schema and a model with a version.
    try await PostgresRegistryStore.withConnection(configuration, logger: Self.logger) { connection in
      #expect(try await PostgresRegistrySchema.migrate(connection, migrations: [PostgresRegistrySchema.version1],
                                                       logger: Self.logger) == [1])
      try await connection.query(
        "INSERT INTO model (name, description, tags, create_time, last_version_number) VALUES ('old', 'from v1', '{a}', \(Self.now), 1)",
        logger: Self.logger)
      try await connection.query("""
        INSERT INTO model_version (model_name, number, sha256, size_bytes, format, state, create_time)
        VALUES ('old', 1, \(Self.sha), 42, 'gguf', 'published', \(Self.now))
        """, logger: Self.logger)
    }
    // Today's build adds what came after version 1 (the shared rate limits), keeping the data.
    let today = try await PostgresRegistryStore(configuration: configuration, logger: Self.logger)
    #expect(try await today.model(named: "old")?.versions.map(\.number) == [1])
    #expect(try await today.take(0, from: "fresh", perMinute: 5, ifAtLeast: nil) == 5, "the rate-limit table is there")
    await today.shutdown()
    let newest = PostgresRegistrySchema.migrations.count
    #expect(newest == 2)

    // A later build with one more migration upgrades it in place, keeping the data.
    let later = PostgresMigration(version: newest + 1, name: "model notes", statements: [
      "ALTER TABLE model ADD COLUMN note text NOT NULL DEFAULT ''",
    ])
    let upgraded = try await PostgresRegistryStore(
      configuration: configuration, migrations: PostgresRegistrySchema.migrations + [later], logger: Self.logger)
    let old = try #require(try await upgraded.model(named: "old"))
    #expect(old.description == "from v1" && old.tags == ["a"] && old.createTime == Self.now)
    #expect(old.versions == [.init(number: 1, sha256: Self.sha, sizeBytes: 42, format: .gguf, state: .published, createTime: Self.now)])
    #expect(try await upgraded.addVersion(toModel: "old", sha256: Self.sha, sizeBytes: 1, format: .other, createTime: Self.now).number == 2)
    await upgraded.shutdown()
    let applied = try await PostgresRegistryStore.withConnection(configuration, logger: Self.logger) { connection in
      try await PostgresRegistrySchema.appliedVersions(connection, logger: Self.logger)
    }
    #expect(applied == Array(1...newest + 1))

    // Today's build refuses the later build's database instead of misreading it.
    await #expect(throws: RegistryStoreError.unsupportedSchemaVersion(found: newest + 1, newestKnown: newest)) {
      _ = try await PostgresRegistryStore(configuration: configuration, logger: Self.logger)
    }
  }

  @Test("two stores (two processes' worth of connections) adding 20 versions at once get 1…20, each once")
  func concurrentPublishes() async throws {
    // Each step has a time limit, so that a wait that never ends names its step (under
    // AddressSanitizer, beside the whole suite, this test has been seen to wait with no query in flight).
    let postgres = try await timeLimitedStep("start PostgreSQL") { try await TemporaryPostgres.shared() }
    let configuration = try await timeLimitedStep("create the database") {
      postgres.configuration(database: try await postgres.createDatabase("concurrent"))
    }
    let first = try await timeLimitedStep("open the first store") {
      try await PostgresRegistryStore(configuration: configuration, logger: Self.logger)
    }
    let second = try await timeLimitedStep("open the second store") {
      try await PostgresRegistryStore(configuration: configuration, logger: Self.logger)
    }

    // Both create the same model at once: exactly one succeeds.
    let creations = try await timeLimitedStep("create one model from both stores") {
      await withTaskGroup(of: Bool.self) { group in
        for store in [first, second] {
          group.addTask {
            (try? await store.createModel(ModelRecord(name: "m", description: "", tags: [], createTime: Self.now))) != nil
          }
        }
        return await group.reduce(into: [Bool]()) { $0.append($1) }
      }
    }
    #expect(creations.filter { $0 }.count == 1 && creations.count == 2)

    let numbers = try await timeLimitedStep("add and publish 20 versions") {
      try await withThrowingTaskGroup(of: Int.self) { group in
        for index in 0..<20 {
          let store = index.isMultiple(of: 2) ? first : second
          group.addTask {
            let version = try await store.addVersion(toModel: "m", sha256: Self.sha, sizeBytes: Int64(index), format: .tflite,
                                                     createTime: Self.now)
            _ = try await store.setState(.published, ofVersion: version.number, inModel: "m")
            return version.number
          }
        }
        return try await group.reduce(into: [Int]()) { $0.append($1) }
      }
    }
    #expect(numbers.sorted() == Array(1...20))
    let model = try #require(try await timeLimitedStep("read the model") { try await second.model(named: "m") })
    #expect(model.versions.map(\.number) == Array(1...20))
    #expect(model.versions.allSatisfy { $0.state == .published })
    let sizes: Set<Int64> = Set((0..<20).map { (size: Int) -> Int64 in Int64(size) })
    #expect(Set(model.versions.map(\.sizeBytes)) == sizes)
    #expect(try await timeLimitedStep("read the model from the other store") { try await first.model(named: "m") } == model)
    #expect(try await timeLimitedStep("count the connections") { try await Self.connections(to: configuration.database, on: postgres) } > 0)
    try await timeLimitedStep("shut both stores down") {
      await first.shutdown()
      await second.shutdown()
      await first.shutdown()   // idempotent
    }
    let open = try await timeLimitedStep("wait for the connections to close") {
      var open = -1
      for _ in 0..<50 where open != 0 {   // backends end a moment after their client closes
        open = try await Self.connections(to: configuration.database, on: postgres)
        if open != 0 { try await Task.sleep(for: .milliseconds(20)) }
      }
      return open
    }
    #expect(open == 0, "shutdown closes every connection")
    await #expect(throws: RegistryStoreError.self) { try await first.models() }
  }

  /// How many sessions PostgreSQL has open to `database`.
  static func connections(to database: String, on postgres: TemporaryPostgres) async throws -> Int {
    let connection = try await PostgresConnection.connect(
      configuration: postgres.connectionConfiguration(database: "postgres"), id: 1, logger: logger)
    var count = 0
    for try await value in try await connection.query(
      "SELECT count(*)::int FROM pg_stat_activity WHERE datname = \(database)", logger: logger).decode(Int.self) {
      count = value
    }
    try await connection.close()
    return count
  }

  @Test("publishing, unpublishing and roll-outs racing from two stores never leave a roll-out naming a draft")
  func rolloutRaces() async throws {
    let postgres = try await TemporaryPostgres.shared()
    // 60 transactions take the model's row lock one after another: on a loaded machine (the whole
    // suite on 2 cores, or under AddressSanitizer) the last waits minutes, which is not what this tests.
    let configuration = postgres.configuration(database: try await postgres.createDatabase("races"), operationTimeout: .seconds(900))
    let stores = [try await PostgresRegistryStore(configuration: configuration, logger: Self.logger),
                  try await PostgresRegistryStore(configuration: configuration, logger: Self.logger)]
    try await stores[0].createModel(ModelRecord(name: "m", description: "", tags: [], createTime: Self.now))
    for number in 1...4 {
      _ = try await stores[0].addVersion(toModel: "m", sha256: Self.sha, sizeBytes: 1, format: .gguf, createTime: Self.now)
      _ = try await stores[1].setState(.published, ofVersion: number, inModel: "m")
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for step in 0..<60 {
        let store = stores[step % 2]
        let version = step % 4 + 1
        group.addTask {
          do {
            switch step % 3 {
            case 0:
              let other = version % 4 + 1
              _ = try await store.setRollout(ModelRecord.Rollout(splits: [.init(version: version, basisPoints: 5000),
                                                                          .init(version: other, basisPoints: 5000)]),
                                             ofModel: "m")
            case 1: _ = try await store.setState(.draft, ofVersion: version, inModel: "m")
            default: _ = try await store.setState(.published, ofVersion: version, inModel: "m")
            }
          } catch RegistryStoreError.versionNotPublished {
            // The roll-out lost the race to an unpublish: refused, as it must be.
          }
          let model = try #require(try await store.model(named: "m"))
          for split in model.rollout?.splits ?? [] {
            #expect(model.version(split.version)?.state == .published, "roll-out \(model.rollout as Any) names a draft")
          }
        }
      }
      try await group.waitForAll()
    }
    for store in stores { await store.shutdown() }
  }

  @Test("PostgreSQL restarting mid-run: calls throw unavailable, then the store reconnects with nothing lost")
  func serverRestart() async throws {
    let postgres = try await TemporaryPostgres.start()   // its own server: the shared one must stay up
    do {
      let store = try await PostgresRegistryStore(
        // Long enough for a loaded make test (2 s, then 10 s, were missed there by calls to a running
        // server); a stopped server refuses at once, so the stopped phase stays brief.
        configuration: postgres.configuration(database: try await postgres.createDatabase("restart"), operationTimeout: .seconds(30)),
        logger: Self.logger)
      try await store.createModel(ModelRecord(name: "kept", description: "before", tags: ["t"], createTime: Self.now))
      _ = try await store.addVersion(toModel: "kept", sha256: Self.sha, sizeBytes: 5, format: .gguf, createTime: Self.now)
      let before = try #require(try await store.model(named: "kept"))

      try await postgres.stopServer()
      let clock = ContinuousClock()
      let started = clock.now
      for call in ["read", "write"] {
        do {
          if call == "read" {
            _ = try await store.model(named: "kept")
          } else {
            _ = try await store.addVersion(toModel: "kept", sha256: Self.sha, sizeBytes: 6, format: .gguf, createTime: Self.now)
          }
          Issue.record("a \(call) succeeded with the server stopped")
        } catch let error as RegistryStoreError {
          guard case .unavailable(let reason) = error else {
            Issue.record("expected unavailable, got \(error)")
            continue
          }
          #expect(reason.contains("127.0.0.1:\(postgres.port)"), "\(reason)")
        }
      }
      print("with the server stopped, two calls gave up after \(clock.now - started) (operation timeout 30 s each)")
      #expect(await ModelRegistryProbe.status(of: store) == 503)

      try await postgres.startServer()
      var recovered: ModelRecord?
      let deadline = clock.now + .seconds(120)
      while recovered == nil, clock.now < deadline {
        recovered = try? await store.model(named: "kept")
        if recovered == nil { try await Task.sleep(for: .milliseconds(100)) }
      }
      #expect(recovered == before, "nothing lost")
      #expect(try await store.addVersion(toModel: "kept", sha256: Self.sha, sizeBytes: 6, format: .gguf,
                                         createTime: Self.now).number == 2)
      await store.shutdown()
    } catch {
      await postgres.remove()
      throw error
    }
    await postgres.remove()
  }

  @Test("an unreachable database at start is a typed error naming host:port, at once")
  func unreachableAtOpen() async throws {
    let (port, descriptor) = try Sockets.refusingPort()
    defer { Sockets.closeAll([descriptor]) }
    let clock = ContinuousClock()
    let started = clock.now
    do {
      _ = try await RegistryDatabase(url: "postgres://hybrid:secret@127.0.0.1:\(port)/registry?sslmode=disable").openStore()
      Issue.record("opened a store on a port nobody listens on")
    } catch RegistryStoreError.unavailable(let reason) {
      #expect(reason.contains("127.0.0.1:\(port)"), "\(reason)")
      #expect(!reason.contains("secret"))
    }
    // How long it took is printed, not asserted: a loaded machine must not fail the suite.
    print("unreachable PostgreSQL refused after \(clock.now - started)")
  }

  @Test("API key limits in the database: two stores (two instances) share each bucket; 40 requests at once against 5 a minute admit exactly 5; a charge made through one is a debt the other sees")
  func sharedRateLimits() async throws {
    let postgres = try await TemporaryPostgres.shared()
    var configuration = postgres.configuration(database: try await postgres.createDatabase("limits"))
    // A loaded machine may take seconds to open the pools' first connections: the 1 s default is
    // for requests that must not wait, not this test's subject.
    configuration.rateLimitTimeout = .seconds(60)
    let first = try await PostgresRegistryStore(configuration: configuration, logger: Self.logger)
    let second = try await PostgresRegistryStore(configuration: configuration, logger: Self.logger)

    // One unit comes back every 12 s. A loaded machine may take longer than that over these
    // requests: each unit refilled meanwhile may admit one more, and no more than that.
    let clock = ContinuousClock()
    let burstStarted = clock.now
    let outcomes = await withTaskGroup(of: String.self) { group in
      for index in 0..<40 {
        let store = index.isMultiple(of: 2) ? first : second
        group.addTask {
          do {
            return try await store.admit("requests:k", perMinute: 5) == nil ? "admitted" : "refused"
          } catch {
            return "\(error)"
          }
        }
      }
      return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
    }
    let refilled = Int((clock.now - burstStarted) / .seconds(12))
    let admitted = outcomes["admitted", default: 0]
    #expect((5...5 + refilled).contains(admitted) && admitted + outcomes["refused", default: 0] == 40,
            "\(outcomes) with \(refilled) unit(s) refilled")
    let wait = try await first.admit("requests:k", perMinute: 5)
    if refilled == 0 && clock.now - burstStarted < .seconds(12) {
      let wait = try #require(wait, "the sixth request within 12 s was admitted")
      #expect(wait > .zero && wait <= .seconds(12), "\(wait)")
    } else {
      print("the requests took \(clock.now - burstStarted): the refill check was skipped")
    }
    #expect(try await second.admit("requests:other", perMinute: 5) == nil, "each bucket is its own")

    // Tokens: 60 a minute, 90 charged through one → the other sees 30 in debt (half a minute).
    #expect(try await second.waitUntilPositive("tokens:k", perMinute: 60) == nil)
    #expect(try await second.level(of: "tokens:k", perMinute: 60) == 60, "a bucket never charged is full (reading made no row)")
    let charged = clock.now
    try await first.charge("tokens:k", perMinute: 60, amount: 90)
    let debt = try #require(try await second.waitUntilPositive("tokens:k", perMinute: 60))
    // 30 units in debt at one a second: 30 s, less the seconds that passed since the charge.
    #expect(debt > .seconds(30) - (clock.now - charged) - .seconds(1) && debt <= .seconds(30), "\(debt)")

    // A request and its token check in one statement: the debt is seen and no unit is taken for a
    // request it refuses; a token bucket never charged reads full and lets the unit be taken.
    let both = try await second.admit("requests:both", perMinute: 2, whileTokensIn: "tokens:k", perMinute: 60)
    #expect(both.request == nil)
    let combinedDebt = try #require(both.tokens)
    // The same debt, a little later (loose below: a loaded machine may take seconds between calls).
    #expect(combinedDebt > .seconds(10) && combinedDebt <= .seconds(30), "\(combinedDebt)")
    #expect(try await first.level(of: "requests:both", perMinute: 2) == 2, "refused for its tokens: its request unit is left")
    #expect(try await first.admit("requests:both", perMinute: 2, whileTokensIn: "tokens:new", perMinute: 60) == (nil, nil))
    #expect(try await second.admit("requests:both", perMinute: 2, whileTokensIn: "tokens:new", perMinute: 60) == (nil, nil))
    let third = try await second.admit("requests:both", perMinute: 2, whileTokensIn: "tokens:new", perMinute: 60)
    #expect(third.request != nil && third.tokens == nil, "the third request of two a minute is refused by the request limit alone")
    #expect(try await first.level(of: "tokens:new", perMinute: 60) == 60, "reading the token bucket made no row")

    await second.shutdown()
    await #expect(throws: RegistryStoreError.self, "a closed store throws; the key authority then counts by itself") {
      _ = try await second.admit("requests:k", perMinute: 5)
    }
    await first.shutdown()
  }

  @Test("registries sharing one database see each other's changes at once; a closed store answers 503")
  func sharedRegistries() async throws {
    let postgres = try await TemporaryPostgres.shared()
    let url = postgres.url(database: try await postgres.createDatabase("shared"))
    try await TemporaryDirectory.with("shared-registry") { directory in
      let configuration = RegistryConfiguration(dataDirectory: directory.url)
      let storeA = try await RegistryDatabase(url: url).openStore(logger: Self.logger)
      let storeB = try await RegistryDatabase(url: url).openStore(logger: Self.logger)
      #expect(storeA.isShared && storeB.isShared)
      let a = try ModelRegistry(configuration: configuration, store: storeA, logger: Self.logger)
      let b = try ModelRegistry(configuration: configuration, store: storeB, logger: Self.logger)

      _ = try await b.models()   // a snapshot would be taken here; a shared store keeps none
      _ = try await a.createModel(named: "m", description: "from a", tags: [])
      #expect(try await b.model(named: "m").description == "from a")
      #expect(try await b.models().map(\.name) == ["m"])
      let version = try await b.addVersion(toModel: "m", body: [ByteBuffer(bytes: RegistryFixtures.tflite)].async,
                                           declaredLength: Int64(RegistryFixtures.tflite.count))
      _ = try await b.setState(.published, ofVersion: version.number, inModel: "m")
      #expect(try await a.model(named: "m").newestPublishedVersion?.number == version.number)
      try await a.deleteModel(named: "m")
      await #expect(throws: GoogleAPIError.self) { try await b.model(named: "m") }

      await storeB.shutdown()
      do {
        _ = try await b.models()
        Issue.record("a shut-down store answered")
      } catch let error as GoogleAPIError {
        #expect(error.status == .serviceUnavailable)
        #expect(error.headers[.retryAfter] == "1")
      }
      #expect(await b.readinessProblem() != nil)
      // The other registry stays ready. Its check gives the store 2 s, which a suite keeping both
      // cores busy has been seen to exceed once: a few tries tell "slow" from "not ready".
      var problem = await a.readinessProblem()
      for _ in 0..<5 where problem != nil {
        try await Task.sleep(for: .milliseconds(500))
        problem = await a.readinessProblem()
      }
      #expect(problem == nil, "\(problem ?? "")")
      await storeA.shutdown()
    }
  }
}

/// What the registry's API answers when the store is unavailable.
enum ModelRegistryProbe {
  /// The HTTP status a read through a ``ModelRegistry`` on `store` gets (200 when it succeeds).
  static func status(of store: any RegistryStore) async -> Int {
    guard let directory = try? TemporaryDirectory("probe") else { return -1 }
    defer { directory.remove() }
    guard let registry = try? ModelRegistry(configuration: RegistryConfiguration(dataDirectory: directory.url), store: store,
                                            logger: TestLogging.logger("registry.probe")) else { return -1 }
    do {
      _ = try await registry.models()
      return 200
    } catch let error as GoogleAPIError {
      return Int(error.status.code)
    } catch {
      return -1
    }
  }
}
