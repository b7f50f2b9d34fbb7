/* test-context.c: primary and created contexts, making them current, limits,
 * synchronization and reset, on a GPU */
#include "config.h"

#include "cugi-context-private.h"
#include "cugi-private.h"
#include "cugi-test-utils.h"

static CugiContext *
new_context (CugiContextFlags flags)
{
  g_autoptr(GError) error = NULL;
  CugiContext *context = cugi_context_new (NULL, flags, &error);

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_CONTEXT (context));
  return context;
}

/* The calling thread's current CUcontext, straight from the driver. */
static CUcontext
current_handle (void)
{
  CUcontext current = NULL;

  g_assert_cmpint (cugi_cuda.cuCtxGetCurrent (&current), ==, CUDA_SUCCESS);
  return current;
}

/* Asserts that @context is the calling thread's current context. */
static void
assert_current (CugiContext *context)
{
  g_assert_true (current_handle () == cugi_context_get_handle (context));
}

static void
push (CugiContext *context)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_context_push (context, &error));
  g_assert_no_error (error);
}

static void
pop (CugiContext *context)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_context_pop (context, &error));
  g_assert_no_error (error);
}

static void
test_default_is_primary (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiContext) again = cugi_test_default_context ();
  g_autoptr(CugiDevice) device = cugi_device_get_default (&error);
  g_autoptr(CugiContext) primary = NULL;
  g_autoptr(CugiContext) resolved = NULL;
  g_autoptr(CugiContext) resolved_self = NULL;
  g_autoptr(CugiDevice) device_property = NULL;
  gboolean is_primary = FALSE;
  guint api_version = 0;

  g_assert_no_error (error);
  primary = cugi_device_get_primary_context (device, &error);
  g_assert_no_error (error);
  g_assert_true (context == primary);
  g_assert_true (context == again);

  g_object_get (context, "is-primary", &is_primary, "device", &device_property,
                "api-version", &api_version, NULL);
  g_assert_true (is_primary);
  g_assert_true (device_property == device);
  g_assert_true (cugi_context_get_device (context) == device);
  g_assert_cmpuint (api_version, >, 0);
  g_assert_cmpuint (api_version, ==, cugi_context_get_api_version (context));
  g_assert_nonnull (cugi_context_get_handle (context));

  resolved = cugi_context_resolve (NULL, &error);
  g_assert_no_error (error);
  g_assert_true (resolved == context);
  resolved_self = cugi_context_resolve (context, &error);
  g_assert_true (resolved_self == context);
}

static gpointer
default_in_thread (gpointer data)
{
  (void) data;
  return cugi_context_get_default (NULL);
}

/* A thread default is what NULL stands for in that thread alone, until it
 * is popped; pushes nest. */
static void
test_thread_default (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) primary = cugi_test_default_context ();
  g_autoptr(CugiContext) created = new_context (CUGI_CONTEXT_FLAGS_NONE);
  g_autoptr(CugiContext) resolved = NULL;
  g_autoptr(CugiContext) in_thread = NULL;
  g_autoptr(CugiContext) after = NULL;
  g_autoptr(CugiContext) nested = NULL;

  cugi_context_push_thread_default (created);
  resolved = cugi_context_resolve (NULL, &error);
  g_assert_no_error (error);
  g_assert_true (resolved == created);
  in_thread = g_thread_join (g_thread_new ("other", default_in_thread, NULL));
  g_assert_true (in_thread == primary);

  cugi_context_push_thread_default (primary);
  nested = cugi_context_get_default (&error);
  g_assert_true (nested == primary);
  cugi_context_pop_thread_default (primary);
  g_clear_object (&resolved);
  resolved = cugi_context_get_default (&error);
  g_assert_true (resolved == created);

  if (g_test_undefined ())
    {
      /* Popping what is not the innermost push is a programmer error. */
      g_test_expect_message ("Cugi", G_LOG_LEVEL_CRITICAL, "*g_queue_peek_head*");
      cugi_context_pop_thread_default (primary);
      g_test_assert_expected_messages ();
    }
  cugi_context_pop_thread_default (created);
  after = cugi_context_get_default (&error);
  g_assert_no_error (error);
  g_assert_true (after == primary);
}

