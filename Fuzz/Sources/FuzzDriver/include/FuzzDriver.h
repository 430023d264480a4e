#ifndef HYBRIDAI_FUZZ_DRIVER_H
#define HYBRIDAI_FUZZ_DRIVER_H

/// Runs libFuzzer with the process's arguments on this executable's `LLVMFuzzerTestOneInput`;
/// returns libFuzzer's exit status. Each fuzz target's `<Target>_main` calls it.
int hybridai_fuzz_main(int argc, char **argv);

#endif
