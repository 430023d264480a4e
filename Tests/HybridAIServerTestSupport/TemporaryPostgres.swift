#if canImport(Glibc)
import Foundation
import Glibc
import HybridAIProcess
import HybridAIRegistry
import HybridAITestSupport
import Logging
import PostgresNIO
import Synchronization
#endif

/// A PostgreSQL server of the tests' own: a cluster made by `initdb` in a temporary directory,
/// served by `postgres` on a free loopback port (its Unix socket in that directory too), trusting
/// every local connection as ``username``. Debian's `postgresql` package provides the programs
/// (scripts/bootstrap installs it); without them ``start()`` and ``shared()`` throw
/// ``Unavailable`` — a failure, not a skip.
///
/// ```swift
/// let postgres = try await TemporaryPostgres.shared()            // one server for the whole test run
/// let database = try await postgres.createDatabase()             // a fresh database per test
/// let store = try await PostgresRegistryStore(configuration: postgres.configuration(database: database))
/// ```
///
/// Running as root (CI, containers), the programs run as `nobody` (`initdb` refuses root) through
/// `setpriv`, with the directory given to that user. The server runs under a small shell that
/// stops it (SIGINT: a fast shutdown, as `pg_ctl stop -m fast`) and removes the directory when its
/// standard input ends — when ``remove()`` closes it, or when the test process exits in any way,
/// so no server outlives the tests.
public final class TemporaryPostgres: Sendable {
  /// The role every test connects as (a superuser, no password).
  public static let username = "hybrid"
  /// The server's address.
  public let host = "127.0.0.1"
  /// The server's TCP port.
  public let port: Int
  /// The cluster (`data/`), the socket directory (`socket/`) and the server's log (`server.log`).
  public let directory: URL
  /// How long `initdb` and the first start took.
  public let startupTime: Duration

  private let programs: Programs
  private let watchdog: Mutex<RunningChildProcess?>

  private init(port: Int, directory: URL, startupTime: Duration, programs: Programs, watchdog: RunningChildProcess) {
    self.port = port
    self.directory = directory
    self.startupTime = startupTime
    self.programs = programs
    self.watchdog = Mutex(watchdog)
  }

  /// Why there is no server: the programs are missing, or the server would not start.
  public struct Unavailable: Error, CustomStringConvertible {
    public let description: String
  }

  // MARK: - Starting

  private static let sharedServer = Task { try await TemporaryPostgres.start() }

  /// The server the whole test run shares, started on first use. Give each test its own database
  /// (``createDatabase(_:)``); never stop this one.
  public static func shared() async throws -> TemporaryPostgres {
    try await sharedServer.value
  }

