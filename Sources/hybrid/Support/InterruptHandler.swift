import Dispatch
import Foundation
import Synchronization

/// Turns Ctrl-C into a callback while one is set — once: a second Ctrl-C before a new callback is
/// set exits — otherwise runs the exit callback and exits the process (status 130).
final class InterruptHandler {
  private final class Callbacks: Sendable {
    let interrupt = Mutex<(@Sendable () -> Void)?>(nil)
    let exit = Mutex<(@Sendable () -> Void)?>(nil)
  }
  private let callbacks = Callbacks()
  private let source: any DispatchSourceSignal

  init() {
    signal(SIGINT, SIG_IGN)
    source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    source.setEventHandler { [callbacks] in
      if let action = callbacks.interrupt.withLock({ callback in defer { callback = nil }; return callback }) {
        action()
      } else {
        callbacks.exit.withLock { $0 }?()
        Glibc.exit(130)
      }
    }
    source.resume()
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
