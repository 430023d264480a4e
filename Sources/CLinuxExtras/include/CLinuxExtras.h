// Linux calls that Swift's Glibc module does not declare (they need _GNU_SOURCE, <malloc.h> or <sys/xattr.h>),
// and a signal handler (which Swift code cannot safely be). Elsewhere they do nothing and report
// failure.
#ifndef CLINUXEXTRAS_H
#define CLINUXEXTRAS_H

#include <stdint.h>
#if defined(__linux__)
#include <sys/types.h>
#include <sys/xattr.h>   // getxattr, setxattr: extended attributes of a file
#endif

/// Starts writing back the dirty pages of a file range without waiting and without dropping
/// them: `sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE)`. 0, or -1 with errno.
int hybridai_start_writeback(int fd, int64_t offset, int64_t count);

/// glibc malloc: serve allocations below `mmap_threshold` bytes from the heap instead of a fresh
/// mmap, and keep up to `trim_threshold` free bytes at the top of a heap instead of returning
/// them to the kernel (`mallopt(M_MMAP_THRESHOLD …)`, `mallopt(M_TRIM_THRESHOLD …)`).
/// 1 when both were set, 0 otherwise.
int hybridai_set_malloc_thresholds(int mmap_threshold, int trim_threshold);

/// The path of the shared library (or executable) that holds `address`, as the dynamic linker
/// loaded it (`dladdr`), or NULL when unknown. The string lives as long as the library.
const char *hybridai_library_path_of(const void *address);

/// Makes every arrival of signal `signo` write one byte (the signal's number) to `write_fd`, from
/// an async-signal-safe handler (`sigaction`, `SA_RESTART`); make the pipe non-blocking so a full
/// pipe drops the byte instead of blocking. 0, or -1 with errno.
int hybridai_forward_signal_to_pipe(int signo, int write_fd);

#endif
