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
  CugiContextBinding binding;  /* to the generation the function was found in */
  CUfunction   function;
  /* The serial of the launch configuration that last passed
   * check_config_fully(), or a value that is no configuration's while one
   * is being checked: launching with it again is a comparison. Atomic. */
  gsize        valid_config;

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
