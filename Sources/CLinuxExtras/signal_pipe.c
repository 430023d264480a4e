// A signal handler that only writes one byte to a pipe: the one thing a handler may safely do in
// a process with Swift's runtime and threads. The reader (a dispatch source on the pipe) does the
// rest; bytes written before it is registered wait in the pipe, so no signal is lost.
#include "CLinuxExtras.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t pipe_of_signal[NSIG];

static void write_signal_to_pipe(int signo) {
  int saved = errno;
  unsigned char byte = (unsigned char)signo;
  if (signo > 0 && signo < NSIG && pipe_of_signal[signo] > 0) {
    ssize_t ignored = write(pipe_of_signal[signo], &byte, 1);
    (void)ignored;
  }
  errno = saved;
}

int hybridai_forward_signal_to_pipe(int signo, int write_fd) {
  if (signo <= 0 || signo >= NSIG || write_fd <= 0) {
    errno = EINVAL;
    return -1;
  }
  pipe_of_signal[signo] = write_fd;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = write_signal_to_pipe;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  return sigaction(signo, &action, NULL);
}
