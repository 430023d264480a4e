// The llama.cpp C API, from the headers scripts/bootstrap installs into .deps/llama/include.
// Link flags (and the rpath to the shared libraries) come from pkg-config (`hybridai-llama`).
#include <llama.h>
#include <gguf.h>
#include <ggml-backend.h>
