import CLinuxExtras
import Dispatch
import Foundation
import Synchronization

/// Turns Ctrl-C into a callback while one is set — once: a second Ctrl-C before a new callback is
/// set exits — otherwise runs the exit callback and exits the process (status 130).
///
/// The signal handler only writes a byte to a pipe, and a dispatch source reads it: a Ctrl-C that
/// comes before the source is registered waits in the pipe instead of being lost (ignoring SIGINT
/// and waiting for a signal source dropped one that came in that window).
final class InterruptHandler {
  private final class Callbacks: Sendable {
    let interrupt = Mutex<(@Sendable () -> Void)?>(nil)
    let exit = Mutex<(@Sendable () -> Void)?>(nil)

    /// One Ctrl-C: the interrupt callback (then cleared), or the exit callback and exit.
    func interrupted() {
      if let action = interrupt.withLock({ callback in defer { callback = nil }; return callback }) {
        action()
      } else {
        exit.withLock { $0 }?()
        Glibc.exit(130)
      }
    }
  }
  private let callbacks = Callbacks()
  /// Reads the pipe; nil when no pipe could be made (out of file descriptors): Ctrl-C then kills
  /// the process as it does by default.
  private let source: (any DispatchSourceRead)?

  init() {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { source = nil; return }
    let (readEnd, writeEnd) = (ends[0], ends[1])
    for end in ends {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
    source.setEventHandler { [callbacks] in
      var bytes = [UInt8](repeating: 0, count: 16)
      let count = read(readEnd, &bytes, bytes.count)
      for _ in 0..<max(count, 0) { callbacks.interrupted() }
    }
    source.resume()
    self.source = source
    _ = hybridai_forward_signal_to_pipe(SIGINT, writeEnd)
  }

  /// What Ctrl-C does instead of exiting (stop the answer being written).
  var onInterrupt: (@Sendable () -> Void)? {
    get { callbacks.interrupt.withLock { $0 } }
    set { callbacks.interrupt.withLock { $0 = newValue } }
  }

  /// What runs before Ctrl-C exits the process (tidying up).
  var onExit: (@Sendable () -> Void)? {
    get { callbacks.exit.withLock { $0 } }
    set { callbacks.exit.withLock { $0 = newValue } }
  }
}
