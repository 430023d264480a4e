// CLiteRT — the part of the LiteRT C API that HybridAI's TFLite module calls, declared here by hand.
//
// The runtime is Google's libLiteRt.so from the PyPI wheel ai-edge-litert 2.3.0 (LiteRT C API,
// headers of LiteRT v2.2.0). The wheel ships no headers, so the types and signatures below were
// written from the v2.2.0 headers and checked against the symbols the pinned library exports
// (`nm -D --defined-only libLiteRt.so`: every function here is exported as `NAME@@VERS_1.0`).
// Signatures changed between LiteRT releases: do not point this at another version without
// checking each declaration again.
//
// Nothing here links against LiteRT. `HybridLiteRtOpen` loads the library with dlopen and binds
// each function with dlvsym(…, "VERS_1.0") into a table, so the package builds without the
// runtime and a missing runtime is an ordinary error at run time.
#ifndef HYBRIDAI_CLITERT_H
#define HYBRIDAI_CLITERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---- opaque handles -------------------------------------------------------------------------
typedef struct LiteRtEnvironmentT *LiteRtEnvironment;
typedef struct LiteRtModelT *LiteRtModel;
typedef struct LiteRtSignatureT *LiteRtSignature;
typedef struct LiteRtSubgraphT *LiteRtSubgraph;
typedef struct LiteRtTensorT *LiteRtTensor;
typedef struct LiteRtOptionsT *LiteRtOptions;
typedef struct LiteRtOpaqueOptionsT *LiteRtOpaqueOptions;
typedef struct LiteRtCompiledModelT *LiteRtCompiledModel;
typedef struct LiteRtTensorBufferT *LiteRtTensorBuffer;
typedef struct LiteRtTensorBufferRequirementsT *LiteRtTensorBufferRequirements;

// ---- plain types ----------------------------------------------------------------------------
/// A C enum in LiteRT (int-sized); 0 is success. The values HybridAI tells apart are below.
typedef int LiteRtStatus;
/// An index into a model's signatures, a signature's inputs or outputs, ….
typedef size_t LiteRtParamIndex;
/// LiteRT's element type: the same numbers as TfLiteType (float32 = 1, int32 = 2, uint8 = 3, …).
typedef int LiteRtElementType;

enum {
  kHybridLiteRtStatusOk = 0,
  kHybridLiteRtStatusErrorInvalidArgument = 1,
  kHybridLiteRtStatusErrorMemoryAllocationFailure = 2,
  kHybridLiteRtStatusErrorRuntimeFailure = 3,
  kHybridLiteRtStatusErrorMissingInputTensor = 4,
  kHybridLiteRtStatusErrorUnsupported = 5,
  kHybridLiteRtStatusErrorNotFound = 6,
  kHybridLiteRtStatusErrorTimeoutExpired = 7,
  kHybridLiteRtStatusErrorWrongVersion = 8,
  kHybridLiteRtStatusErrorUnknown = 9,
  kHybridLiteRtStatusCancelled = 100,
  kHybridLiteRtStatusErrorFileIO = 500,
  kHybridLiteRtStatusErrorInvalidFlatbuffer = 501,
  kHybridLiteRtStatusErrorIndexOOB = 1000,
};

/// LiteRtTensorTypeId: whether a tensor has a rank.
enum {
  kHybridLiteRtRankedTensorType = 0,
  kHybridLiteRtUnrankedTensorType = 1,
};

/// LiteRtQuantizationTypeId.
enum {
  kHybridLiteRtQuantizationNone = 0,
  kHybridLiteRtQuantizationPerTensor = 1,
  kHybridLiteRtQuantizationPerChannel = 2,
  kHybridLiteRtQuantizationBlockWise = 3,
};

/// LiteRtHwAccelerators (a bit set): HybridAI asks for the CPU only.
enum { kHybridLiteRtHwAcceleratorCpu = 1 };

/// LiteRtTensorBufferType: plain host memory.
enum { kHybridLiteRtTensorBufferTypeHostMemory = 1 };

/// LiteRtEnvOptionTag for the runtime's minimum log severity, and LiteRtAnyType for an integer.
enum {
  kHybridLiteRtEnvOptionTagMinLoggerSeverity = 25,
  kHybridLiteRtAnyTypeInt = 2,
};

/// LiteRtLogSeverity values (tflite::LogSeverity).
enum {
  kHybridLiteRtLogSeverityVerbose = 0,
  kHybridLiteRtLogSeverityInfo = 1,
  kHybridLiteRtLogSeverityWarning = 2,
  kHybridLiteRtLogSeverityError = 3,
  kHybridLiteRtLogSeveritySilent = 4,
};

/// LiteRtLayout: rank (7 bits) and has_strides (1 bit) share the first 32-bit word; 68 bytes.
typedef struct {
  unsigned int rank : 7;
  unsigned int has_strides : 1;
  int32_t dimensions[8];
  uint32_t strides[8];
} LiteRtLayout;

/// LiteRtRankedTensorType: 72 bytes.
typedef struct {
  LiteRtElementType element_type;
  LiteRtLayout layout;
} LiteRtRankedTensorType;

