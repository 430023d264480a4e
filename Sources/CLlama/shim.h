// The llama.cpp C API, from the headers scripts/bootstrap installs into .deps/llama/include.
// Link flags come from pkg-config (`hybridai-llama`), so static archives link without rpaths.
#include <llama.h>
#include <gguf.h>
#include <ggml-cpu.h>