static void
test_created (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) primary = cugi_test_default_context ();
  CUcontext before = current_handle ();
  g_autoptr(CugiContext) context = new_context (CUGI_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC);
  g_autoptr(CugiDevice) device = cugi_device_get (0, &error);
  CugiContextFlags flags = 0;

  /* cuCtxCreate() makes its context current; cugi_context_new() does not. */
  g_assert_true (current_handle () == before);

  g_assert_no_error (error);
  g_assert_false (cugi_context_get_is_primary (context));
  g_assert_true (context != primary);
  g_assert_true (cugi_context_get_handle (context) != cugi_context_get_handle (primary));
  g_assert_true (cugi_context_get_device (context) == device);
  g_object_get (context, "flags", &flags, NULL);
  g_test_message ("flags 0x%x", flags);
  g_assert_true (flags & CUGI_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC);
  g_assert_cmpint (flags, ==, cugi_context_get_flags (context));
  g_assert_cmpuint (cugi_context_get_api_version (context), >, 0);

  /* It works: its own memory report and synchronization. */
  g_assert_true (cugi_context_synchronize (context, &error));
  g_assert_no_error (error);
  g_assert_true (current_handle () == before);
}

static void
test_created_on_device (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get (0, &error);
  g_autoptr(CugiContext) context = NULL;

  g_assert_no_error (error);
  context = cugi_context_new (device, CUGI_CONTEXT_FLAGS_SCHED_YIELD | CUGI_CONTEXT_FLAGS_MAP_HOST, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_context_get_device (context) == device);
  g_assert_true (cugi_context_get_flags (context) & CUGI_CONTEXT_FLAGS_SCHED_YIELD);
}

static void
test_bad_flags (void)
{
  const CugiContextFlags bad[] = {
    CUGI_CONTEXT_FLAGS_SCHED_SPIN | CUGI_CONTEXT_FLAGS_SCHED_YIELD,
    CUGI_CONTEXT_FLAGS_SCHED_YIELD | CUGI_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC,
    (CugiContextFlags) (1 << 12),
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_null (cugi_context_new (NULL, bad[i], &error));
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
    }
}

/* A call on one context, while the caller has another current, runs in its
 * own context and leaves the caller's current afterwards. */
static void
test_enter_leave_restores (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) primary = cugi_test_default_context ();
  g_autoptr(CugiContext) created = new_context (CUGI_CONTEXT_FLAGS_NONE);
  CUcontext before = current_handle ();
  push (created);
  assert_current (created);

  g_assert_cmpuint (cugi_context_get_memory_info (primary, NULL, &error), >, 0);
  g_assert_no_error (error);
  assert_current (created);
  g_assert_cmpuint (cugi_context_get_limit (primary, CUGI_LIMIT_STACK_SIZE, &error), >, 0);
  g_assert_no_error (error);
  assert_current (created);
  g_assert_true (cugi_context_synchronize (primary, &error));
  g_assert_no_error (error);
  assert_current (created);

  /* The scope itself: a push only where needed, undone by leave. */
  {
    g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

    g_assert_true (cugi_context_enter (primary, &scope, &error));
    g_assert_no_error (error);
    g_assert_true (scope.pushed);
    assert_current (primary);
    cugi_context_leave (&scope);
    g_assert_false (scope.pushed);
    assert_current (created);
  }
  {
    g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;

    g_assert_true (cugi_context_enter (created, &scope, &error));
    g_assert_no_error (error);
    g_assert_false (scope.pushed);
  }
  assert_current (created);

  pop (created);
  g_assert_true (current_handle () == before);
}