/// LiteRtUnrankedTensorType: 4 bytes.
typedef struct {
  LiteRtElementType element_type;
} LiteRtUnrankedTensorType;

/// LiteRtQuantizationPerTensor: 16 bytes.
typedef struct {
  float scale;
  int64_t zero_point;
} LiteRtQuantizationPerTensor;

/// LiteRtAny, reduced to what HybridAI sends (an integer): 16 bytes.
typedef struct {
  int type;
  union {
    int64_t int_value;
    const void *ptr_value;
  };
} LiteRtAny;

/// LiteRtEnvOption: 24 bytes.
typedef struct {
  int tag;
  LiteRtAny value;
} LiteRtEnvOption;

typedef void (*LiteRtHostMemoryDeallocator)(void *addr);

// ---- the function table ---------------------------------------------------------------------
/// The LiteRT functions HybridAI calls, bound from one loaded libLiteRt.so.
/// Field names are the C function names; every field is non-null after a successful open.
typedef struct {
  // environment
  LiteRtStatus (*LiteRtCreateEnvironment)(int num_options, const LiteRtEnvOption *options,
                                          LiteRtEnvironment *environment);
  void (*LiteRtDestroyEnvironment)(LiteRtEnvironment environment);

  // model
  LiteRtStatus (*LiteRtCreateModelFromBuffer)(LiteRtEnvironment environment,
                                              const void *buffer_addr, size_t buffer_size,
                                              LiteRtModel *model);
  void (*LiteRtDestroyModel)(LiteRtModel model);
  LiteRtStatus (*LiteRtGetModelSubgraph)(LiteRtModel model, LiteRtParamIndex subgraph_index,
                                         LiteRtSubgraph *subgraph);
  LiteRtStatus (*LiteRtGetMainModelSubgraphIndex)(LiteRtModel model,
                                                  LiteRtParamIndex *main_subgraph_index);
  LiteRtStatus (*LiteRtGetNumModelSignatures)(LiteRtModel model,
                                              LiteRtParamIndex *num_signatures);
  LiteRtStatus (*LiteRtGetModelSignature)(LiteRtModel model, LiteRtParamIndex signature_index,
                                          LiteRtSignature *signature);

  // subgraphs and signatures
  LiteRtStatus (*LiteRtGetNumSubgraphInputs)(LiteRtSubgraph subgraph,
                                             LiteRtParamIndex *num_inputs);
  LiteRtStatus (*LiteRtGetSubgraphInput)(LiteRtSubgraph subgraph, LiteRtParamIndex input_index,
                                         LiteRtTensor *input);
  LiteRtStatus (*LiteRtGetNumSubgraphOutputs)(LiteRtSubgraph subgraph,
                                              LiteRtParamIndex *num_outputs);
  LiteRtStatus (*LiteRtGetSubgraphOutput)(LiteRtSubgraph subgraph, LiteRtParamIndex output_index,
                                          LiteRtTensor *output);
  LiteRtStatus (*LiteRtGetSignatureKey)(LiteRtSignature signature, const char **signature_key);
  LiteRtStatus (*LiteRtGetSignatureSubgraph)(LiteRtSignature signature,
                                             LiteRtSubgraph *subgraph);
  LiteRtStatus (*LiteRtGetNumSignatureInputs)(LiteRtSignature signature,
                                              LiteRtParamIndex *num_inputs);
  LiteRtStatus (*LiteRtGetSignatureInputName)(LiteRtSignature signature,
                                              LiteRtParamIndex input_idx,
                                              const char **input_name);
  LiteRtStatus (*LiteRtGetSignatureInputTensorByIndex)(LiteRtSignature signature,
                                                       LiteRtParamIndex input_idx,
                                                       LiteRtTensor *tensor);
  LiteRtStatus (*LiteRtGetNumSignatureOutputs)(LiteRtSignature signature,
                                               LiteRtParamIndex *num_outputs);
  LiteRtStatus (*LiteRtGetSignatureOutputName)(LiteRtSignature signature,
                                               LiteRtParamIndex output_idx,
                                               const char **output_name);
  LiteRtStatus (*LiteRtGetSignatureOutputTensorByIndex)(LiteRtSignature signature,
                                                        LiteRtParamIndex output_idx,
                                                        LiteRtTensor *tensor);

  // tensors
  LiteRtStatus (*LiteRtGetTensorName)(LiteRtTensor tensor, const char **name);
  LiteRtStatus (*LiteRtGetTensorTypeId)(LiteRtTensor tensor, int *type_id);
  LiteRtStatus (*LiteRtGetRankedTensorType)(LiteRtTensor tensor,
                                            LiteRtRankedTensorType *ranked_tensor_type);
  LiteRtStatus (*LiteRtGetUnrankedTensorType)(LiteRtTensor tensor,
                                              LiteRtUnrankedTensorType *unranked_tensor_type);
  LiteRtStatus (*LiteRtGetQuantizationTypeId)(LiteRtTensor tensor, int *q_type_id);
  LiteRtStatus (*LiteRtGetPerTensorQuantization)(LiteRtTensor tensor,
                                                 LiteRtQuantizationPerTensor *quantization);

  // compilation options
  LiteRtStatus (*LiteRtCreateOptions)(LiteRtOptions *options);
  void (*LiteRtDestroyOptions)(LiteRtOptions options);
  LiteRtStatus (*LiteRtSetOptionsHardwareAccelerators)(LiteRtOptions options,
                                                       int hardware_accelerators);
  LiteRtStatus (*LiteRtCreateOpaqueOptions)(const char *payload_identifier, void *payload_data,
                                            void (*payload_destructor)(void *payload_data),
                                            LiteRtOpaqueOptions *options);
  void (*LiteRtDestroyOpaqueOptions)(LiteRtOpaqueOptions options);
  LiteRtStatus (*LiteRtAddOpaqueOptions)(LiteRtOptions options,
                                         LiteRtOpaqueOptions opaque_options);

  // compiled model
  LiteRtStatus (*LiteRtCreateCompiledModel)(LiteRtEnvironment environment, LiteRtModel model,
                                            LiteRtOptions compilation_options,
                                            LiteRtCompiledModel *compiled_model);
  void (*LiteRtDestroyCompiledModel)(LiteRtCompiledModel compiled_model);
  LiteRtStatus (*LiteRtGetCompiledModelInputBufferRequirements)(
      LiteRtCompiledModel compiled_model, LiteRtParamIndex signature_index,
      LiteRtParamIndex input_index, LiteRtTensorBufferRequirements *buffer_requirements);
  LiteRtStatus (*LiteRtGetCompiledModelOutputBufferRequirements)(
      LiteRtCompiledModel compiled_model, LiteRtParamIndex signature_index,
      LiteRtParamIndex output_index, LiteRtTensorBufferRequirements *buffer_requirements);
  LiteRtStatus (*LiteRtGetCompiledModelInputTensorLayout)(LiteRtCompiledModel compiled_model,
                                                          LiteRtParamIndex signature_index,
                                                          LiteRtParamIndex input_index,
                                                          LiteRtLayout *layout);
  LiteRtStatus (*LiteRtGetCompiledModelOutputTensorLayouts)(LiteRtCompiledModel compiled_model,
                                                            LiteRtParamIndex signature_index,
                                                            size_t num_layouts,
                                                            LiteRtLayout *layouts,
                                                            bool update_allocation);
  LiteRtStatus (*LiteRtCompiledModelResizeInputTensorNonStrict)(LiteRtCompiledModel compiled_model,
                                                                LiteRtParamIndex signature_index,
                                                                LiteRtParamIndex input_index,
                                                                const int *dims, size_t dims_size);
  LiteRtStatus (*LiteRtRunCompiledModel)(LiteRtCompiledModel compiled_model,
                                         LiteRtParamIndex signature_index,
                                         size_t num_input_buffers,
                                         LiteRtTensorBuffer *input_buffers,
                                         size_t num_output_buffers,
                                         LiteRtTensorBuffer *output_buffers);
  LiteRtStatus (*LiteRtSetCompiledModelCancellationFunction)(
      LiteRtCompiledModel compiled_model, void *data, bool (*check_cancelled_func)(void *));

  // tensor buffers
  LiteRtStatus (*LiteRtGetTensorBufferRequirementsBufferSize)(
      LiteRtTensorBufferRequirements requirements, size_t *buffer_size);
  LiteRtStatus (*LiteRtCreateTensorBufferFromHostMemory)(
      const LiteRtRankedTensorType *tensor_type, void *host_buffer_addr,
      size_t host_buffer_size, LiteRtHostMemoryDeallocator deallocator,
      LiteRtTensorBuffer *buffer);
  void (*LiteRtDestroyTensorBuffer)(LiteRtTensorBuffer buffer);
} HybridLiteRtApi;

/// Loads the LiteRT library at `path` (dlopen, RTLD_NOW | RTLD_LOCAL) and binds every function of
/// `HybridLiteRtApi`. Returns 0 on success; otherwise non-zero, with a message in `error`
/// (truncated to `error_size`) and the library unloaded again.
int HybridLiteRtOpen(const char *path, HybridLiteRtApi *api, char *error, size_t error_size);

// ---- deadlines (a time bound on invoke) -----------------------------------------------------
/// A deadline that the runtime polls between operations through
/// `LiteRtSetCompiledModelCancellationFunction`. `deadline_ns` is CLOCK_MONOTONIC nanoseconds;
/// 0 means no deadline. Written by one thread (the interpreter's owner) before each run.
typedef struct {
  uint64_t deadline_ns;
  bool expired;
} HybridLiteRtDeadline;

/// The cancellation callback: true once `((HybridLiteRtDeadline *)data)->deadline_ns` has passed
/// (and then sets `expired`).
bool HybridLiteRtDeadlinePassed(void *data);

/// CLOCK_MONOTONIC now, in nanoseconds.
uint64_t HybridLiteRtMonotonicNanoseconds(void);

#ifdef __cplusplus
}
#endif

#endif  // HYBRIDAI_CLITERT_H
