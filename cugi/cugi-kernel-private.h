/* cugi-kernel-private.h: the layout of CugiKernel, for the two files of the
 * object: cugi-kernel.c (the object, its attributes and driver queries)
 * and cugi-kernel-launch.c (its launches). Not installed. */
#pragma once

#include "cugi-context-private.h"
#include "cugi-launch-private.h"

G_BEGIN_DECLS

struct _CugiKernel
{
  GObject      parent_instance;

  /* What every launch reads comes first, in as few cache lines as can be. */
  /* The CUDA context of the binding, for launches to compare with the
   * current one; NULL when the kernel is unusable (setup_error). */
  CUcontext    context_handle;
  CUfunction   function;
  /* The address epoch in which the binding was last found current, 0 for
   * none: a context reset ends the epoch after the context's generation
   * changed, so while the epoch is this one the binding is current without
   * reading the context (cugi_kernel_is_current()). Atomic. */
  gsize        current_epoch;
  /* The serial of the launch configuration that last passed
   * check_config_fully(), or a value that is no configuration's while one
   * is being checked: launching with it again is a comparison. Atomic. */
  gsize        valid_config;
  /* signature->serial, kept here so that the check of an argument list
   * checked before reads no other object. */
  gsize        signature_serial;

  CugiContextBinding binding;  /* to the generation the function was found in */

  /* Why the kernel could not be queried; returned by every operation. */
  GError      *setup_error;

  /* Read once: launches check against them without calling the driver.
   * Settable attributes are updated by cugi_kernel_set_attribute(). */
  CugiKernelSignature *signature;
  guint        max_block[3];
  guint        max_grid[3];
  gint         attributes[CU_FUNC_ATTRIBUTE_MAX];
  int          compute_major;
  gboolean     cooperative_launch;

  CugiModule  *module;
  char        *name;
  char        *mangled_name;
};

/* The class of every kernel, set by its class_init (which a kernel's
 * existence implies). */
extern CugiKernelClass *cugi_kernel_class;

/* CUGI_IS_KERNEL() for the launch path: see cugi_is_final_instance(). */
static inline gboolean
cugi_kernel_is_kernel (gconstpointer instance)
{
  return cugi_is_final_instance (instance, cugi_kernel_class);
}

/* The launch path for callers that pack the parameters themselves (a plan
 * of the kernel's arguments learnt once, for bindings): launches @self with
 * @config and @params, one pointer per kernel parameter to its value, as
 * cuLaunchKernel() reads them (the driver copies the values before this
 * returns). The caller has checked @params against the kernel's signature
 * and resolved the buffers' addresses in them; the configuration is checked
 * here, as for cugi_kernel_launch(). @resources (transfer full, nullable; see
 * cugi_work_resources_new()) is what the launch uses and must outlive it:
 * the buffers, with cugi_buffer_begin_work() taken, dropped once the kernel
 * has run (or at once when the launch fails). */
gboolean cugi_kernel_launch_params    (CugiKernel           *self,
                                       CugiLaunchConfig     *config,
                                       void                **params,
                                       GPtrArray            *resources,
                                       GError              **error);

/* INVALID_STATE for a kernel made with g_object_new(), INVALID_CONTEXT for
 * one whose context was reset since, or the error that kept it from being
 * queried. */
gboolean cugi_kernel_check_usable     (CugiKernel           *self,
                                       GError              **error);
/* Stores an attribute's value as the driver reported it, and tells
 * property watchers when it changed. */
void     cugi_kernel_update_attribute (CugiKernel           *self,
                                       CUfunction_attribute  attribute,
                                       gint                  value);

/* The common case of cugi_kernel_check_usable(), without its error
 * messages: what the launch path runs. */
static inline gboolean
cugi_kernel_is_usable (CugiKernel *self)
{
  return self->function != NULL && self->setup_error == NULL &&
         cugi_context_binding_is_current (&self->binding);
}

/* The common case of launches, without a call of cugi's but for the
 * address epoch (@epoch, read by the caller before this, as a reset changes
 * the context's generation before the epoch): the kernel is usable and its
 * context is current already, so that nothing needs to be pushed. FALSE when
 * it cannot tell: then cugi_kernel_enter() says why or makes the context
 * current. */
static G_ALWAYS_INLINE inline gboolean
cugi_kernel_is_current (CugiKernel *self,
                        gsize       epoch)
{
  CUcontext current = NULL;

  return self->context_handle != NULL &&
         cugi_context_binding_is_current_in_epoch (&self->binding, &self->current_epoch, epoch) &&
         cugi_cuda.cuCtxGetCurrent (&current) == CUDA_SUCCESS && current == self->context_handle;
}

/* Checks that the kernel is usable and makes its context current. Inline:
 * launches run it. */
static G_ALWAYS_INLINE inline gboolean
cugi_kernel_enter (CugiKernel       *self,
                   CugiContextScope *scope,
                   GError          **error)
{
  return (G_LIKELY (cugi_kernel_is_usable (self)) || cugi_kernel_check_usable (self, error)) &&
         cugi_context_enter (self->binding.context, scope, error);
}

G_END_DECLS
