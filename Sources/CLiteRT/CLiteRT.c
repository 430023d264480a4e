// Loads libLiteRt.so at run time and binds the functions declared in CLiteRT.h.
#define _GNU_SOURCE
#include "CLiteRT.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

// The layouts HybridAI shares with the runtime (sizes from the LiteRT v2.2.0 headers, LP64).
_Static_assert(sizeof(LiteRtLayout) == 68, "LiteRtLayout must be 68 bytes");
_Static_assert(offsetof(LiteRtLayout, dimensions) == 4, "LiteRtLayout.dimensions at 4");
_Static_assert(offsetof(LiteRtLayout, strides) == 36, "LiteRtLayout.strides at 36");
_Static_assert(sizeof(LiteRtRankedTensorType) == 72, "LiteRtRankedTensorType must be 72 bytes");
_Static_assert(offsetof(LiteRtRankedTensorType, layout) == 4, "layout at 4");
_Static_assert(sizeof(LiteRtQuantizationPerTensor) == 16, "LiteRtQuantizationPerTensor: 16");
_Static_assert(offsetof(LiteRtQuantizationPerTensor, zero_point) == 8, "zero_point at 8");
_Static_assert(sizeof(LiteRtAny) == 16, "LiteRtAny must be 16 bytes");
_Static_assert(sizeof(LiteRtEnvOption) == 24, "LiteRtEnvOption must be 24 bytes");
_Static_assert(offsetof(LiteRtEnvOption, value) == 8, "LiteRtEnvOption.value at 8");

// Every symbol of the pinned library carries this version (nm -D --with-symbol-versions).
static const char kSymbolVersion[] = "VERS_1.0";

static void *bind(void *library, const char *name) {
#if defined(__linux__)
  void *symbol = dlvsym(library, name, kSymbolVersion);
  if (symbol != NULL) return symbol;
#endif
  return dlsym(library, name);
}

int HybridLiteRtOpen(const char *path, HybridLiteRtApi *api, char *error, size_t error_size) {
  if (path == NULL || api == NULL) {
    if (error != NULL && error_size > 0) snprintf(error, error_size, "no library path");
    return 1;
  }
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    if (error != NULL && error_size > 0) {
      const char *reason = dlerror();
      snprintf(error, error_size, "%s", reason != NULL ? reason : "dlopen failed");
    }
    return 1;
  }
  HybridLiteRtApi table;
  memset(&table, 0, sizeof table);
  const char *missing = NULL;
#define HYBRID_BIND(name)                                   \
  do {                                                      \
    *(void **)(&table.name) = bind(library, #name);         \
    if (table.name == NULL && missing == NULL) missing = #name; \
  } while (0)
  HYBRID_BIND(LiteRtCreateEnvironment);
  HYBRID_BIND(LiteRtDestroyEnvironment);
  HYBRID_BIND(LiteRtCreateModelFromBuffer);
  HYBRID_BIND(LiteRtDestroyModel);
  HYBRID_BIND(LiteRtGetModelSubgraph);
  HYBRID_BIND(LiteRtGetMainModelSubgraphIndex);
  HYBRID_BIND(LiteRtGetNumModelSignatures);
  HYBRID_BIND(LiteRtGetModelSignature);
  HYBRID_BIND(LiteRtGetNumSubgraphInputs);
  HYBRID_BIND(LiteRtGetSubgraphInput);
  HYBRID_BIND(LiteRtGetNumSubgraphOutputs);
  HYBRID_BIND(LiteRtGetSubgraphOutput);
  HYBRID_BIND(LiteRtGetSignatureKey);
  HYBRID_BIND(LiteRtGetSignatureSubgraph);
  HYBRID_BIND(LiteRtGetNumSignatureInputs);
  HYBRID_BIND(LiteRtGetSignatureInputName);
  HYBRID_BIND(LiteRtGetSignatureInputTensorByIndex);
  HYBRID_BIND(LiteRtGetNumSignatureOutputs);
  HYBRID_BIND(LiteRtGetSignatureOutputName);
  HYBRID_BIND(LiteRtGetSignatureOutputTensorByIndex);
  HYBRID_BIND(LiteRtGetTensorName);
  HYBRID_BIND(LiteRtGetTensorTypeId);
  HYBRID_BIND(LiteRtGetRankedTensorType);
  HYBRID_BIND(LiteRtGetUnrankedTensorType);
  HYBRID_BIND(LiteRtGetQuantizationTypeId);
  HYBRID_BIND(LiteRtGetPerTensorQuantization);
  HYBRID_BIND(LiteRtCreateOptions);
  HYBRID_BIND(LiteRtDestroyOptions);
  HYBRID_BIND(LiteRtSetOptionsHardwareAccelerators);
  HYBRID_BIND(LiteRtCreateOpaqueOptions);
  HYBRID_BIND(LiteRtDestroyOpaqueOptions);
  HYBRID_BIND(LiteRtAddOpaqueOptions);
  HYBRID_BIND(LiteRtCreateCompiledModel);
  HYBRID_BIND(LiteRtDestroyCompiledModel);
  HYBRID_BIND(LiteRtGetCompiledModelInputBufferRequirements);
  HYBRID_BIND(LiteRtGetCompiledModelOutputBufferRequirements);
  HYBRID_BIND(LiteRtGetCompiledModelInputTensorLayout);
  HYBRID_BIND(LiteRtGetCompiledModelOutputTensorLayouts);
  HYBRID_BIND(LiteRtCompiledModelResizeInputTensorNonStrict);
  HYBRID_BIND(LiteRtRunCompiledModel);
  HYBRID_BIND(LiteRtSetCompiledModelCancellationFunction);
  HYBRID_BIND(LiteRtGetTensorBufferRequirementsBufferSize);
  HYBRID_BIND(LiteRtCreateTensorBufferFromHostMemory);
  HYBRID_BIND(LiteRtDestroyTensorBuffer);
#undef HYBRID_BIND
  if (missing != NULL) {
    if (error != NULL && error_size > 0) {
      snprintf(error, error_size, "%s does not export %s@%s", path, missing, kSymbolVersion);
    }
    dlclose(library);
    return 2;
  }
  *api = table;
  // The library stays loaded for the life of the process: the runtime keeps global state
  // (registered accelerators, thread pools) that must not be unmapped.
  return 0;
}

uint64_t HybridLiteRtMonotonicNanoseconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

bool HybridLiteRtDeadlinePassed(void *data) {
  HybridLiteRtDeadline *deadline = (HybridLiteRtDeadline *)data;
  if (deadline == NULL || deadline->deadline_ns == 0) return false;
  if (HybridLiteRtMonotonicNanoseconds() < deadline->deadline_ns) return false;
  deadline->expired = true;
  return true;
}
