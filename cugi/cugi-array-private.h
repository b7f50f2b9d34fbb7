/* cugi-array-private.h: the layout of CugiArray and what the files of
 * arrays, textures and surfaces share: cugi-array.c (the object),
 * cugi-array-copy.c (its copies), cugi-texture.c and cugi-surface.c. Not
 * installed; included by those files and the kernel arguments only. */
#pragma once

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"

G_BEGIN_DECLS

struct _CugiArray
{
  GObject              parent_instance;

  CugiMemoryOwnership  ownership;   /* its context and lifetime; never pooled */
  CUarray              handle;
  CugiArrayFormat      format;
  guint                channels;
  gsize                width;
  gsize                height;      /* 0: a 1D array */
  gsize                depth;       /* 0: a 1D or 2D array; layers when layered */
  CugiArrayFlags       flags;
  gpointer             release_data;    /* a borrowed array's owner */
  GDestroyNotify       release_notify;  /* NULL: cugi's own, which cuArrayDestroy frees */
};

/* INVALID_ARGUMENT unless an array of @channels elements of @format in the
 * shape @width × @height × @depth with @flags is one the driver can make:
 * the checks of cugi_array_new(). */
gboolean   cugi_array_check_description (CugiArrayFormat   format,
                                         guint             channels,
                                         gsize             width,
                                         gsize             height,
                                         gsize             depth,
                                         CugiArrayFlags    flags,
                                         GError          **error);
/* An array over @handle, an array of @context that cugi did not allocate
 * and does not destroy (a mapped graphics resource's, a level of external
 * memory's mipmapped array). Its shape is the driver's
 * (cuArray3DGetDescriptor), with @known_flags added: what its owner was
 * made for, which the descriptor need not tell. @release (@release_data)
 * runs once the array is freed or finalized and nothing uses it any more,
 * or at once when this fails. */
CugiArray *cugi_array_new_borrowed    (CugiContext     *context,
                                       CUarray          handle,
                                       CugiArrayFlags   known_flags,
                                       gpointer         release_data,
                                       GDestroyNotify   release,
                                       GError         **error);

/* INVALID_STATE once freed ("The array was freed"), INVALID_CONTEXT once its
 * context was reset. */
gboolean  cugi_array_check_usable     (CugiArray   *self,
                                       GError     **error);
/* Something (work in flight, a texture, a surface) uses the array: it stays
 * alive, and cugi_array_free() releases it only once every use ended.
 * Returns @self, for cugi_work_resources_add (res, cugi_array_begin_use (a),
 * cugi_array_end_use). */
gpointer  cugi_array_begin_use        (CugiArray   *self);
void      cugi_array_end_use          (gpointer     array);

/* What textures and surfaces share: their context, the array or buffer they
 * read, which they use (begin_use/begin_work) as long as they live, and the
 * handle that @destroy destroys, unless the context was reset since. */
typedef CUresult (*CugiResourceDestroyFunc) (unsigned long long handle);

typedef struct
{
  CugiContextBinding       binding;
  unsigned long long       handle;
  CugiArray               *array;    /* (nullable) (owned): a use of it */
  CugiBuffer              *buffer;   /* (nullable) (owned): work on it */
  CugiResourceDestroyFunc  destroy;
} CugiArrayResource;

/* The resource description of @array (usable, checked before), for
 * cuTexObjectCreate and cuSurfObjectCreate. */
void      cugi_array_resource_describe_array (CugiArray          *array,
                                              CUDA_RESOURCE_DESC *desc);
/* Takes a use of @array or work on @buffer (one of them), binds to its
 * context, and records @handle made by the caller. */
void      cugi_array_resource_init    (CugiArrayResource       *self,
                                       CugiContext             *context,
                                       CugiArray               *array,
                                       CugiBuffer              *buffer,
                                       unsigned long long       handle,
                                       CugiResourceDestroyFunc  destroy);
/* From finalize: destroys the handle, ends the use. */
void      cugi_array_resource_clear   (CugiArrayResource       *self);
/* The specification of the property @name ("context", "array", "buffer" or
 * "handle") that textures and surfaces share, read-only. */
GParamSpec *cugi_array_resource_param_spec (const char *name);
/* The get_property of textures and surfaces: their properties "context",
 * "array", "buffer" and "handle" are those of @self. */
void      cugi_array_resource_get_property (const CugiArrayResource *self,
                                            GObject                 *object,
                                            guint                    prop_id,
                                            GValue                  *value,
                                            GParamSpec              *pspec);

G_END_DECLS