  /// A server of the caller's own (a test that stops and restarts it); ``remove()`` it at the end.
  public static func start() async throws -> TemporaryPostgres {
    let clock = ContinuousClock()
    let started = clock.now
    let programs = try Programs.locate()
    // As root, under /tmp whatever $TMPDIR says: nobody must reach it, and a socket path has at most 107 bytes.
    let base = programs.runAs == nil ? FileManager.default.temporaryDirectory : URL(filePath: "/tmp")
    let directory = base.appendingPathComponent("hybridai-postgres-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory.appending(path: "socket"), withIntermediateDirectories: true)
    do {
      try programs.handOver(directory)
      let initdb = try await programs.run("initdb", [
        "-D", directory.appending(path: "data").path, "-U", username, "--auth=trust", "--no-sync",
        "--encoding=UTF8", "--locale=C",
      ])
      guard initdb.succeeded else {
        throw Unavailable(description: "initdb failed (status \(initdb.status)):\n\(initdb.output)")
      }
      var lastProblem = ""
      for _ in 1...5 {   // a free port can be taken before the server binds it: try another
        let port = try Sockets.freeLoopbackPort()
        do {
          let watchdog = try await launch(programs, directory: directory, port: port)
          let startupTime = clock.now - started
          TestLogging.logger("postgres").info("PostgreSQL started", metadata: [
            "port": "\(port)", "directory": "\(directory.path)", "startupTime": "\(startupTime)",
          ])
          return TemporaryPostgres(port: port, directory: directory, startupTime: startupTime,
                                   programs: programs, watchdog: watchdog)
        } catch let problem as Unavailable where problem.description.contains("Address already in use") {
          lastProblem = problem.description
        }
      }
      throw Unavailable(description: "no free port for PostgreSQL: \(lastProblem)")
    } catch {
      try? FileManager.default.removeItem(at: directory)
      throw error
    }
  }

  /// Starts `postgres` on `port` under the watchdog shell and waits until it accepts connections.
  private static func launch(_ programs: Programs, directory: URL, port: Int) async throws -> RunningChildProcess {
    // $1: the directory; the rest: the server's command line. The subshell waits for the end of
    // standard input (kept on descriptor 3: sh gives background jobs /dev/null), then stops the
    // server; the main shell removes the directory once the server has stopped that way (not when
    // `stopServer()` stopped it for a restart).
    let script = #"""
      dir="$1"; shift
      exec 3<&0
      "$@" </dev/null 3<&- >>"$dir/server.log" 2>&1 &
      pid=$!
      ( read -r _ <&3 || true; touch "$dir/.stopping-$pid"; kill -INT "$pid" 2>/dev/null ) >/dev/null 2>&1 &
      exec 3<&-
      echo "started $pid"
      wait "$pid"; status=$?
      if [ -e "$dir/.stopping-$pid" ]; then rm -rf "$dir"; fi
      echo "exited $status"
      """#
    let server = programs.command("postgres", [
      "-D", directory.appending(path: "data").path, "-p", "\(port)", "-k", directory.appending(path: "socket").path,
      "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
      "-c", "full_page_writes=off", "-c", "max_connections=300", "-c", "log_min_messages=warning",
    ])
    let watchdog = try await ChildProcess(
      executable: "/bin/sh", arguments: ["-c", script, "temporary-postgres", directory.path] + server,
      workingDirectory: URL(filePath: "/")
    ).start(standardError: .discarded)
    let configuration = PostgresConnection.Configuration(
      host: "127.0.0.1", port: port, username: username, password: nil, database: "postgres", tls: .disable)
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
      if !watchdog.isRunning {
        let log = (try? String(contentsOf: directory.appending(path: "server.log"), encoding: .utf8)) ?? ""
        throw Unavailable(description: "postgres exited at start:\n\(log.suffix(2000))")
      }
      if let connection = try? await PostgresConnection.connect(configuration: configuration, id: 0, logger: quiet) {
        try? await connection.close()
        return watchdog
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    await watchdog.closeInput()
    throw Unavailable(description: "postgres did not accept connections within 60 s (log: \(directory.path)/server.log)")
  }

  // MARK: - Databases

  /// Creates an empty database with a fresh name and returns the name.
  public func createDatabase(_ prefix: String = "test") async throws -> String {
    let name = "\(prefix)_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
    try await execute("CREATE DATABASE \(name)")
    return name
  }

  /// Runs one statement in the `postgres` database (as the superuser).
  public func execute(_ sql: String, database: String = "postgres") async throws {
    let connection = try await PostgresConnection.connect(
      configuration: connectionConfiguration(database: database), id: 0, logger: Self.quiet)
    do {
      try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Self.quiet)
      try await connection.close()
    } catch {
      try? await connection.close()
      throw error
    }
  }

  /// How long a registry call may wait in tests: generous, because the whole suite shares two
  /// cores with the server (under `make test` a 10 s deadline was missed by row-lock waits that
  /// take well under a second on a quiet machine). Tests of the deadline itself pass their own.
  public static let patientOperationTimeout = Duration.seconds(120)

  /// How a ``PostgresRegistryStore`` reaches `database` on this server (TLS off).
  public func configuration(database: String, operationTimeout: Duration = TemporaryPostgres.patientOperationTimeout)
    -> PostgresRegistryStore.Configuration {
    PostgresRegistryStore.Configuration(host: host, port: port, username: Self.username, database: database,
                                        tls: .disable, operationTimeout: operationTimeout,
                                        connectTimeout: Self.patientConnectTimeout, rateLimitTimeout: operationTimeout)
  }

  /// How long a test's store waits to connect: the local server accepts at once on a quiet machine,
  /// but a suite whose shards keep both cores busy has been seen to take over the default 5 s.
  public static let patientConnectTimeout = Duration.seconds(30)

  /// `postgres://hybrid@127.0.0.1:PORT/DATABASE?sslmode=disable&operation_timeout=120&connect_timeout=30&rate_limit_timeout=120`
  /// (a later `&operation_timeout=` wins). The rate-limit calls get the patient deadline too: their
  /// 1 s default expired under a full suite's load.
  public func url(database: String) -> String {
    "postgres://\(Self.username)@\(host):\(port)/\(database)?sslmode=disable"
      + "&operation_timeout=\(Self.patientOperationTimeout.components.seconds)"
      + "&connect_timeout=\(Self.patientConnectTimeout.components.seconds)"
      + "&rate_limit_timeout=\(Self.patientOperationTimeout.components.seconds)"
  }

  /// A direct connection's configuration, for tests that talk SQL themselves.
  public func connectionConfiguration(database: String) -> PostgresConnection.Configuration {
    PostgresConnection.Configuration(host: host, port: port, username: Self.username, password: nil,
                                     database: database, tls: .disable)
  }

  // MARK: - Stopping

  /// Stops the server (`pg_ctl stop -m fast`), keeping its data for ``startServer()``.
  public func stopServer() async throws {
    let outcome = try await programs.run("pg_ctl", ["stop", "-D", directory.appending(path: "data").path, "-m", "fast", "-w"])
    guard outcome.succeeded else { throw Unavailable(description: "pg_ctl stop failed:\n\(outcome.output)") }
    let watchdog = watchdog.withLock { $0 }
    _ = await watchdog?.waitForExit()
  }

  /// Starts the server again, on the same port, after ``stopServer()``.
  public func startServer() async throws {
    let running = try await Self.launch(programs, directory: directory, port: port)
    watchdog.withLock { $0 = running }
  }

  /// Stops the server (a fast shutdown) and removes its directory. Not for ``shared()``.
  public func remove() async {
    let watchdog = watchdog.withLock { $0 }
    if let watchdog, watchdog.isRunning {
      await watchdog.closeInput()
      _ = await watchdog.waitForExit()
    }
    try? FileManager.default.removeItem(at: directory)
  }

  private static let quiet = Logger(label: "tests.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

  // MARK: - Programs

  /// PostgreSQL's server programs, and whom they run as.
  private struct Programs: Sendable {
    let binDirectory: URL
    /// `nobody`'s ids when this process is root (initdb and postgres refuse to run as root).
    let runAs: (uid: UInt32, gid: UInt32)?

    /// `$HYBRIDAI_POSTGRES_BIN` when set, else Debian's newest `/usr/lib/postgresql/<version>/bin`.
    static func locate() throws -> Programs {
      let candidates: [URL]
      let debian = URL(filePath: "/usr/lib/postgresql")
      if let explicit = ProcessInfo.processInfo.environment["HYBRIDAI_POSTGRES_BIN"], !explicit.isEmpty {
        candidates = [URL(filePath: explicit)]
      } else {
        candidates = ((try? FileManager.default.contentsOfDirectory(atPath: debian.path)) ?? [])
          .compactMap(Int.init).sorted(by: >).map { debian.appending(path: "\($0)/bin") }
      }
      guard let binDirectory = candidates.first(where: {
        FileManager.default.isExecutableFile(atPath: $0.appending(path: "initdb").path)
          && FileManager.default.isExecutableFile(atPath: $0.appending(path: "postgres").path)
      }) else {
        throw Unavailable(description: """
          PostgreSQL's server programs (initdb, postgres) were not found in \
          \(candidates.isEmpty ? debian.path + "/<version>/bin" : candidates.map(\.path).joined(separator: ", ")). \
          Run scripts/bootstrap (it installs Debian's postgresql package), or set HYBRIDAI_POSTGRES_BIN.
          """)
      }
      guard getuid() == 0 else { return Programs(binDirectory: binDirectory, runAs: nil) }
      guard let nobody = getpwnam("nobody") else {
        throw Unavailable(description: "running as root, and there is no user nobody to run PostgreSQL as")
      }
      guard ChildProcess.locate("setpriv") != nil else {
        throw Unavailable(description: "running as root, and setpriv (util-linux) is missing to run PostgreSQL as nobody")
      }
      return Programs(binDirectory: binDirectory, runAs: (nobody.pointee.pw_uid, nobody.pointee.pw_gid))
    }

    /// The command line that runs `program` (as `nobody` when this process is root).
    func command(_ program: String, _ arguments: [String]) -> [String] {
      let path = binDirectory.appending(path: program).path
      guard let runAs else { return [path] + arguments }
      return ["setpriv", "--reuid=\(runAs.uid)", "--regid=\(runAs.gid)", "--clear-groups", "--", path] + arguments
    }

    func run(_ program: String, _ arguments: [String]) async throws -> ChildProcess.Outcome {
      let line = command(program, arguments)
      return try await ChildProcess(executable: line[0], arguments: Array(line.dropFirst()), workingDirectory: URL(filePath: "/"))
        .run(output: .collectedWithStandardError(limit: 1 << 20))
    }

    /// Gives `directory` and what is in it to the user the programs run as.
    func handOver(_ directory: URL) throws {
      guard let runAs else { return }
      for path in [directory.path, directory.appending(path: "socket").path] where chown(path, runAs.uid, runAs.gid) != 0 {
        throw Unavailable(description: "chown \(path) to uid \(runAs.uid): \(String(cString: strerror(errno)))")
      }
      chmod(directory.path, 0o700)
    }
  }
}
