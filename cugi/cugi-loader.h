/* cugi-loader.h: the tables through which cugi calls libcuda, libnvrtc, NVML
 * and NCCL.
 *
 * Private. Only cugi-loader.c resolves symbols; every other file calls through
 * `cugi_cuda.<entry point>` and `cugi_nvrtc.<entry point>`. The entry points are
 * named as in cuda.h, so `cugi_cuda.cuMemAlloc` expands to the versioned
 * `cuMemAlloc_v2` field whose type is taken from the toolkit header itself.
 */
#pragma once

#include <cuda.h>
#include <cudaProfiler.h>
#include <nvrtc.h>
#include <glib.h>

#include "cugi-nvml.h"
#include "cugi-nccl.h"

G_BEGIN_DECLS

/* X (entry_point, required): required ones must resolve for the driver to be
 * usable; the others are NULL on drivers that lack them and callers check. */
#define CUGI_DRIVER_ENTRY_POINTS(X) \
  X (cuInit, TRUE) \
  X (cuDriverGetVersion, TRUE) \
  X (cuGetErrorName, TRUE) \
  X (cuGetErrorString, TRUE) \
  X (cuDeviceGet, TRUE) \
  X (cuDeviceGetCount, TRUE) \
  X (cuDeviceGetName, TRUE) \
  X (cuDeviceGetUuid, TRUE) \
  X (cuDeviceTotalMem, TRUE) \
  X (cuDeviceGetAttribute, TRUE) \
  X (cuDeviceGetPCIBusId, TRUE) \
  X (cuDeviceGetByPCIBusId, TRUE) \
  X (cuDeviceCanAccessPeer, TRUE) \
  X (cuDeviceGetP2PAttribute, FALSE) \
  X (cuDeviceGetDefaultMemPool, FALSE) \
  X (cuDevicePrimaryCtxRetain, TRUE) \
  X (cuDevicePrimaryCtxRelease, TRUE) \
  X (cuDevicePrimaryCtxGetState, TRUE) \
  X (cuDevicePrimaryCtxSetFlags, TRUE) \
  X (cuDevicePrimaryCtxReset, TRUE) \
  X (cuCtxCreate, TRUE) \
  X (cuCtxDestroy, TRUE) \
  X (cuCtxPushCurrent, TRUE) \
  X (cuCtxPopCurrent, TRUE) \
  X (cuCtxGetCurrent, TRUE) \
  X (cuCtxSetCurrent, TRUE) \
  X (cuCtxGetDevice, TRUE) \
  X (cuCtxGetFlags, TRUE) \
  X (cuCtxGetApiVersion, TRUE) \
  X (cuCtxSynchronize, TRUE) \
  X (cuCtxGetLimit, TRUE) \
  X (cuCtxSetLimit, TRUE) \
  X (cuCtxGetCacheConfig, TRUE) \
  X (cuCtxSetCacheConfig, TRUE) \
  X (cuCtxGetStreamPriorityRange, TRUE) \
  X (cuCtxEnablePeerAccess, TRUE) \
  X (cuCtxDisablePeerAccess, TRUE) \
  X (cuCtxResetPersistingL2Cache, FALSE) \
  X (cuMemGetInfo, TRUE) \
  X (cuDeviceGetDevResource, FALSE) \
  X (cuDevSmResourceSplitByCount, FALSE) \
  X (cuDevResourceGenerateDesc, FALSE) \
  X (cuGreenCtxCreate, FALSE) \
  X (cuGreenCtxDestroy, FALSE) \
  X (cuCtxFromGreenCtx, FALSE) \
  X (cuCtxGetDevResource, FALSE) \
  X (cuStreamCreateWithPriority, TRUE) \
  X (cuStreamDestroy, TRUE) \
  X (cuStreamQuery, TRUE) \
  X (cuStreamSynchronize, TRUE) \
  X (cuStreamWaitEvent, TRUE) \
  X (cuStreamGetPriority, TRUE) \
  X (cuStreamGetFlags, TRUE) \
  X (cuStreamBeginCapture, TRUE) \
  X (cuStreamEndCapture, TRUE) \
  X (cuStreamIsCapturing, TRUE) \
  X (cuStreamGetCaptureInfo, FALSE) \
  X (cuLaunchHostFunc, TRUE) \
  X (cuStreamWaitValue32, FALSE) \
  X (cuStreamWriteValue32, FALSE) \
  X (cuEventCreate, TRUE) \
  X (cuEventDestroy, TRUE) \
  X (cuEventRecord, TRUE) \
  X (cuEventQuery, TRUE) \
  X (cuEventSynchronize, TRUE) \
  X (cuEventElapsedTime, TRUE) \
  X (cuIpcGetEventHandle, FALSE) \
  X (cuIpcOpenEventHandle, FALSE) \
  X (cuMemAlloc, TRUE) \
  X (cuMemAllocPitch, TRUE) \
  X (cuMemAllocManaged, TRUE) \
  X (cuMemFree, TRUE) \
  X (cuMemGetAddressRange, TRUE) \
  X (cuMemAllocHost, TRUE) \
  X (cuMemHostAlloc, TRUE) \
  X (cuMemFreeHost, TRUE) \
  X (cuMemHostGetDevicePointer, TRUE) \
  X (cuMemHostRegister, TRUE) \
  X (cuMemHostUnregister, TRUE) \
  X (cuMemcpy, TRUE) \
  X (cuMemcpyAsync, TRUE) \
  X (cuMemcpyHtoD, TRUE) \
  X (cuMemcpyDtoH, TRUE) \
  X (cuMemcpyDtoD, TRUE) \
  X (cuMemcpyHtoDAsync, TRUE) \
  X (cuMemcpyDtoHAsync, TRUE) \
  X (cuMemcpyDtoDAsync, TRUE) \
  X (cuMemcpyPeer, TRUE) \
  X (cuMemcpyPeerAsync, TRUE) \
  X (cuMemcpy2D, TRUE) \
  X (cuMemcpy2DAsync, TRUE) \
  X (cuMemcpy3D, TRUE) \
  X (cuMemcpy3DAsync, TRUE) \
  X (cuMemcpy3DPeerAsync, TRUE) \
  X (cuMemsetD8, TRUE) \
  X (cuMemsetD16, TRUE) \
  X (cuMemsetD32, TRUE) \
  X (cuMemsetD8Async, TRUE) \
  X (cuMemsetD16Async, TRUE) \
  X (cuMemsetD32Async, TRUE) \
  X (cuMemsetD2D8, TRUE) \
  X (cuMemsetD2D32, TRUE) \
  X (cuMemsetD2D8Async, TRUE) \
  X (cuMemsetD2D16Async, TRUE) \
  X (cuMemsetD2D32Async, TRUE) \
  X (cuMemPrefetchAsync, FALSE) \
  X (cuMemAdvise, FALSE) \
  X (cuPointerGetAttribute, TRUE) \
  X (cuPointerGetAttributes, TRUE) \
  X (cuIpcGetMemHandle, FALSE) \
  X (cuIpcOpenMemHandle, FALSE) \
  X (cuIpcCloseMemHandle, FALSE) \
  X (cuMemAllocAsync, FALSE) \
  X (cuMemFreeAsync, FALSE) \
  X (cuArray3DCreate, TRUE) \
  X (cuArray3DGetDescriptor, TRUE) \
  X (cuArrayDestroy, TRUE) \
  X (cuMipmappedArrayGetLevel, FALSE) \
  X (cuMipmappedArrayDestroy, FALSE) \
  X (cuTexObjectCreate, TRUE) \
  X (cuTexObjectDestroy, TRUE) \
  X (cuSurfObjectCreate, TRUE) \
  X (cuSurfObjectDestroy, TRUE) \
  X (cuTensorMapEncodeTiled, FALSE) \
  X (cuMemAllocFromPoolAsync, FALSE) \
  X (cuMemPoolCreate, FALSE) \
  X (cuMemPoolDestroy, FALSE) \
  X (cuMemPoolGetAttribute, FALSE) \
  X (cuMemPoolSetAttribute, FALSE) \
  X (cuMemPoolTrimTo, FALSE) \
  X (cuMemPoolExportToShareableHandle, FALSE) \
  X (cuMemPoolImportFromShareableHandle, FALSE) \
  X (cuMemPoolExportPointer, FALSE) \
  X (cuMemPoolImportPointer, FALSE) \
  X (cuMemGetAllocationGranularity, FALSE) \
  X (cuMemAddressReserve, FALSE) \
  X (cuMemAddressFree, FALSE) \
  X (cuMemCreate, FALSE) \
  X (cuMemRelease, FALSE) \
  X (cuMemGetAllocationPropertiesFromHandle, FALSE) \
  X (cuMemExportToShareableHandle, FALSE) \
  X (cuMemImportFromShareableHandle, FALSE) \
  X (cuMemMap, FALSE) \
  X (cuMemUnmap, FALSE) \
  X (cuMemSetAccess, FALSE) \
  X (cuMemGetAccess, FALSE) \
  X (cuStreamAttachMemAsync, FALSE) \
  X (cuModuleLoadDataEx, TRUE) \
  X (cuLinkCreate, TRUE) \
  X (cuLinkAddData, TRUE) \
  X (cuLinkAddFile, TRUE) \
  X (cuLinkComplete, TRUE) \
  X (cuLinkDestroy, TRUE) \
  X (cuModuleUnload, TRUE) \
  X (cuModuleGetFunction, TRUE) \
  X (cuModuleGetGlobal, TRUE) \
  X (cuFuncGetAttribute, TRUE) \
  X (cuFuncSetAttribute, TRUE) \
  X (cuFuncSetCacheConfig, TRUE) \
  X (cuFuncGetName, FALSE) \
  X (cuFuncGetParamInfo, FALSE) \
  X (cuLaunchKernel, TRUE) \
  X (cuLaunchKernelEx, FALSE) \
  X (cuLaunchCooperativeKernel, TRUE) \
  X (cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, TRUE) \
  X (cuOccupancyMaxPotentialBlockSizeWithFlags, TRUE) \
  X (cuOccupancyAvailableDynamicSMemPerBlock, FALSE) \
  X (cuOccupancyMaxPotentialClusterSize, FALSE) \
  X (cuOccupancyMaxActiveClusters, FALSE) \
  X (cuGraphDestroy, TRUE) \
  X (cuGraphInstantiateWithFlags, TRUE) \
  X (cuGraphExecDestroy, TRUE) \
  X (cuGraphLaunch, TRUE) \
  X (cuGraphUpload, FALSE) \
  X (cuGraphGetNodes, TRUE) \
  X (cuGraphNodeGetType, TRUE) \
  X (cuGraphKernelNodeGetParams, TRUE) \
  X (cuGraphExecKernelNodeSetParams, TRUE) \
  X (cuGraphExecUpdate, TRUE) \
  X (cuGraphCreate, FALSE) \
  X (cuGraphAddKernelNode, FALSE) \
  X (cuGraphAddMemsetNode, FALSE) \
  X (cuGraphAddMemcpyNode, FALSE) \
  X (cuGraphAddHostNode, FALSE) \
  X (cuGraphAddEventRecordNode, FALSE) \
  X (cuGraphAddEventWaitNode, FALSE) \
  X (cuGraphAddChildGraphNode, FALSE) \
  X (cuGraphAddEmptyNode, FALSE) \
  X (cuGraphAddMemAllocNode, FALSE) \
  X (cuGraphAddMemFreeNode, FALSE) \
  X (cuGraphAddNode, FALSE) \
  X (cuGraphConditionalHandleCreate, FALSE) \
  X (cuGraphNodeSetEnabled, FALSE) \
  X (cuGraphNodeGetEnabled, FALSE) \
  X (cuProfilerStart, FALSE) \
  X (cuProfilerStop, FALSE) \
  X (cuGraphicsGLRegisterBuffer, FALSE) \
  X (cuGraphicsGLRegisterImage, FALSE) \
  X (cuGraphicsEGLRegisterImage, FALSE) \
  X (cuGraphicsMapResources, FALSE) \
  X (cuGraphicsUnmapResources, FALSE) \
  X (cuGraphicsResourceGetMappedPointer, FALSE) \
  X (cuGraphicsSubResourceGetMappedArray, FALSE) \
  X (cuGraphicsResourceGetMappedEglFrame, FALSE) \
  X (cuGraphicsUnregisterResource, FALSE) \
  X (cuImportExternalMemory, FALSE) \
  X (cuExternalMemoryGetMappedBuffer, FALSE) \
  X (cuExternalMemoryGetMappedMipmappedArray, FALSE) \
  X (cuDestroyExternalMemory, FALSE) \
  X (cuImportExternalSemaphore, FALSE) \
  X (cuSignalExternalSemaphoresAsync, FALSE) \
  X (cuWaitExternalSemaphoresAsync, FALSE) \
  X (cuDestroyExternalSemaphore, FALSE) \
  X (cuMemGetHandleForAddressRange, FALSE)

