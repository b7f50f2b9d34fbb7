/* fake-cuda-graphics.c: graphics interoperability, external memory and
 * semaphores and dma-buf export of the stand-in libcuda of
 * fake-cuda-streams.c, which looks their entry points up here
 * (fake_cuda_graphics_lookup()).
 *
 * GL has no stand-in of its own: a test makes GL buffers, textures and
 * renderbuffers here (fake_cuda_graphics_gl_buffer_new(),
 * fake_cuda_graphics_gl_image_new()), under names as GL gives them, and
 * reads back what CUDA wrote into them as GL would. A test whose GL is real
 * (GTK's, Mesa's under Xvfb) has the stand-in adopt that GL's 2D textures
 * (fake_cuda_graphics_adopt_gl_images()): a name it does not know, when
 * registered, becomes a texture of its own of the size the test gave, which
 * the test reads back by the name (fake_cuda_graphics_gl_last_image()): what
 * a texture shows is then CUDA's writes into the stand-in's, not the real
 * GL's. An EGL image is one of
 * those objects' addresses (fake_cuda_graphics_egl_image()); as CUDA does,
 * the stand-in gives an EGL image's memory from its registration on
 * (cuGraphicsResourceGetMappedEglFrame), and refuses to map it (it is
 * mapped already) or unmap it. Whether a GL
 * context is current is the test's to say (fake_cuda_graphics_set_gl_current()):
 * without one, registering, mapping and unmapping fail as CUDA's do. A
 * registered resource checks its state: a second map, an unmap of what is
 * not mapped, the memory of what is not mapped, an array of a buffer and a
 * pointer of an image fail with CUDA's errors. A mapped buffer's memory is
 * device memory in fake-cuda-streams' table while mapped; a texture's
 * sub-resources are arrays of fake-cuda-arrays.c, made with the texture.
 *
 * External memory is the memory of its file descriptor, mapped (memfds
 * stand for Vulkan's opaque file descriptors), or, for a dma-buf this
 * stand-in exported, the device memory it was exported from: writes through
 * one are seen through the other. A descriptor that is not open, or smaller
 * than the size asked for, is refused; an import owns its descriptor and
 * closes it when destroyed, as CUDA does. Mipmapped arrays are arrays of
 * their own (their data does not alias the memory).
 *
 * Semaphores are keyed by their file's identity (device and inode), so that
 * the test holding another descriptor of the same file is the other side:
 * it signals with fake_cuda_graphics_semaphore_signal() and reads the state
 * with fake_cuda_graphics_semaphore_value(). CUDA's signals and waits are
 * host functions on their streams, in stream order: a wait holds its stream
 * until the semaphore is signalled (binary, which the wait consumes) or
 * reaches the value (timeline). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda.h>

#include "fake-cuda-arrays.h"
#include "fake-cuda-graphics.h"

#define EXPORT __attribute__((visibility ("default")))

#define GL_RENDERBUFFER 0x8D41
#define MAX_GL_OBJECTS 64
#define MAX_SUBRESOURCES 64

typedef struct
{
  int            image;        /* a texture or renderbuffer, else a buffer */
  unsigned int   target;
  unsigned char *memory;       /* a buffer's */
  size_t         size;
  unsigned int   layers, levels;
  CUarray        arrays[MAX_SUBRESOURCES];  /* an image's, layer by layer, level by level */
} FakeGlObject;

typedef struct
{
  FakeGlObject *object;
  unsigned int  flags;
  int           mapped;
  int           egl;           /* an EGL image's: mapped from its registration on */
} FakeResource;

/* CUeglFrame (cudaEGL.h, which needs EGL's headers). */
typedef struct
{
  union
  {
    CUarray pArray[3];
    void   *pPitch[3];
  } frame;
  unsigned int   width, height, depth, pitch, planeCount, numChannels;
  int            frameType;    /* 0: arrays, 1: pitch-linear */
  int            eglColorFormat;
  CUarray_format cuFormat;
} FakeEglFrame;

typedef struct
{
  unsigned char *base;
  size_t         size;
  int            fd;
  int            mapped;       /* base is an mmap() of fd */
} FakeExternalMemory;

typedef struct
{
  unsigned int n_levels;
  CUarray      levels[16];
} FakeMipmap;

