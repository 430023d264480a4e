#define _GNU_SOURCE
#include "CLinuxExtras.h"

#include <errno.h>
#include <stddef.h>
#if defined(__linux__)
#include <dlfcn.h>
#endif

#if defined(__linux__)
#include <fcntl.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#endif

int hybridai_start_writeback(int fd, int64_t offset, int64_t count) {
#if defined(__linux__)
  return sync_file_range(fd, (off_t)offset, (off_t)count, SYNC_FILE_RANGE_WRITE);
#else
  (void)fd;
  (void)offset;
  (void)count;
  errno = ENOSYS;
  return -1;
#endif
}

int hybridai_set_malloc_thresholds(int mmap_threshold, int trim_threshold) {
#if defined(__linux__) && defined(__GLIBC__)
  return mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
#else
  (void)mmap_threshold;
  (void)trim_threshold;
  return 0;
#endif
}

const char *hybridai_library_path_of(const void *address) {
#if defined(__linux__)
  Dl_info info;
  if (dladdr(address, &info) != 0) return info.dli_fname;
#else
  (void)address;
#endif
  return NULL;
}