/* The GL and EGL entry points of libcuda, which cudaGL.h and cudaEGL.h
 * declare with the types of GL/gl.h and EGL/egl.h: declared here with what
 * those types are (GLuint and GLenum: unsigned int; EGLImageKHR: a
 * pointer), so that cugi builds without GL or EGL headers and links
 * neither. Their ABI versions are the loader's (cugi-loader.c). */
CUresult CUDAAPI cuGraphicsGLRegisterBuffer (CUgraphicsResource *resource,
                                             unsigned int        buffer,
                                             unsigned int        flags);
CUresult CUDAAPI cuGraphicsGLRegisterImage  (CUgraphicsResource *resource,
                                             unsigned int        image,
                                             unsigned int        target,
                                             unsigned int        flags);
CUresult CUDAAPI cuGraphicsEGLRegisterImage (CUgraphicsResource *resource,
                                             void               *image,
                                             unsigned int        flags);

/* CUeglFrame (cudaEGL.h), its enums as the ints they are: the planes of a
 * registered EGL image, as arrays or as pitch-linear memory. */
#define CUGI_EGL_FRAME_TYPE_ARRAY 0
#define CUGI_EGL_FRAME_TYPE_PITCH 1
typedef struct
{
  union
  {
    CUarray pArray[3];
    void   *pPitch[3];
  } frame;
  unsigned int   width;
  unsigned int   height;
  unsigned int   depth;
  unsigned int   pitch;
  unsigned int   planeCount;
  unsigned int   numChannels;
  int            frameType;
  int            eglColorFormat;
  CUarray_format cuFormat;
} CugiEglFrame;

