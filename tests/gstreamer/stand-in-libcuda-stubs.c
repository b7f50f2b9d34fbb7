/* stand-in-libcuda-stubs.c: the entry points of stand-in-libcuda.c that the
 * tests never reach (graphics interop, IPC, textures, 2D memsets), which
 * GStreamer's CUDA library 1.22 to 1.26 nonetheless takes when it opens the
 * driver: each answers CUDA_ERROR_NOT_SUPPORTED whatever its arguments.
 * Deliberately without cuda.h, whose prototypes they do not follow; the
 * optional entry points (virtual memory, stream-ordered allocation,
 * external memory) are left out, so that libgstcuda does without them. */
#define EXPORT __attribute__((visibility ("default")))
/* CUDA_ERROR_NOT_SUPPORTED */
#define STUB(name) EXPORT int name (void) { return 801; }

STUB (cuGLGetDevices_v2)
STUB (cuGraphicsGLRegisterBuffer)
STUB (cuGraphicsGLRegisterImage)
STUB (cuGraphicsMapResources)
STUB (cuGraphicsResourceGetMappedPointer_v2)
STUB (cuGraphicsResourceSetMapFlags_v2)
STUB (cuGraphicsSubResourceGetMappedArray)
STUB (cuGraphicsUnmapResources)
STUB (cuGraphicsUnregisterResource)
STUB (cuIpcCloseMemHandle)
STUB (cuIpcGetEventHandle)
STUB (cuIpcGetMemHandle)
STUB (cuIpcOpenEventHandle)
STUB (cuIpcOpenMemHandle)
STUB (cuMemsetD2D16Async)
STUB (cuMemsetD2D16_v2)
STUB (cuMemsetD2D32Async)
STUB (cuMemsetD2D32_v2)
STUB (cuMemsetD2D8Async)
STUB (cuMemsetD2D8_v2)
STUB (cuTexObjectCreate)
STUB (cuTexObjectDestroy)
