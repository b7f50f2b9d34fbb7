/* cugi-types.h: forward declarations, so headers can name each other's types */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

typedef struct _CugiDevice         CugiDevice;
typedef struct _CugiContext        CugiContext;
typedef struct _CugiStream         CugiStream;
typedef struct _CugiEvent          CugiEvent;
typedef struct _CugiBuffer         CugiBuffer;
typedef struct _CugiHostBuffer     CugiHostBuffer;
typedef struct _CugiMemoryPool     CugiMemoryPool;
typedef struct _CugiMemoryBlock    CugiMemoryBlock;
typedef struct _CugiHostMemoryPool CugiHostMemoryPool;
typedef struct _CugiStreamOrderedPool CugiStreamOrderedPool;
typedef struct _CugiProgram        CugiProgram;
typedef struct _CugiModule         CugiModule;
typedef struct _CugiKernel         CugiKernel;
typedef struct _CugiLaunchConfig   CugiLaunchConfig;
typedef struct _CugiKernelArgs     CugiKernelArgs;
typedef struct _CugiOccupancy      CugiOccupancy;
typedef struct _CugiGraph          CugiGraph;
typedef struct _CugiGraphExec      CugiGraphExec;
typedef struct _CugiGraphNode      CugiGraphNode;
typedef struct _CugiJitOptions     CugiJitOptions;
typedef struct _CugiLinker         CugiLinker;
typedef struct _CugiArray          CugiArray;
typedef struct _CugiTexture        CugiTexture;
typedef struct _CugiSurface        CugiSurface;
typedef struct _CugiTensorMap      CugiTensorMap;
typedef struct _CugiGraphicsResource  CugiGraphicsResource;
typedef struct _CugiExternalMemory    CugiExternalMemory;
typedef struct _CugiExternalSemaphore CugiExternalSemaphore;
typedef struct _CugiPhysicalMemory    CugiPhysicalMemory;
typedef struct _CugiVirtualRange      CugiVirtualRange;
typedef struct _CugiGrowableBuffer    CugiGrowableBuffer;

G_END_DECLS