typedef struct FakeSemaphoreState FakeSemaphoreState;

struct FakeSemaphoreState
{
  FakeSemaphoreState *next;
  dev_t               device;
  ino_t               inode;
  unsigned long long  value;   /* timeline: the counter; binary: 1 while signalled */
};

typedef struct
{
  FakeSemaphoreState *state;
  int                 timeline;
  int                 fd;
} FakeSemaphore;

typedef struct FakeExport FakeExport;

struct FakeExport
{
  FakeExport    *next;
  dev_t          device;
  ino_t          inode;
  unsigned char *start;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static FakeGlObject *gl_objects[MAX_GL_OBJECTS + 1];  /* by name; 0 is none */
static int gl_not_current;
static struct { size_t width, height; CUarray_format format; unsigned int channels; } adopted;
static unsigned int last_image;
static int dma_buf_unsupported;
static int live_resources, live_mapped, live_memories, live_mipmaps, live_semaphores;
static FakeSemaphoreState *semaphore_states;
static FakeExport *exports;

static void *
driver (const char *symbol)
{
  void *function = NULL;

  cuGetProcAddress_v2 (symbol, &function, CUDA_VERSION, 0, NULL);
  return function;
}

/* ---- what tests steer and read ---------------------------------------------- */

static unsigned int
gl_object_add (FakeGlObject *object)
{
  for (unsigned int name = 1; name <= MAX_GL_OBJECTS; name++)
    if (gl_objects[name] == NULL)
      {
        gl_objects[name] = object;
        return name;
      }
  free (object);
  return 0;
}

/* A GL buffer object of @size bytes, zeroed: its name. */
EXPORT unsigned int
fake_cuda_graphics_gl_buffer_new (size_t size)
{
  FakeGlObject *object = calloc (1, sizeof *object);

  object->memory = calloc (1, size);
  object->size = size;
  return gl_object_add (object);
}

/* A GL texture of @target (GL_RENDERBUFFER: a renderbuffer) with @layers
 * layers (cube faces) of @levels mipmap levels, the base level @width ×
 * @height elements of @channels channels of @format: its name. */
static FakeGlObject *
image_object_new (unsigned int target, unsigned int layers, unsigned int levels,
                  size_t width, size_t height, CUarray_format format, unsigned int channels)
{
  CUresult (*create) (CUarray *, const CUDA_ARRAY3D_DESCRIPTOR *) = driver ("cuArray3DCreate");
  FakeGlObject *object;

  if (layers * levels > MAX_SUBRESOURCES)
    return NULL;
  object = calloc (1, sizeof *object);
  object->image = 1;
  object->target = target;
  object->layers = layers;
  object->levels = levels;
  for (unsigned int layer = 0; layer < layers; layer++)
    for (unsigned int level = 0; level < levels; level++)
      {
        CUDA_ARRAY3D_DESCRIPTOR desc = {
          .Width = width >> level > 0 ? width >> level : 1,
          .Height = height >> level > 0 ? height >> level : 1,
          .Format = format,
          .NumChannels = channels,
        };

        create (&object->arrays[layer * levels + level], &desc);
      }
  return object;
}

EXPORT unsigned int
fake_cuda_graphics_gl_image_new (unsigned int target, unsigned int layers, unsigned int levels,
                                 size_t width, size_t height, CUarray_format format, unsigned int channels)
{
  FakeGlObject *object = image_object_new (target, layers, levels, width, height, format, channels);

  return object != NULL ? gl_object_add (object) : 0;
}

/* From now on, a 2D texture of a name the stand-in does not know, when
 * registered, becomes one of its own of @width × @height elements of
 * @channels channels of @format (@width 0: no more). */
EXPORT void
fake_cuda_graphics_adopt_gl_images (size_t width, size_t height, CUarray_format format, unsigned int channels)
{
  pthread_mutex_lock (&lock);
  adopted.width = width;
  adopted.height = height;
  adopted.format = format;
  adopted.channels = channels;
  pthread_mutex_unlock (&lock);
}

/* The name of the GL image registered last, 0 for none. */
EXPORT unsigned int
fake_cuda_graphics_gl_last_image (void)
{
  return __atomic_load_n (&last_image, __ATOMIC_ACQUIRE);
}

/* Deletes GL object @name (glDeleteBuffers(), glDeleteTextures()). */
EXPORT void
fake_cuda_graphics_gl_delete (unsigned int name)
{
  CUresult (*destroy) (CUarray) = driver ("cuArrayDestroy");
  FakeGlObject *object = gl_objects[name];

  gl_objects[name] = NULL;
  for (unsigned int i = 0; i < object->layers * object->levels; i++)
    destroy (object->arrays[i]);
  free (object->memory);
  free (object);
}

/* What GL reads of buffer @name: its memory (its size in *@size). */
EXPORT unsigned char *
fake_cuda_graphics_gl_buffer_data (unsigned int name, size_t *size)
{
  *size = gl_objects[name]->size;
  return gl_objects[name]->memory;
}

/* What GL reads of layer @layer, level @level of image @name
 * (glReadPixels()): its elements, packed, into @out. */
EXPORT CUresult
fake_cuda_graphics_gl_image_read (unsigned int name, unsigned int layer, unsigned int level, void *out,
                                  size_t row_bytes, size_t rows)
{
  CUresult (*copy) (const CUDA_MEMCPY3D *) = driver ("cuMemcpy3D");
  CUDA_MEMCPY3D description = {
    .srcMemoryType = CU_MEMORYTYPE_ARRAY,
    .srcArray = gl_objects[name]->arrays[layer * gl_objects[name]->levels + level],
    .dstMemoryType = CU_MEMORYTYPE_HOST,
    .dstHost = out,
    .dstPitch = row_bytes,
    .dstHeight = rows,
    .WidthInBytes = row_bytes,
    .Height = rows,
    .Depth = 1,
  };

  return copy (&description);
}

/* The EGL image of GL object @name (eglCreateImageKHR()). */
EXPORT void *
fake_cuda_graphics_egl_image (unsigned int name)
{
  return gl_objects[name];
}

/* Whether a GL context is current (@current non-zero, the default). */
EXPORT void
fake_cuda_graphics_set_gl_current (int current)
{
  __atomic_store_n (&gl_not_current, !current, __ATOMIC_RELEASE);
}

/* Whether devices export dma-bufs (@supported non-zero, the default). */
EXPORT void
fake_cuda_graphics_support_dma_buf (int supported)
{
  __atomic_store_n (&dma_buf_unsupported, !supported, __ATOMIC_RELEASE);
}

int
fake_cuda_graphics_dma_buf_supported (void)
{
  return !__atomic_load_n (&dma_buf_unsupported, __ATOMIC_ACQUIRE);
}

/* How many registered resources (and of them mapped ones), imported
 * memories, mipmapped arrays and semaphores live now. */
EXPORT void
fake_cuda_graphics_get_counts (int *resources, int *mapped, int *memories, int *mipmaps, int *semaphores)
{
  pthread_mutex_lock (&lock);
  *resources = live_resources;
  *mapped = live_mapped;
  *memories = live_memories;
  *mipmaps = live_mipmaps;
  *semaphores = live_semaphores;
  pthread_mutex_unlock (&lock);
}

/* ---- graphics resources ----------------------------------------------------- */

static FakeGlObject *
gl_object_find (unsigned int name)
{
  return name > 0 && name <= MAX_GL_OBJECTS ? gl_objects[name] : NULL;
}

/* Every registered resource, so that those a context reset leaves behind
 * (the driver frees them with the context; the stand-in does not) stay
 * reachable for the leak checkers. */
#define MAX_RESOURCES 1024
static FakeResource *registered[MAX_RESOURCES];

static void
remember_resource (FakeResource *resource, FakeResource *old)
{
  for (unsigned int i = 0; i < MAX_RESOURCES; i++)
    if (registered[i] == old)
      {
        registered[i] = resource;
        return;
      }
}

static void
set_mapped (FakeResource *resource, int map)
{
  resource->mapped = map;
  pthread_mutex_lock (&lock);
  live_mapped += map ? 1 : -1;
  pthread_mutex_unlock (&lock);
  /* While mapped, a buffer's memory is device memory. */
  if (!resource->object->image && map)
    fake_cuda_streams_add_external (resource->object->memory, resource->object->size);
  else if (!resource->object->image)
    fake_cuda_streams_remove_external (resource->object->memory);
}

static CUresult
resource_new (CUgraphicsResource *handle, FakeGlObject *object, unsigned int flags)
{
  FakeResource *resource;

  if (__atomic_load_n (&gl_not_current, __ATOMIC_ACQUIRE))
    return CUDA_ERROR_INVALID_GRAPHICS_CONTEXT;
  if (object == NULL || handle == NULL || flags > 0xf ||
      (!object->image && (flags & (CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST |
                                   CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER))))
    return CUDA_ERROR_INVALID_VALUE;
  /* An image's arrays can do what it was registered for. */
  for (unsigned int i = 0; i < object->layers * object->levels; i++)
    fake_cuda_arrays_set_flags (object->arrays[i],
                                ((flags & CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST) ? CUDA_ARRAY3D_SURFACE_LDST : 0) |
                                ((flags & CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER) ? CUDA_ARRAY3D_TEXTURE_GATHER : 0));
  resource = calloc (1, sizeof *resource);
  resource->object = object;
  resource->flags = flags;
  pthread_mutex_lock (&lock);
  remember_resource (resource, NULL);
  live_resources++;
  pthread_mutex_unlock (&lock);
  *handle = (CUgraphicsResource) resource;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuGraphicsGLRegisterBuffer (CUgraphicsResource *handle, unsigned int buffer, unsigned int flags)
{
  FakeGlObject *object = gl_object_find (buffer);

  return resource_new (handle, object != NULL && !object->image ? object : NULL, flags);
}

#define GL_TEXTURE_2D 0x0DE1

static CUresult
fake_cuGraphicsGLRegisterImage (CUgraphicsResource *handle, unsigned int image, unsigned int target,
                                unsigned int flags)
{
  FakeGlObject *object = gl_object_find (image);
  CUresult result;

  pthread_mutex_lock (&lock);
  if (object == NULL && adopted.width > 0 && target == GL_TEXTURE_2D && image > 0 && image <= MAX_GL_OBJECTS)
    object = gl_objects[image] = image_object_new (target, 1, 1, adopted.width, adopted.height,
                                                   adopted.format, adopted.channels);
  pthread_mutex_unlock (&lock);
  result = resource_new (handle, object != NULL && object->image && object->target == target ? object : NULL,
                         flags);
  if (result == CUDA_SUCCESS)
    __atomic_store_n (&last_image, image, __ATOMIC_RELEASE);
  return result;
}

static CUresult
fake_cuGraphicsEGLRegisterImage (CUgraphicsResource *handle, void *image, unsigned int flags)
{
  for (unsigned int name = 1; name <= MAX_GL_OBJECTS; name++)
    if (gl_objects[name] != NULL && gl_objects[name] == image)
      {
        CUresult result = resource_new (handle, image, flags);

        if (result == CUDA_SUCCESS)
          {
            ((FakeResource *) *handle)->egl = 1;
            set_mapped ((FakeResource *) *handle, 1);
          }
        return result;
      }
  return CUDA_ERROR_INVALID_VALUE;
}

/* Plane 0 of an EGL image: a texture's arrays, or a buffer's memory as one
 * row. */
static CUresult
fake_cuGraphicsResourceGetMappedEglFrame (FakeEglFrame *frame, CUgraphicsResource handle, unsigned int index,
                                          unsigned int level)
{
  FakeResource *resource = (FakeResource *) handle;
  FakeGlObject *object;

  if (resource == NULL || frame == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!resource->egl)
    return CUDA_ERROR_NOT_MAPPED;
  object = resource->object;
  memset (frame, 0, sizeof *frame);
  frame->planeCount = 1;
  frame->depth = 1;
  if (!object->image)
    {
      if (index != 0 || level != 0)
        return CUDA_ERROR_INVALID_VALUE;
      frame->frameType = 1;
      frame->frame.pPitch[0] = object->memory;
      frame->width = frame->pitch = object->size;
      frame->height = 1;
      return CUDA_SUCCESS;
    }
  if (index >= object->layers || level >= object->levels)
    return CUDA_ERROR_INVALID_VALUE;
  frame->frameType = 0;
  frame->frame.pArray[0] = object->arrays[index * object->levels + level];
  return CUDA_SUCCESS;
}

/* Maps or unmaps each of @resources; every one must be in the other state.
 * An EGL image is mapped from its registration to its end, and what CUDA
 * says of mapping one is CUDA_ERROR_UNKNOWN. */
static CUresult
map_resources (unsigned int count, CUgraphicsResource *resources, int map)
{
  if (__atomic_load_n (&gl_not_current, __ATOMIC_ACQUIRE))
    return CUDA_ERROR_INVALID_GRAPHICS_CONTEXT;
  for (unsigned int i = 0; i < count; i++)
    if (resources[i] == NULL)
      return CUDA_ERROR_INVALID_HANDLE;
    else if (((FakeResource *) resources[i])->egl)
      return CUDA_ERROR_UNKNOWN;
    else if (((FakeResource *) resources[i])->mapped == map)
      return map ? CUDA_ERROR_ALREADY_MAPPED : CUDA_ERROR_NOT_MAPPED;
  for (unsigned int i = 0; i < count; i++)
    set_mapped ((FakeResource *) resources[i], map);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuGraphicsMapResources (unsigned int count, CUgraphicsResource *resources, CUstream stream)
{
  (void) stream;
  return map_resources (count, resources, 1);
}

static CUresult
fake_cuGraphicsUnmapResources (unsigned int count, CUgraphicsResource *resources, CUstream stream)
{
  CUresult (*synchronize) (CUstream) = driver ("cuStreamSynchronize");
  CUresult result = map_resources (count, resources, 0);

  /* CUDA's work on @stream before the unmap is done before graphics work
   * issued after it: here, graphics work is a test reading a GL object at
   * once, so the unmap waits for the stream. */
  return result == CUDA_SUCCESS ? synchronize (stream) : result;
}

static CUresult
fake_cuGraphicsResourceGetMappedPointer (CUdeviceptr *address, size_t *size, CUgraphicsResource handle)
{
  FakeResource *resource = (FakeResource *) handle;

  if (resource == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!resource->mapped)
    return CUDA_ERROR_NOT_MAPPED;
  if (resource->object->image)
    return CUDA_ERROR_NOT_MAPPED_AS_POINTER;
  *address = (CUdeviceptr) (uintptr_t) resource->object->memory;
  *size = resource->object->size;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuGraphicsSubResourceGetMappedArray (CUarray *array, CUgraphicsResource handle, unsigned int index,
                                          unsigned int level)
{
  FakeResource *resource = (FakeResource *) handle;

  if (resource == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!resource->mapped)
    return CUDA_ERROR_NOT_MAPPED;
  if (!resource->object->image)
    return CUDA_ERROR_NOT_MAPPED_AS_ARRAY;
  if (index >= resource->object->layers || level >= resource->object->levels)
    return CUDA_ERROR_INVALID_VALUE;
  *array = resource->object->arrays[index * resource->object->levels + level];
  return CUDA_SUCCESS;
}

/* A mapped resource is unmapped first, as CUDA does. */
static CUresult
fake_cuGraphicsUnregisterResource (CUgraphicsResource handle)
{
  FakeResource *resource = (FakeResource *) handle;

  if (resource == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  if (resource->mapped)
    set_mapped (resource, 0);
  pthread_mutex_lock (&lock);
  live_resources--;
  remember_resource (NULL, resource);
  pthread_mutex_unlock (&lock);
  free (resource);
  return CUDA_SUCCESS;
}

/* ---- external memory -------------------------------------------------------- */

/* The file size of @fd, or -1 when it is not open. */
static off_t
fd_size (int fd, struct stat *info)
{
  if (fcntl (fd, F_GETFD) < 0 || fstat (fd, info) != 0)
    return -1;
  return info->st_size;
}

static CUresult
fake_cuImportExternalMemory (CUexternalMemory *handle, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *desc)
{
  FakeExternalMemory *memory;
  unsigned char *exported = NULL;
  struct stat info;
  off_t size;

  if (desc == NULL || (desc->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD &&
                       desc->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD) ||
      desc->size == 0 || (desc->flags & ~CUDA_EXTERNAL_MEMORY_DEDICATED) != 0 ||
      (size = fd_size (desc->handle.fd, &info)) < 0 || (unsigned long long) size < desc->size)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  for (FakeExport *export = exports; export != NULL && desc->type == CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD;
       export = export->next)
    if (export->device == info.st_dev && export->inode == info.st_ino)
      exported = export->start;
  pthread_mutex_unlock (&lock);
  memory = calloc (1, sizeof *memory);
  memory->size = desc->size;
  memory->fd = desc->handle.fd;
  memory->base = exported;
  if (memory->base == NULL)
    {
      memory->base = mmap (NULL, desc->size, PROT_READ | PROT_WRITE, MAP_SHARED, desc->handle.fd, 0);
      memory->mapped = 1;
      if (memory->base == MAP_FAILED)
        {
          free (memory);
          return CUDA_ERROR_INVALID_VALUE;
        }
    }
  __atomic_add_fetch (&live_memories, 1, __ATOMIC_SEQ_CST);
  *handle = (CUexternalMemory) memory;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuExternalMemoryGetMappedBuffer (CUdeviceptr *address, CUexternalMemory handle,
                                      const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *desc)
{
  FakeExternalMemory *memory = (FakeExternalMemory *) handle;
  CUresult result;

  if (memory == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  if (desc->size == 0 || desc->offset > memory->size || desc->size > memory->size - desc->offset)
    return CUDA_ERROR_INVALID_VALUE;
  if ((result = fake_cuda_streams_add_external (memory->base + desc->offset, desc->size)) != CUDA_SUCCESS)
    return result;
  *address = (CUdeviceptr) (uintptr_t) (memory->base + desc->offset);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuExternalMemoryGetMappedMipmappedArray (CUmipmappedArray *handle, CUexternalMemory memory_handle,
                                              const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *desc)
{
  CUresult (*create) (CUarray *, const CUDA_ARRAY3D_DESCRIPTOR *) = driver ("cuArray3DCreate");
  FakeExternalMemory *memory = (FakeExternalMemory *) memory_handle;
  FakeMipmap *mipmap;

  if (memory == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  if (desc->numLevels == 0 || desc->numLevels > 16 || desc->offset >= memory->size)
    return CUDA_ERROR_INVALID_VALUE;
  mipmap = calloc (1, sizeof *mipmap);
  for (unsigned int level = 0; level < desc->numLevels; level++)
    {
      CUDA_ARRAY3D_DESCRIPTOR level_desc = desc->arrayDesc;
      CUresult result;

      level_desc.Width = level_desc.Width >> level > 0 ? level_desc.Width >> level : 1;
      if (level_desc.Height > 0)
        level_desc.Height = level_desc.Height >> level > 0 ? level_desc.Height >> level : 1;
      if ((result = create (&mipmap->levels[level], &level_desc)) != CUDA_SUCCESS)
        {
          CUresult (*destroy) (CUarray) = driver ("cuArrayDestroy");

          while (level-- > 0)
            destroy (mipmap->levels[level]);
          free (mipmap);
          return result;
        }
      mipmap->n_levels++;
    }
  __atomic_add_fetch (&live_mipmaps, 1, __ATOMIC_SEQ_CST);
  *handle = (CUmipmappedArray) mipmap;
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMipmappedArrayGetLevel (CUarray *array, CUmipmappedArray handle, unsigned int level)
{
  FakeMipmap *mipmap = (FakeMipmap *) handle;

  if (mipmap == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  if (level >= mipmap->n_levels)
    return CUDA_ERROR_INVALID_VALUE;
  *array = mipmap->levels[level];
  return CUDA_SUCCESS;
}

static CUresult
fake_cuMipmappedArrayDestroy (CUmipmappedArray handle)
{
  CUresult (*destroy) (CUarray) = driver ("cuArrayDestroy");
  FakeMipmap *mipmap = (FakeMipmap *) handle;

  if (mipmap == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  for (unsigned int level = 0; level < mipmap->n_levels; level++)
    destroy (mipmap->levels[level]);
  free (mipmap);
  __atomic_sub_fetch (&live_mipmaps, 1, __ATOMIC_SEQ_CST);
  return CUDA_SUCCESS;
}

static CUresult
fake_cuDestroyExternalMemory (CUexternalMemory handle)
{
  FakeExternalMemory *memory = (FakeExternalMemory *) handle;

  if (memory == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  if (memory->mapped)
    munmap (memory->base, memory->size);
  close (memory->fd);
  free (memory);
  __atomic_sub_fetch (&live_memories, 1, __ATOMIC_SEQ_CST);
  return CUDA_SUCCESS;
}

/* A dma-buf of the device memory: a memfd of the range's size, which an
 * import of it knows by its identity as that memory. */
static CUresult
fake_cuMemGetHandleForAddressRange (void *handle, CUdeviceptr start, size_t size, CUmemRangeHandleType type,
                                    unsigned long long flags)
{
  long page = sysconf (_SC_PAGESIZE);
  FakeExport *export;
  struct stat info;
  int fd;

  if (handle == NULL || type != CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD || flags != 0 || size == 0 ||
      start % page != 0 || size % page != 0 || !fake_cuda_streams_overlaps_device (start, size))
    return CUDA_ERROR_INVALID_VALUE;
  if ((fd = memfd_create ("fake-dma-buf", MFD_CLOEXEC)) < 0)
    return CUDA_ERROR_OPERATING_SYSTEM;
  if (ftruncate (fd, size) != 0 || fstat (fd, &info) != 0)
    {
      close (fd);
      return CUDA_ERROR_OPERATING_SYSTEM;
    }
  export = calloc (1, sizeof *export);
  export->device = info.st_dev;
  export->inode = info.st_ino;
  export->start = (unsigned char *) (uintptr_t) start;
  pthread_mutex_lock (&lock);
  export->next = exports;
  exports = export;
  pthread_mutex_unlock (&lock);
  *(int *) handle = fd;
  return CUDA_SUCCESS;
}

/* ---- external semaphores ---------------------------------------------------- */

/* Called with the lock held: the state of the file @fd is, made on first
 * use, or NULL when @fd is not open. */
static FakeSemaphoreState *
semaphore_state_of (int fd)
{
  FakeSemaphoreState *state;
  struct stat info;

  if (fd_size (fd, &info) < 0)
    return NULL;
  for (state = semaphore_states; state != NULL; state = state->next)
    if (state->device == info.st_dev && state->inode == info.st_ino)
      return state;
  state = calloc (1, sizeof *state);
  state->device = info.st_dev;
  state->inode = info.st_ino;
  state->next = semaphore_states;
  semaphore_states = state;
  return state;
}

static CUresult
fake_cuImportExternalSemaphore (CUexternalSemaphore *handle, const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC *desc)
{
  FakeSemaphoreState *state;
  FakeSemaphore *semaphore;

  if (desc == NULL || (desc->type != CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD &&
                       desc->type != CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD))
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  state = semaphore_state_of (desc->handle.fd);
  pthread_mutex_unlock (&lock);
  if (state == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  semaphore = calloc (1, sizeof *semaphore);
  semaphore->state = state;
  semaphore->timeline = desc->type == CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
  semaphore->fd = desc->handle.fd;
  __atomic_add_fetch (&live_semaphores, 1, __ATOMIC_SEQ_CST);
  *handle = (CUexternalSemaphore) semaphore;
  return CUDA_SUCCESS;
}

/* A signal or a wait, run on its stream's thread. */
typedef struct
{
  FakeSemaphore      *semaphore;
  unsigned long long  value;
  int                 wait;
} SemaphoreOp;

static void CUDA_CB
run_semaphore_op (void *data)
{
  SemaphoreOp *op = data;
  FakeSemaphoreState *state = op->semaphore->state;
  int timeline = op->semaphore->timeline;

  pthread_mutex_lock (&lock);
  if (!op->wait)
    state->value = timeline ? op->value : 1;
  else
    {
      while (timeline ? state->value < op->value : state->value == 0)
        pthread_cond_wait (&changed, &lock);
      if (!timeline)
        state->value = 0;
    }
  pthread_cond_broadcast (&changed);
  pthread_mutex_unlock (&lock);
  free (op);
}

static CUresult
enqueue_semaphore_ops (const CUexternalSemaphore *semaphores, const unsigned long long *values, size_t stride,
                       unsigned int count, CUstream stream, int wait)
{
  CUresult (*launch_host_func) (CUstream, CUhostFn, void *) = driver ("cuLaunchHostFunc");

  for (unsigned int i = 0; i < count; i++)
    {
      SemaphoreOp *op = calloc (1, sizeof *op);
      CUresult result;

      if (semaphores[i] == NULL)
        {
          free (op);
          return CUDA_ERROR_INVALID_HANDLE;
        }
      op->semaphore = (FakeSemaphore *) semaphores[i];
      op->value = *(const unsigned long long *) ((const char *) values + i * stride);
      op->wait = wait;
      if ((result = launch_host_func (stream, run_semaphore_op, op)) != CUDA_SUCCESS)
        {
          free (op);
          return result;
        }
    }
  return CUDA_SUCCESS;
}

static CUresult
fake_cuSignalExternalSemaphoresAsync (const CUexternalSemaphore *semaphores,
                                      const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *params, unsigned int count,
                                      CUstream stream)
{
  return enqueue_semaphore_ops (semaphores, &params[0].params.fence.value, sizeof *params, count, stream, 0);
}

static CUresult
fake_cuWaitExternalSemaphoresAsync (const CUexternalSemaphore *semaphores,
                                    const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *params, unsigned int count,
                                    CUstream stream)
{
  return enqueue_semaphore_ops (semaphores, &params[0].params.fence.value, sizeof *params, count, stream, 1);
}

static CUresult
fake_cuDestroyExternalSemaphore (CUexternalSemaphore handle)
{
  FakeSemaphore *semaphore = (FakeSemaphore *) handle;

  if (semaphore == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  close (semaphore->fd);
  free (semaphore);
  __atomic_sub_fetch (&live_semaphores, 1, __ATOMIC_SEQ_CST);
  return CUDA_SUCCESS;
}

/* The other side signals the semaphore of the file @fd is: a binary one
 * (@value 0) becomes signalled, a timeline one takes @value. */
EXPORT void
fake_cuda_graphics_semaphore_signal (int fd, unsigned long long value)
{
  FakeSemaphoreState *state;

  pthread_mutex_lock (&lock);
  if ((state = semaphore_state_of (fd)) != NULL)
    state->value = value != 0 ? value : 1;
  pthread_cond_broadcast (&changed);
  pthread_mutex_unlock (&lock);
}

/* The state of the semaphore of the file @fd is: a timeline one's value,
 * 1 for a binary one that is signalled. */
EXPORT unsigned long long
fake_cuda_graphics_semaphore_value (int fd)
{
  FakeSemaphoreState *state;
  unsigned long long value;

  pthread_mutex_lock (&lock);
  state = semaphore_state_of (fd);
  value = state != NULL ? state->value : 0;
  pthread_mutex_unlock (&lock);
  return value;
}

void *
fake_cuda_graphics_lookup (const char *symbol)
{
  static const struct
  {
    const char *name;
    void       *function;
  } entry_points[] = {
#define ENTRY(name) { #name, (void *) fake_##name },
    ENTRY (cuGraphicsGLRegisterBuffer)
    ENTRY (cuGraphicsGLRegisterImage)
    ENTRY (cuGraphicsEGLRegisterImage)
    ENTRY (cuGraphicsMapResources)
    ENTRY (cuGraphicsUnmapResources)
    ENTRY (cuGraphicsResourceGetMappedPointer)
    ENTRY (cuGraphicsSubResourceGetMappedArray)
    ENTRY (cuGraphicsResourceGetMappedEglFrame)
    ENTRY (cuGraphicsUnregisterResource)
    ENTRY (cuImportExternalMemory)
    ENTRY (cuExternalMemoryGetMappedBuffer)
    ENTRY (cuExternalMemoryGetMappedMipmappedArray)
    ENTRY (cuMipmappedArrayGetLevel)
    ENTRY (cuMipmappedArrayDestroy)
    ENTRY (cuDestroyExternalMemory)
    ENTRY (cuMemGetHandleForAddressRange)
    ENTRY (cuImportExternalSemaphore)
    ENTRY (cuSignalExternalSemaphoresAsync)
    ENTRY (cuWaitExternalSemaphoresAsync)
    ENTRY (cuDestroyExternalSemaphore)
#undef ENTRY
  };

  for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++)
    if (strcmp (entry_points[i].name, symbol) == 0)
      return entry_points[i].function;
  return NULL;
}
