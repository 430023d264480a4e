import CLinuxExtras
import Foundation
import Synchronization

/// Turns Ctrl-C into a callback while one is set — once: a second Ctrl-C before a new callback is
/// set exits — otherwise runs the exit callback and exits the process (status 130).
///
/// The signal handler only writes a byte to a pipe, and a thread of its own reads it: a Ctrl-C that
/// comes before the reader runs waits in the pipe instead of being lost (ignoring SIGINT and
/// waiting for a signal source dropped one that came in that window), and a reader on a thread of
/// its own runs while the answer keeps every pool thread busy (a dispatch source on a global
/// queue was only served once the answer had ended, too late to stop it).
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

  /// Starts the reader thread and routes SIGINT to it; when no pipe can be made (out of file
  /// descriptors), Ctrl-C kills the process as it does by default.
  init() {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return }
    let (readEnd, writeEnd) = (ends[0], ends[1])
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    // The write end never blocks the signal handler; the read end blocks its thread.
    _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
    let thread = Thread { [callbacks] in
      var bytes = [UInt8](repeating: 0, count: 16)
      while true {
        let count = read(readEnd, &bytes, bytes.count)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return }
        for _ in 0..<count { callbacks.interrupted() }
      }
    }
    thread.name = "hybrid-interrupts"
    thread.start()
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
