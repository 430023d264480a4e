// The llama.cpp C API, from the headers scripts/bootstrap installs into .deps/llama/include.
// Link flags (and the rpath to the shared libraries) come from pkg-config (`hybridai-llama`).
#include <llama.h>
#include <gguf.h>
#include <ggml-backend.h>
// libmtmd: images and audio through a model's multimodal projector (an mmproj GGUF).
#include <mtmd.h>
#include <mtmd-helper.h>
