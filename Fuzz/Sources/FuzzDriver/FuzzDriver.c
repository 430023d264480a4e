#include "FuzzDriver.h"

#include <stddef.h>
#include <stdint.h>

// Defined by each fuzz target (in Swift, with @_cdecl).
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// libFuzzer's entry for programs with a main of their own (libclang_rt.fuzzer, linked by
// -sanitize=fuzzer).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int hybridai_fuzz_main(int argc, char **argv) {
  return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