CUresult CUDAAPI cuGraphicsResourceGetMappedEglFrame (CugiEglFrame       *frame,
                                                      CUgraphicsResource  resource,
                                                      unsigned int        index,
                                                      unsigned int        level);

#define CUGI_NVRTC_ENTRY_POINTS(X) \
  X (nvrtcVersion, TRUE) \
  X (nvrtcGetErrorString, TRUE) \
  X (nvrtcGetNumSupportedArchs, TRUE) \
  X (nvrtcGetSupportedArchs, TRUE) \
  X (nvrtcCreateProgram, TRUE) \
  X (nvrtcDestroyProgram, TRUE) \
  X (nvrtcCompileProgram, TRUE) \
  X (nvrtcGetProgramLogSize, TRUE) \
  X (nvrtcGetProgramLog, TRUE) \
  X (nvrtcGetPTXSize, TRUE) \
  X (nvrtcGetPTX, TRUE) \
  X (nvrtcGetCUBINSize, TRUE) \
  X (nvrtcGetCUBIN, TRUE) \
  X (nvrtcAddNameExpression, TRUE) \
  X (nvrtcGetLoweredName, TRUE)

/* NVML, for device telemetry (cugi-device-telemetry.c): every entry point
 * is there in the drivers cugi supports, so all are required. */
