/* cugi-surface.c: surface objects over arrays */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-memory-private.h"
#include "cugi-array-private.h"

/**
 * CugiSurface:
 *
 * A surface object (`CUsurfObject`): how kernels read and write the
 * elements of a #CugiArray made with %CUGI_ARRAY_FLAGS_SURFACE_LDST,
 * unfiltered, by byte offset in x (`surf2Dwrite (value, surface, x *
 * sizeof value, y)`). Kernels take it as a `cudaSurfaceObject_t`
 * parameter: pass it with cugi_kernel_args_add_surface(), or as the
 * surface object itself to cugi_kernel_launch_values().
 *
 * A surface keeps its array alive and usable: cugi_array_free() releases
 * the memory only once the surface is gone.
 *
 * Since: 0.1
 */

struct _CugiSurface
{
  GObject            parent_instance;

  CugiArrayResource  resource;
};

G_DEFINE_FINAL_TYPE (CugiSurface, cugi_surface, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_ARRAY,
  PROP_HANDLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cugi_surface_finalize (GObject *object)
{
  CugiSurface *self = CUGI_SURFACE (object);

  cugi_array_resource_clear (&self->resource);

  G_OBJECT_CLASS (cugi_surface_parent_class)->finalize (object);
}

static void
cugi_surface_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  cugi_array_resource_get_property (&CUGI_SURFACE (object)->resource, object, prop_id, value, pspec);
}

static void
cugi_surface_class_init (CugiSurfaceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cugi_surface_finalize;
  object_class->get_property = cugi_surface_get_property;

  /**
   * CugiSurface:context:
   *
   * The context of the surface and of its array.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] = cugi_array_resource_param_spec ("context");

  /**
   * CugiSurface:array:
   *
   * The array the surface reads and writes, which it keeps alive.
   *
   * Since: 0.1
   */
  properties[PROP_ARRAY] = cugi_array_resource_param_spec ("array");

  /**
   * CugiSurface:handle:
   *
   * The `CUsurfObject`, the value a kernel's `cudaSurfaceObject_t`
   * parameter takes; 0 for a surface of g_object_new().
   *
   * Since: 0.1
   */
  properties[PROP_HANDLE] = cugi_array_resource_param_spec ("handle");

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_surface_init (CugiSurface *self)
{
}

/**
 * cugi_surface_new:
 * @array: the array to read and write, made with
 *   %CUGI_ARRAY_FLAGS_SURFACE_LDST
 * @error: return location for a #GError
 *
 * Makes a surface object over @array (`cuSurfObjectCreate`), which it
 * keeps alive. An array without %CUGI_ARRAY_FLAGS_SURFACE_LDST fails with
 * %CUGI_ERROR_INVALID_ARGUMENT, a freed one with %CUGI_ERROR_INVALID_STATE.
 *
 * Returns: (transfer full): the new surface, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiSurface *
cugi_surface_new (CugiArray  *array,
                  GError    **error)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(GError) local_error = NULL;
  CUDA_RESOURCE_DESC resource;
  CUsurfObject handle = 0;
  CugiSurface *self;

  g_return_val_if_fail (CUGI_IS_ARRAY (array), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!cugi_array_check_usable (array, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("Cannot make a surface of the array: %s"), local_error->message);
      return NULL;
    }
  if ((array->flags & CUGI_ARRAY_FLAGS_SURFACE_LDST) == 0)
    {
      g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                           _("Cannot make a surface of the array: it was not made with "
                             "CUGI_ARRAY_FLAGS_SURFACE_LDST"));
      return NULL;
    }
  cugi_array_resource_describe_array (array, &resource);
  if (!cugi_context_enter (array->ownership.binding.context, &scope, error) ||
      !CUGI_CALL (cuSurfObjectCreate, (&handle, &resource), error))
    return NULL;
  self = g_object_new (CUGI_TYPE_SURFACE, NULL);
  cugi_array_resource_init (&self->resource, array->ownership.binding.context, array, NULL, handle,
                            cugi_cuda.cuSurfObjectDestroy);
  return self;
}

/**
 * cugi_surface_get_handle:
 * @self: a #CugiSurface
 *
 * Returns: the value of #CugiSurface:handle
 *
 * Since: 0.1
 */
guint64
cugi_surface_get_handle (CugiSurface *self)
{
  g_return_val_if_fail (CUGI_IS_SURFACE (self), 0);

  return self->resource.handle;
}

/**
 * cugi_surface_get_context:
 * @self: a #CugiSurface
 *
 * Returns: (transfer none) (nullable): the value of #CugiSurface:context
 *
 * Since: 0.1
 */
CugiContext *
cugi_surface_get_context (CugiSurface *self)
{
  g_return_val_if_fail (CUGI_IS_SURFACE (self), NULL);

  return self->resource.binding.context;
}

/**
 * cugi_surface_get_array:
 * @self: a #CugiSurface
 *
 * Returns: (transfer none) (nullable): the value of #CugiSurface:array
 *
 * Since: 0.1
 */
CugiArray *
cugi_surface_get_array (CugiSurface *self)
{
  g_return_val_if_fail (CUGI_IS_SURFACE (self), NULL);

  return self->resource.array;
}
