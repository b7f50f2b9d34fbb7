/* cugi-nccl.h: the part of NCCL's C interface that cugi calls.
 *
 * Private. NCCL (libnccl.so.2) is loaded at run time, as the driver is, and
 * its header comes with some CUDA toolkits and not others, so cugi declares
 * the types and entry points it uses itself and builds without NCCL. Only
 * cugi-loader.c resolves these names (into cugi_nccl, cugi-loader.h).
 *
 * ncclConfig_t is declared as NCCL 2.18 laid it out: NCCL reads a config by
 * the size and version it carries, so newer releases take it too, and 2.18
 * is the oldest cugi needs (ncclCommSplit, splitShare, ncclCommRegister).
 */
#pragma once

#include <stddef.h>

G_BEGIN_DECLS

typedef struct CugiNcclComm_st *ncclComm_t;

#define CUGI_NCCL_UNIQUE_ID_BYTES 128
typedef struct
{
  char internal[CUGI_NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef enum
{
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
} ncclResult_t;

/* ncclDataType_t and ncclRedOp_t: the values of CugiDataType and
 * CugiReduceOp, which cugi-communicator.c checks at compile time. */
typedef int ncclDataType_t;
typedef int ncclRedOp_t;

/* Where the scalar of a pre-multiplied sum is read: cugi passes it from
 * the host, read before the call returns. */
typedef enum
{
  ncclScalarDevice = 0,
  ncclScalarHostImmediate = 1,
} ncclScalarResidence_t;

#define CUGI_NCCL_CONFIG_MAGIC 0xcafebeefu
#define CUGI_NCCL_CONFIG_VERSION 21800 /* NCCL_VERSION (2, 18, 0) */
#define CUGI_NCCL_CONFIG_UNDEF_INT G_MININT
#define CUGI_NCCL_SPLIT_NOCOLOR (-1)

typedef struct
{
  size_t       size;
  unsigned int magic;
  unsigned int version;
  int          blocking;
  int          cgaClusterSize;
  int          minCTAs;
  int          maxCTAs;
  const char  *netName;
  int          splitShare;
} ncclConfig_t;

ncclResult_t ncclGetVersion          (int *version);
ncclResult_t ncclGetUniqueId         (ncclUniqueId *unique_id);
ncclResult_t ncclCommInitRankConfig  (ncclComm_t *comm, int n_ranks, ncclUniqueId unique_id, int rank,
                                      ncclConfig_t *config);
ncclResult_t ncclCommSplit           (ncclComm_t comm, int color, int key, ncclComm_t *new_comm,
                                      ncclConfig_t *config);
ncclResult_t ncclCommFinalize        (ncclComm_t comm);
ncclResult_t ncclCommDestroy         (ncclComm_t comm);
ncclResult_t ncclCommAbort           (ncclComm_t comm);
const char  *ncclGetErrorString      (ncclResult_t result);
const char  *ncclGetLastError        (ncclComm_t comm);
ncclResult_t ncclCommGetAsyncError   (ncclComm_t comm, ncclResult_t *async_error);
ncclResult_t ncclCommCount           (const ncclComm_t comm, int *count);
ncclResult_t ncclCommCuDevice        (const ncclComm_t comm, int *device);
ncclResult_t ncclCommUserRank        (const ncclComm_t comm, int *rank);
ncclResult_t ncclCommRegister        (const ncclComm_t comm, void *buffer, size_t size, void **handle);
ncclResult_t ncclCommDeregister      (const ncclComm_t comm, void *handle);
ncclResult_t ncclMemAlloc            (void **address, size_t size);
ncclResult_t ncclMemFree             (void *address);
ncclResult_t ncclAllReduce           (const void *send, void *recv, size_t count, ncclDataType_t type,
                                      ncclRedOp_t op, ncclComm_t comm, CUstream stream);
ncclResult_t ncclBroadcast           (const void *send, void *recv, size_t count, ncclDataType_t type,
                                      int root, ncclComm_t comm, CUstream stream);
ncclResult_t ncclReduce              (const void *send, void *recv, size_t count, ncclDataType_t type,
                                      ncclRedOp_t op, int root, ncclComm_t comm, CUstream stream);
ncclResult_t ncclAllGather           (const void *send, void *recv, size_t send_count, ncclDataType_t type,
                                      ncclComm_t comm, CUstream stream);
ncclResult_t ncclReduceScatter       (const void *send, void *recv, size_t recv_count, ncclDataType_t type,
                                      ncclRedOp_t op, ncclComm_t comm, CUstream stream);
ncclResult_t ncclSend                (const void *send, size_t count, ncclDataType_t type, int peer,
                                      ncclComm_t comm, CUstream stream);
ncclResult_t ncclRecv                (void *recv, size_t count, ncclDataType_t type, int peer,
                                      ncclComm_t comm, CUstream stream);
ncclResult_t ncclAlltoAll            (const void *send, void *recv, size_t count, ncclDataType_t type,
                                      ncclComm_t comm, CUstream stream);
ncclResult_t ncclGather              (const void *send, void *recv, size_t count, ncclDataType_t type,
                                      int root, ncclComm_t comm, CUstream stream);
ncclResult_t ncclScatter             (const void *send, void *recv, size_t count, ncclDataType_t type,
                                      int root, ncclComm_t comm, CUstream stream);
ncclResult_t ncclRedOpCreatePreMulSum (ncclRedOp_t *op, void *scalar, ncclDataType_t type,
                                       ncclScalarResidence_t residence, ncclComm_t comm);
ncclResult_t ncclRedOpDestroy        (ncclRedOp_t op, ncclComm_t comm);
ncclResult_t ncclGroupStart          (void);
ncclResult_t ncclGroupEnd            (void);

G_END_DECLS