static void
test_push_pop (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) primary = cugi_test_default_context ();
  g_autoptr(CugiContext) created = new_context (CUGI_CONTEXT_FLAGS_NONE);
  CUcontext before = current_handle ();

  push (primary);
  push (created);
  assert_current (created);
  pop (created);
  assert_current (primary);
  pop (primary);
  g_assert_true (current_handle () == before);

  /* The same context may be pushed twice, and popped twice. */
  push (created);
  push (created);
  pop (created);
  assert_current (created);
  pop (created);
  g_assert_true (current_handle () == before);
  g_assert_no_error (error);
}

static void
test_pop_without_push (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) primary = cugi_test_default_context ();
  g_autoptr(CugiContext) created = new_context (CUGI_CONTEXT_FLAGS_NONE);
  CUcontext before = current_handle ();
  CUcontext popped = NULL;

  g_assert_false (cugi_context_pop (primary, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "pop without push");
  g_assert_true (current_handle () == before);

  /* Out of order: the newer push must go first. */
  push (primary);
  push (created);
  g_assert_false (cugi_context_pop (primary, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "not the current context");
  assert_current (created);
  pop (created);
  pop (primary);

  /* Something outside cugi pushed on top. */
  push (created);
  g_assert_cmpint (cugi_cuda.cuCtxPushCurrent (cugi_context_get_handle (primary)), ==, CUDA_SUCCESS);
  g_assert_false (cugi_context_pop (created, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "not the current context");
  g_assert_cmpint (cugi_cuda.cuCtxPopCurrent (&popped), ==, CUDA_SUCCESS);
  g_assert_true (popped == cugi_context_get_handle (primary));
  pop (created);

  /* Popped already. */
  g_assert_false (cugi_context_pop (created, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "pop without push");

  /* The library is still usable. */
  g_assert_true (current_handle () == before);
  g_assert_true (cugi_context_synchronize (primary, &error));
  g_assert_no_error (error);
  g_assert_true (cugi_context_synchronize (created, &error));
  g_assert_no_error (error);
}

static gpointer
get_current_in_thread (gpointer data)
{
  GError **error = data;

  return cugi_context_get_current (error);
}

static void
test_get_current (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) thread_error = NULL;
  g_autoptr(CugiContext) primary = cugi_test_default_context ();
  g_autoptr(CugiContext) created = new_context (CUGI_CONTEXT_FLAGS_NONE);
  g_autoptr(CugiDevice) device = cugi_device_get (0, &error);
  CUcontext foreign = NULL;
  CUcontext popped = NULL;
  GThread *thread;

  g_assert_no_error (error);

  /* A new thread has no current context. */
  thread = g_thread_new ("get-current", get_current_in_thread, &thread_error);
  g_assert_null (g_thread_join (thread));
  g_assert_no_error (thread_error);

  push (created);
  {
    g_autoptr(CugiContext) current = cugi_context_get_current (&error);

    g_assert_no_error (error);
    g_assert_true (current == created);
  }
  push (primary);
  {
    g_autoptr(CugiContext) current = cugi_context_get_current (&error);

    g_assert_no_error (error);
    g_assert_true (current == primary);
  }
  pop (primary);
  pop (created);

  /* A context made with the driver directly has no CugiContext. */
  g_assert_cmpint (cugi_cuda.cuCtxCreate (&foreign, NULL, 0, cugi_device_get_handle (device)), ==, CUDA_SUCCESS);
  g_assert_true (current_handle () == foreign);
  g_assert_null (cugi_context_get_current (&error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED);
  g_assert_cmpint (cugi_cuda.cuCtxPopCurrent (&popped), ==, CUDA_SUCCESS);
  g_assert_cmpint (cugi_cuda.cuCtxDestroy (foreign), ==, CUDA_SUCCESS);
}

static void
count_release (gpointer counter)
{
  (*(gint *) counter)++;
}

/* A context another library made, wrapped: cugi never destroys it, and the
 * owner handed over is released with the wrapper. */
static void
test_new_for_handle (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get (0, &error);
  g_autoptr(CugiContext) primary = cugi_test_default_context ();
  CugiContext *wrapped;
  CUcontext foreign = NULL;
  CUcontext popped = NULL;
  unsigned int api_version = 0;
  gint released = 0;

  g_assert_no_error (error);
  g_assert_cmpint (cugi_cuda.cuCtxCreate (&foreign, NULL, 0, cugi_device_get_handle (device)), ==, CUDA_SUCCESS);
  g_assert_cmpint (cugi_cuda.cuCtxPopCurrent (&popped), ==, CUDA_SUCCESS);

  wrapped = cugi_context_new_for_handle_full ((guint64) (guintptr) foreign, &released, count_release, &error);
  g_assert_no_error (error);
  g_assert_true (CUGI_IS_CONTEXT (wrapped));
  g_assert_false (cugi_context_get_is_primary (wrapped));
  g_assert_true (cugi_context_get_device (wrapped) == device);
  {
    guint64 handle = 0;

    g_object_get (wrapped, "handle", &handle, NULL);
    g_assert_true (handle == (guint64) (guintptr) foreign);
  }

  /* The same handle again: the same object, and the second owner goes at
   * once, since the first one keeps the context alive. */
  {
    gint released_again = 0;
    g_autoptr(CugiContext) again = cugi_context_new_for_handle_full ((guint64) (guintptr) foreign, &released_again,
                                                                     count_release, &error);

    g_assert_no_error (error);
    g_assert_true (again == wrapped);
    g_assert_cmpint (released_again, ==, 1);
  }

  /* Current through the driver: cugi_context_get_current() knows it now. */
  g_assert_cmpint (cugi_cuda.cuCtxPushCurrent (foreign), ==, CUDA_SUCCESS);
  {
    g_autoptr(CugiContext) current = cugi_context_get_current (&error);

    g_assert_no_error (error);
    g_assert_true (current == wrapped);
  }
  g_assert_cmpint (cugi_cuda.cuCtxPopCurrent (&popped), ==, CUDA_SUCCESS);

  /* cugi works in it, and leaves the thread's current context as it was. */
  push (primary);
  g_assert_true (cugi_context_synchronize (wrapped, &error));
  g_assert_no_error (error);
  assert_current (primary);
  pop (primary);
  g_assert_false (cugi_context_reset (wrapped, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_NOT_SUPPORTED, NULL);

  /* Gone: released, and the CUDA context still the owner's. */
  g_assert_cmpint (released, ==, 0);
  g_object_unref (wrapped);
  g_assert_cmpint (released, ==, 1);
  g_assert_cmpint (cugi_cuda.cuCtxGetApiVersion (foreign, &api_version), ==, CUDA_SUCCESS);
  g_assert_cmpint (cugi_cuda.cuCtxDestroy (foreign), ==, CUDA_SUCCESS);

  /* A primary context's handle gives the primary context's object. */
  {
    g_autoptr(CugiContext) same = cugi_context_new_for_handle ((guint64) (guintptr) cugi_context_get_handle (primary),
                                                               &error);

    g_assert_no_error (error);
    g_assert_true (same == primary);
  }
  g_assert_null (cugi_context_new_for_handle (0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
}

/* Wrapping another library's context, in a process that never used the
 * primary context, leaves the primary context inactive (it would take
 * device memory). */
static void
test_new_for_handle_leaves_primary (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = NULL;
  g_autoptr(CugiContext) wrapped = NULL;
  CUcontext foreign = NULL;
  CUcontext popped = NULL;
  unsigned int flags = 0;
  int active = 1;

  if (!cugi_test_in_subprocess (60))
    return;
  device = cugi_device_get (0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_cuda.cuDevicePrimaryCtxGetState (cugi_device_get_handle (device), &flags, &active), ==,
                   CUDA_SUCCESS);
  g_assert_false (active);
  g_assert_cmpint (cugi_cuda.cuCtxCreate (&foreign, NULL, 0, cugi_device_get_handle (device)), ==, CUDA_SUCCESS);
  g_assert_cmpint (cugi_cuda.cuCtxPopCurrent (&popped), ==, CUDA_SUCCESS);

  wrapped = cugi_context_new_for_handle ((guint64) (guintptr) foreign, &error);
  g_assert_no_error (error);
  g_assert_false (cugi_context_get_is_primary (wrapped));
  g_assert_cmpint (cugi_cuda.cuDevicePrimaryCtxGetState (cugi_device_get_handle (device), &flags, &active), ==,
                   CUDA_SUCCESS);
  g_assert_false (active);
  g_clear_object (&wrapped);
  g_assert_cmpint (cugi_cuda.cuCtxDestroy (foreign), ==, CUDA_SUCCESS);
}

static void
test_limits (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  guint64 original;

  original = cugi_context_get_limit (context, CUGI_LIMIT_STACK_SIZE, &error);
  g_assert_no_error (error);
  g_test_message ("stack size %" G_GUINT64_FORMAT, original);
  g_assert_cmpuint (original, >, 0);

  g_assert_true (cugi_context_set_limit (context, CUGI_LIMIT_STACK_SIZE, original * 2, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_context_get_limit (context, CUGI_LIMIT_STACK_SIZE, &error), >=, original * 2);
  g_assert_no_error (error);

  g_assert_true (cugi_context_set_limit (context, CUGI_LIMIT_STACK_SIZE, original, &error));
  g_assert_cmpuint (cugi_context_get_limit (context, CUGI_LIMIT_STACK_SIZE, &error), ==, original);
  g_assert_no_error (error);

  /* Other limits can be read too. */
  g_assert_cmpuint (cugi_context_get_limit (context, CUGI_LIMIT_MALLOC_HEAP_SIZE, &error), >, 0);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_context_get_limit (context, CUGI_LIMIT_PRINTF_FIFO_SIZE, &error), >, 0);
  g_assert_no_error (error);

  /* A failure returns 0 along with the error. */
  g_assert_cmpuint (cugi_context_get_limit (context, (CugiLimit) 1000, &error), ==, 0);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_false (cugi_context_set_limit (context, (CugiLimit) -1, 1, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
}

static void
test_cache_config (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  CugiCacheConfig original;

  original = cugi_context_get_cache_config (context, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_context_set_cache_config (context, CUGI_CACHE_CONFIG_PREFER_SHARED, &error));
  g_assert_no_error (error);
  g_assert_cmpint (cugi_context_get_cache_config (context, &error), ==, CUGI_CACHE_CONFIG_PREFER_SHARED);
  g_assert_no_error (error);
  g_assert_true (cugi_context_set_cache_config (context, original, &error));
  g_assert_no_error (error);

  g_assert_false (cugi_context_set_cache_config (context, (CugiCacheConfig) 42, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
}

static void
test_stream_priority_range (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  int least, greatest = 1000;

  least = cugi_context_get_stream_priority_range (context, &greatest, &error);
  g_assert_no_error (error);
  g_test_message ("stream priorities from %d (least) to %d (greatest)", least, greatest);
  g_assert_cmpint (greatest, !=, 1000);
  g_assert_cmpint (least, >=, greatest);
  g_assert_cmpint (cugi_context_get_stream_priority_range (context, NULL, &error), ==, least);
  g_assert_no_error (error);
}

static void
test_memory_info (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiContext) created = new_context (CUGI_CONTEXT_FLAGS_NONE);
  guint64 free_bytes, total_bytes = 0, created_total = 0;

  free_bytes = cugi_context_get_memory_info (context, &total_bytes, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (total_bytes, >, 0);
  g_assert_cmpuint (free_bytes, <=, total_bytes);
  cugi_context_get_memory_info (created, &created_total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (created_total, ==, total_bytes);
}

typedef struct
{
  GMainContext *main_context;
  GAsyncResult *result;
  gboolean      ran_in_caller_context;
} AsyncData;

static void
on_synchronized (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  AsyncData *data = user_data;

  data->ran_in_caller_context = g_main_context_get_thread_default () == data->main_context &&
                                g_main_context_is_owner (data->main_context);
  data->result = g_object_ref (result);
  g_main_context_wakeup (data->main_context);
}

static GAsyncResult *
synchronize_async (CugiContext  *context,
                   GCancellable *cancellable)
{
  g_autoptr(GMainContext) main_context = g_main_context_new ();
  AsyncData data = { main_context, NULL, FALSE };

  g_main_context_push_thread_default (main_context);
  cugi_context_synchronize_async (context, cancellable, on_synchronized, &data);
  while (data.result == NULL)
    g_main_context_iteration (main_context, TRUE);
  g_main_context_pop_thread_default (main_context);
  g_assert_true (data.ran_in_caller_context);
  return data.result;
}

static void
test_synchronize (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiContext) created = new_context (CUGI_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  CUcontext before = current_handle ();

  g_assert_true (cugi_context_synchronize (context, &error));
  g_assert_no_error (error);

  {
    g_autoptr(GAsyncResult) result = synchronize_async (context, NULL);

    g_assert_true (cugi_context_synchronize_finish (context, result, &error));
    g_assert_no_error (error);
  }
  {
    g_autoptr(GAsyncResult) result = synchronize_async (created, NULL);

    g_assert_true (cugi_context_synchronize_finish (created, result, &error));
    g_assert_no_error (error);
  }
  /* Cancelled: the wait ends with G_IO_ERROR_CANCELLED. */
  g_cancellable_cancel (cancellable);
  {
    g_autoptr(GAsyncResult) result = synchronize_async (context, cancellable);

    g_assert_false (cugi_context_synchronize_finish (context, result, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error (&error);
  }
  g_assert_true (current_handle () == before);
}

static void
test_peer_access (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiDevice) device = cugi_device_get (0, &error);
  int count = cugi_device_get_count (NULL);

  g_assert_false (cugi_context_enable_peer_access (context, context, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  g_assert_false (cugi_context_disable_peer_access (context, context, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  for (int ordinal = 1; ordinal < count; ordinal++)
    {
      g_autoptr(CugiDevice) peer_device = cugi_device_get (ordinal, &error);
      g_autoptr(CugiContext) peer = cugi_device_get_primary_context (peer_device, &error);

      g_assert_no_error (error);
      if (!cugi_device_can_access_peer (device, peer_device, &error))
        {
          g_assert_no_error (error);
          g_assert_false (cugi_context_enable_peer_access (context, peer, &error));
          cugi_test_assert_error (&error, CUGI_ERROR_PEER_ACCESS, NULL);
          continue;
        }
      g_assert_true (cugi_context_enable_peer_access (context, peer, &error));
      g_assert_no_error (error);
      g_assert_false (cugi_context_enable_peer_access (context, peer, &error));
      cugi_test_assert_error (&error, CUGI_ERROR_PEER_ACCESS, NULL);
      g_assert_true (cugi_context_disable_peer_access (context, peer, &error));
      g_assert_no_error (error);
      g_assert_false (cugi_context_disable_peer_access (context, peer, &error));
      cugi_test_assert_error (&error, CUGI_ERROR_PEER_ACCESS, NULL);
    }
}

/* Objects may be released in any order. */
static void
test_unref_order (void)
{
  g_autoptr(GError) error = NULL;
  CugiDevice *device = cugi_device_get (0, &error);
  CugiContext *context;
  CUcontext before = current_handle ();

  g_assert_no_error (error);

  /* The device first: the context keeps what it needs. */
  context = cugi_context_new (device, CUGI_CONTEXT_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_object_unref (device);
  g_assert_true (cugi_context_synchronize (context, &error));
  g_assert_no_error (error);
  g_assert_cmpint (cugi_device_get_ordinal (cugi_context_get_device (context)), ==, 0);
  device = g_object_ref (cugi_context_get_device (context));

  /* Then the context first: it goes, the device stays. */
  g_object_add_weak_pointer (G_OBJECT (context), (gpointer *) &context);
  g_object_unref (context);
  g_assert_null (context);
  g_assert_cmpstr (cugi_device_get_alias (device), ==, "cuda:0");

  /* A pushed context lives until it is popped, even with no other owner. */
  context = cugi_context_new (device, CUGI_CONTEXT_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_object_unref (device);
  g_object_add_weak_pointer (G_OBJECT (context), (gpointer *) &context);
  push (context);
  g_object_unref (context);
  g_assert_nonnull (context);
  assert_current (context);
  pop (context);
  g_assert_null (context);
  g_assert_true (current_handle () == before);
}

static void
test_reset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) created = new_context (CUGI_CONTEXT_FLAGS_NONE);
  g_autoptr(CugiContext) primary = cugi_test_default_context ();
  g_autoptr(CugiContext) after = NULL;
  guint generation = cugi_context_get_generation (primary);

  /* A created context cannot be reset: make a new one. */
  g_assert_false (cugi_context_reset (created, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_NOT_SUPPORTED, NULL);
  g_assert_cmpuint (cugi_context_get_generation (created), ==, 0);

  g_assert_true (cugi_context_reset (primary, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_context_get_generation (primary), ==, generation + 1);

  /* The same object is usable again, and is still the default. */
  after = cugi_test_default_context ();
  g_assert_true (after == primary);
  g_assert_true (cugi_context_get_is_primary (primary));
  g_assert_true (cugi_context_synchronize (primary, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_context_get_limit (primary, CUGI_LIMIT_STACK_SIZE, &error), >, 0);
  g_assert_no_error (error);
  {
    g_autoptr(CugiContext) current = NULL;

    push (primary);
    current = cugi_context_get_current (&error);
    g_assert_no_error (error);
    g_assert_true (current == primary);
    pop (primary);
  }

  /* The created context was not touched. */
  g_assert_true (cugi_context_synchronize (created, &error));
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_unsetenv ("CUGI_DEVICE");
  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();

  g_test_add_func ("/context/default-is-primary", test_default_is_primary);
  g_test_add_func ("/context/thread-default", test_thread_default);
  g_test_add_func ("/context/created", test_created);
  g_test_add_func ("/context/created-on-device", test_created_on_device);
  g_test_add_func ("/context/bad-flags", test_bad_flags);
  g_test_add_func ("/context/enter-leave-restores", test_enter_leave_restores);
  g_test_add_func ("/context/push-pop", test_push_pop);
  g_test_add_func ("/context/pop-without-push", test_pop_without_push);
  g_test_add_func ("/context/get-current", test_get_current);
  g_test_add_func ("/context/new-for-handle", test_new_for_handle);
  g_test_add_func ("/context/new-for-handle-leaves-primary", test_new_for_handle_leaves_primary);
  g_test_add_func ("/context/limits", test_limits);
  g_test_add_func ("/context/cache-config", test_cache_config);
  g_test_add_func ("/context/stream-priority-range", test_stream_priority_range);
  g_test_add_func ("/context/memory-info", test_memory_info);
  g_test_add_func ("/context/synchronize", test_synchronize);
  g_test_add_func ("/context/peer-access", test_peer_access);
  g_test_add_func ("/context/unref-order", test_unref_order);
  /* Last: it resets the process's primary context. */
  g_test_add_func ("/context/reset", test_reset);
  return g_test_run ();
}