#define CUGI_NVML_ENTRY_POINTS(X) \
  X (nvmlInit_v2, TRUE) \
  X (nvmlErrorString, TRUE) \
  X (nvmlDeviceGetHandleByPciBusId_v2, TRUE) \
  X (nvmlDeviceGetTemperature, TRUE) \
  X (nvmlDeviceGetPowerUsage, TRUE) \
  X (nvmlDeviceGetClockInfo, TRUE) \
  X (nvmlDeviceGetUtilizationRates, TRUE) \
  X (nvmlDeviceGetComputeRunningProcesses_v3, TRUE) \
  X (nvmlDeviceGetCurrPcieLinkGeneration, TRUE) \
  X (nvmlDeviceGetCurrPcieLinkWidth, TRUE) \
  X (nvmlDeviceGetMaxPcieLinkGeneration, TRUE) \
  X (nvmlDeviceGetMaxPcieLinkWidth, TRUE) \
  X (nvmlDeviceGetPcieThroughput, TRUE) \
  X (nvmlDeviceGetNvLinkState, TRUE)

/* NCCL, for communicators (cugi-communicator.c): all but the last three
 * are there from NCCL 2.18 on, the oldest cugi takes; all-to-all, gather
 * and scatter came in 2.28 (before it, cugi pairs sends and receives). */
#define CUGI_NCCL_ENTRY_POINTS(X) \
  X (ncclGetVersion, TRUE) \
  X (ncclGetUniqueId, TRUE) \
  X (ncclCommInitRankConfig, TRUE) \
  X (ncclCommSplit, TRUE) \
  X (ncclCommFinalize, TRUE) \
  X (ncclCommDestroy, TRUE) \
  X (ncclCommAbort, TRUE) \
  X (ncclGetErrorString, TRUE) \
  X (ncclGetLastError, TRUE) \
  X (ncclCommGetAsyncError, TRUE) \
  X (ncclCommCount, TRUE) \
  X (ncclCommCuDevice, TRUE) \
  X (ncclCommUserRank, TRUE) \
  X (ncclCommRegister, TRUE) \
  X (ncclCommDeregister, TRUE) \
  X (ncclMemAlloc, TRUE) \
  X (ncclMemFree, TRUE) \
  X (ncclAllReduce, TRUE) \
  X (ncclBroadcast, TRUE) \
  X (ncclReduce, TRUE) \
  X (ncclAllGather, TRUE) \
  X (ncclReduceScatter, TRUE) \
  X (ncclSend, TRUE) \
  X (ncclRecv, TRUE) \
  X (ncclRedOpCreatePreMulSum, TRUE) \
  X (ncclRedOpDestroy, TRUE) \
  X (ncclGroupStart, TRUE) \
  X (ncclGroupEnd, TRUE) \
  X (ncclAlltoAll, FALSE) \
  X (ncclGather, FALSE) \
  X (ncclScatter, FALSE)

#define CUGI_LOADER_FIELD(entry_point, required) __typeof__ (entry_point) *entry_point;

typedef struct
{
  CUGI_DRIVER_ENTRY_POINTS (CUGI_LOADER_FIELD)
} CugiDriverTable;

typedef struct
{
  CUGI_NVRTC_ENTRY_POINTS (CUGI_LOADER_FIELD)
} CugiNvrtcTable;

typedef struct
{
  CUGI_NVML_ENTRY_POINTS (CUGI_LOADER_FIELD)
} CugiNvmlTable;

typedef struct
{
  CUGI_NCCL_ENTRY_POINTS (CUGI_LOADER_FIELD)
} CugiNcclTable;

/* Valid once cugi_loader_load_driver() / cugi_loader_load_nvrtc() /
 * cugi_loader_load_nvml() returned TRUE. */
extern CugiDriverTable cugi_cuda;
extern CugiNvrtcTable cugi_nvrtc;
extern CugiNvmlTable cugi_nvml;
extern CugiNcclTable cugi_nccl;

gboolean     cugi_loader_load_driver      (GError **error);
gboolean     cugi_loader_load_nvrtc       (GError **error);
/* Loads NVML (libnvidia-ml.so.1, or what CUGI_LIBNVML names) and
 * initializes it, once per process, as the driver is. */
gboolean     cugi_loader_load_nvml        (GError **error);
const char  *cugi_loader_get_nvml_path    (void);
/* Loads NCCL (libnccl.so.2, or what CUGI_LIBNCCL names), once per process;
 * NOT_AVAILABLE where it is missing or older than 2.18. */
gboolean     cugi_loader_load_nccl        (GError **error);
const char  *cugi_loader_get_nccl_path    (void);
/* NCCL_VERSION (2, 28, 0), from which ncclAlltoAll, ncclGather and
 * ncclScatter are called, and (2, 24, 0), from which FP8 is taken. */
#define CUGI_NCCL_VERSION_ALL_TO_ALL 22800
#define CUGI_NCCL_VERSION_FLOAT8 22400
/* NCCL's version code (22809 for 2.28.9) once loaded, else 0. */
int          cugi_loader_get_nccl_version (void);
int          cugi_loader_get_driver_version (void);
int          cugi_loader_get_nvrtc_version (void);
const char  *cugi_loader_get_driver_path  (void);
const char  *cugi_loader_get_nvrtc_path   (void);
const char  *cugi_loader_get_nvrtc_identity (GError **error);
/* The path of @file_name in the CUDA toolkit's library directory, searched
 * where NVRTC is ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda: lib64/), or NULL
 * when none has it (libcudadevrt.a for the linker). */
char        *cugi_loader_find_toolkit_file (const char *file_name);

/* FALSE with CUGI_ERROR_NOT_SUPPORTED naming @entry_point unless @present:
 * for the optional entry points, which are NULL in cugi_cuda on drivers
 * that lack them: CUGI_REQUIRE_ENTRY_POINT (cuImportExternalMemory, error). */
gboolean     cugi_loader_require          (gboolean     present,
                                           const char  *entry_point,
                                           GError     **error);
#define CUGI_REQUIRE_ENTRY_POINT(entry_point, error) \
  cugi_loader_require (cugi_cuda.entry_point != NULL, #entry_point, (error))

/* The driver's own name and text for a result, or NULL when the driver is not
 * loaded (cugi-error.c then falls back on its table). */
const char  *cugi_loader_result_name      (CUresult result);
const char  *cugi_loader_result_string    (CUresult result);

G_END_DECLS
