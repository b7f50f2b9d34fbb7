/* cugi-test-utils.c: shared by cugi's C tests */
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cugi-private.h"
#include "cugi-stream-private.h"
#include "cugi-test-utils.h"

/* Whether the harness reads TAP (--tap), as meson test does, rather than
 * the exit status alone. */
static gboolean tap_output;

void
cugi_test_init (int    *argc,
                char ***argv)
{
  setlocale (LC_ALL, "C.UTF-8");
  /* Looked for first: g_test_init() takes the options it knows out of argv. */
  tap_output = g_strv_contains ((const char * const *) *argv, "--tap");
  g_test_init (argc, argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
}

void
cugi_test_init_stand_in (int    *argc,
                         char ***argv)
{
  g_autoptr(GError) error = NULL;

  cugi_test_init (argc, argv);
  if (!cugi_init (&error))
    g_error ("the stand-in driver did not load: %s", error->message);
}

gpointer
cugi_test_stand_in_symbol (const char *name)
{
  /* Open as long as the process runs, as the loader keeps it. */
  static GModule *driver;
  gpointer symbol = NULL;

  if (driver == NULL)
    driver = g_module_open (cugi_loader_get_driver_path (), G_MODULE_BIND_LOCAL);
  if (driver == NULL || !g_module_symbol (driver, name, &symbol))
    g_error ("the stand-in driver has no %s: %s", name, g_module_error ());
  return symbol;
}

void
cugi_test_skip_all (const char *format,
                    ...)
{
  g_autofree char *reason = NULL;
  va_list args;

  va_start (args, format);
  reason = g_strdup_vprintf (format, args);
  va_end (args);
  printf ("1..0 # SKIP %s\n", reason);
  fflush (stdout);
  /* On stderr too: meson test shows a TAP test's stderr, not the reason in
   * its plan. As g_test_run() does when every case was skipped: status 0
   * under TAP, whose harness would count any other as an error, else 77,
   * the status gnome-desktop-testing-runner and Automake take for a skip. */
  g_printerr ("Skipped: %s\n", reason);
  exit (tap_output ? 0 : 77);
}

void
cugi_test_require_gpu (void)
{
  g_autoptr(GError) error = NULL;

  if (!cugi_init (&error))
    cugi_test_skip_all ("no GPU usable: %s", error->message);
}

gboolean
cugi_test_have_gpu (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;

  if (cugi_init (&error))
    return TRUE;
  reason = g_strdup_printf ("no GPU usable: %s", error->message);
  g_test_skip (reason);
  return FALSE;
}

void
cugi_test_trap_subprocess (guint timeout_s)
{
  g_test_trap_subprocess (NULL, timeout_s * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

gboolean
cugi_test_in_subprocess (guint timeout_s)
{
  if (g_test_subprocess ())
    return TRUE;
  cugi_test_trap_subprocess (timeout_s);
  return FALSE;
}

/* ---- objects of the default context --------------------------------------- */

CugiContext *
cugi_test_default_context (void)
{
  g_autoptr(GError) error = NULL;
  CugiContext *context = cugi_context_get_default (&error);

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_CONTEXT (context));
  return context;
}

CugiStream *
cugi_test_stream_new (CugiStreamFlags flags)
{
  g_autoptr(GError) error = NULL;
  CugiStream *stream = cugi_stream_new (NULL, flags, 0, &error);

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_STREAM (stream));
  return stream;
}

CugiEvent *
cugi_test_event_new (CugiEventFlags flags)
{
  g_autoptr(GError) error = NULL;
  CugiEvent *event = cugi_event_new (NULL, flags, &error);

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_EVENT (event));
  return event;
}

CugiBuffer *
cugi_test_buffer_new (gsize size)
{
  g_autoptr(GError) error = NULL;
  CugiBuffer *buffer = cugi_buffer_new (NULL, size, &error);

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_BUFFER (buffer));
  return buffer;
}

CugiArray *
cugi_test_array_new (CugiArrayFormat format,
                     guint           channels,
                     gsize           width,
                     gsize           height,
                     gsize           depth,
                     CugiArrayFlags  flags)
{
  g_autoptr(GError) error = NULL;
  CugiArray *array = cugi_array_new (NULL, format, channels, width, height, depth, flags, &error);

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_ARRAY (array));
  return array;
}

CugiKernel *
cugi_test_kernel_new (const char *source,
                      const char *name)
{
  g_autoptr(GError) error = NULL;
  CugiKernel *kernel = cugi_kernel_new_from_source (NULL, source, name, NULL, &error);

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_KERNEL (kernel));
  return kernel;
}

CugiBuffer *
cugi_test_buffer_new_with (GBytes *contents)
{
  g_autoptr(GError) error = NULL;
  CugiBuffer *buffer = cugi_test_buffer_new (g_bytes_get_size (contents));

  g_assert_true (cugi_buffer_upload_bytes (buffer, 0, contents, &error));
  g_assert_no_error (error);
  return buffer;
}

/* ---- calls that must succeed ---------------------------------------------- */

void
cugi_test_synchronize (CugiStream *stream)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = stream == NULL ? cugi_context_get_default (&error) : NULL;

  g_assert_no_error (error);
  g_assert_true (stream != NULL ? cugi_stream_synchronize (stream, &error)
                                : cugi_context_synchronize (context, &error));
  g_assert_no_error (error);
}

void
cugi_test_assert_query (CugiStream *stream,
                        gboolean    done)
{
  g_autoptr(GError) error = NULL;
  gboolean done_now = cugi_stream_query (stream, &error);

  g_assert_no_error (error);
  g_assert_cmpint (!!done_now, ==, !!done);
}

void
cugi_test_record (CugiEvent  *event,
                  CugiStream *stream)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_event_record (event, stream, &error));
  g_assert_no_error (error);
}

void
cugi_test_event_synchronize (CugiEvent *event)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_event_synchronize (event, &error));
  g_assert_no_error (error);
}

void
cugi_test_assert_event_query (CugiEvent *event,
                              gboolean   done)
{
  g_autoptr(GError) error = NULL;
  gboolean done_now = cugi_event_query (event, &error);

  g_assert_no_error (error);
  g_assert_cmpint (!!done_now, ==, !!done);
}

void
cugi_test_assert_no_elapsed_time (CugiEvent *start,
                                  CugiEvent *end)
{
  g_autoptr(GError) error = NULL;

  g_assert_cmpfloat (cugi_event_elapsed_time (start, end, &error), ==, 0);
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, NULL);
}

gdouble
cugi_test_check_elapsed_time (CugiStream       *stream,
                              CugiTestWorkFunc  work,
                              guint             ms)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiEvent) start = cugi_test_event_new (CUGI_EVENT_FLAGS_NONE);
  g_autoptr(CugiEvent) end = cugi_test_event_new (CUGI_EVENT_FLAGS_NONE);
  g_autoptr(CugiEvent) untimed = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  gdouble elapsed;

  /* Neither recorded. */
  cugi_test_assert_no_elapsed_time (start, end);

  /* One recorded. */
  cugi_test_record (start, stream);
  cugi_test_assert_no_elapsed_time (start, end);

  /* Timing disabled. */
  cugi_test_record (untimed, stream);
  cugi_test_assert_no_elapsed_time (start, untimed);

  /* Not yet completed. */
  work (stream, ms);
  cugi_test_record (end, stream);
  cugi_test_assert_no_elapsed_time (start, end);

  /* Once completed, the same pair gives a time. */
  cugi_test_event_synchronize (end);
  elapsed = cugi_event_elapsed_time (start, end, &error);
  g_assert_no_error (error);
  return elapsed;
}

GBytes *
cugi_test_download (CugiBuffer *buffer,
                    gsize       offset,
                    gsize       size)
{
  g_autoptr(GError) error = NULL;
  GBytes *bytes = cugi_buffer_download (buffer, offset, size, &error);

  g_assert_no_error (error);
  g_assert_nonnull (bytes);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, size);
  return bytes;
}

GBytes *
cugi_test_download_all (CugiBuffer *buffer)
{
  return cugi_test_download (buffer, 0, cugi_buffer_get_size (buffer));
}

void
cugi_test_settle (CugiStream *stream)
{
  g_autoptr(CugiContext) context = cugi_test_default_context ();

  while (g_main_context_iteration (NULL, FALSE))
    ;
  cugi_test_synchronize (stream != NULL ? stream : cugi_stream_resolve (NULL, context));
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* ---- errors --------------------------------------------------------------- */

void
cugi_test_assert_error (GError    **error,
                        gint        code,
                        const char *fragment)
{
  g_assert_error (*error, CUGI_ERROR, code);
  if (fragment != NULL && strstr ((*error)->message, fragment) == NULL)
    g_error ("expected “%s” in: %s", fragment, (*error)->message);
  g_clear_error (error);
}

void
cugi_test_assert_fails (gboolean    succeeded,
                        GError    **error,
                        gint        code,
                        const char *fragment)
{
  g_assert_false (succeeded);
  cugi_test_assert_error (error, code, fragment);
}

/* ---- data ----------------------------------------------------------------- */

GBytes *
cugi_test_pattern_new (gsize size,
                       guint seed)
{
  guint8 *data = g_malloc (size);

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) (i * 7 + i / 251 + seed * 13 + 1);
  return g_bytes_new_take (data, size);
}

void
cugi_test_assert_bytes_equal (GBytes *actual,
                              GBytes *expected)
{
  g_assert_cmpmem (g_bytes_get_data (actual, NULL), g_bytes_get_size (actual),
                   g_bytes_get_data (expected, NULL), g_bytes_get_size (expected));
}

typedef struct
{
  guint8 *data;
  gsize   size;
} Pageable;

static void
poison_and_free (gpointer data)
{
  Pageable *pageable = data;

  memset (pageable->data, 0xee, pageable->size);
  g_free (pageable->data);
  g_free (pageable);
}

GBytes *
cugi_test_pageable_copy (GBytes *bytes)
{
  Pageable *pageable = g_new (Pageable, 1);

  pageable->size = g_bytes_get_size (bytes);
  pageable->data = g_memdup2 (g_bytes_get_data (bytes, NULL), pageable->size);
  return g_bytes_new_with_free_func (pageable->data, pageable->size, poison_and_free, pageable);
}

gboolean
cugi_test_is_pinned_host_memory (gconstpointer data)
{
  CUmemorytype type = 0;

  return cugi_cuda.cuPointerGetAttribute (&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                          (CUdeviceptr) (guintptr) data) == CUDA_SUCCESS &&
         type == CU_MEMORYTYPE_HOST;
}

/* ---- signals, threads and main contexts ----------------------------------- */

void
cugi_test_store_result (GObject      *source,
                        GAsyncResult *result,
                        gpointer      slot)
{
  *(GAsyncResult **) slot = g_object_ref (result);
}

void
cugi_test_wait_for_result (GAsyncResult **slot)
{
  GMainContext *main_context = g_main_context_get_thread_default ();

  while (*slot == NULL)
    g_main_context_iteration (main_context, TRUE);
}

void
cugi_test_count_notify (GObject    *object,
                        GParamSpec *pspec,
                        gpointer    counter)
{
  (*(guint *) counter)++;
}

GMainContext *
cugi_test_push_main_context (void)
{
  GMainContext *main_context = g_main_context_new ();

  g_main_context_push_thread_default (main_context);
  return main_context;
}

void
cugi_test_pop_main_context (GMainContext *main_context)
{
  g_main_context_pop_thread_default (main_context);
  g_main_context_unref (main_context);
}

void
cugi_test_run_threads (GThreadFunc func,
                       gpointer    items,
                       gsize       item_size,
                       guint       n)
{
  g_autofree GThread **threads = g_new (GThread *, n);

  for (guint i = 0; i < n; i++)
    threads[i] = g_thread_new ("cugi-test", func, (guint8 *) items + i * item_size);
  for (guint i = 0; i < n; i++)
    g_thread_join (threads[i]);
}

static int n_markers;
static __typeof__ (cugi_cuda.cuLaunchHostFunc) real_launch_host_func;

static CUresult CUDAAPI
counting_launch_host_func (CUstream stream,
                           CUhostFn fn,
                           void    *data)
{
  if (fn == cugi_completion_host_func)
    g_atomic_int_inc (&n_markers);
  return real_launch_host_func (stream, fn, data);
}

void
cugi_test_count_markers (void)
{
  g_assert_null (real_launch_host_func);
  real_launch_host_func = cugi_cuda.cuLaunchHostFunc;
  cugi_cuda.cuLaunchHostFunc = counting_launch_host_func;
}

int
cugi_test_get_n_markers (void)
{
  return g_atomic_int_get (&n_markers);
}

void
cugi_test_caller_init (CugiTestCaller *caller)
{
  caller->thread = g_thread_self ();
  caller->main_context = g_main_context_ref_thread_default ();
}

void
cugi_test_caller_push (CugiTestCaller *caller)
{
  g_autoptr(GMainContext) main_context = g_main_context_new ();

  g_main_context_push_thread_default (main_context);
  cugi_test_caller_init (caller);
}

void
cugi_test_caller_pop (CugiTestCaller *caller)
{
  g_main_context_pop_thread_default (caller->main_context);
  cugi_test_caller_clear (caller);
}

void
cugi_test_caller_clear (CugiTestCaller *caller)
{
  g_clear_pointer (&caller->main_context, g_main_context_unref);
}

void
cugi_test_caller_check (const CugiTestCaller *caller)
{
  g_assert_true (g_thread_self () == caller->thread);
  g_assert_true (g_main_context_is_owner (caller->main_context));
}

/* ---- asynchronous transfers ----------------------------------------------- */

void
cugi_test_transfer_clear (CugiTestTransfer *transfer)
{
  g_clear_pointer (&transfer->bytes, g_bytes_unref);
  g_clear_error (&transfer->error);
}

/* Counts a callback of @transfer on the thread it runs on. */
static CugiTestTransfer *
transfer_called (gpointer transfer)
{
  CugiTestTransfer *called = transfer;

  called->calls++;
  called->thread = g_thread_self ();
  return called;
}

void
cugi_test_on_downloaded (GObject      *source,
                         GAsyncResult *result,
                         gpointer      transfer)
{
  CugiTestTransfer *downloaded = transfer_called (transfer);

  downloaded->bytes = cugi_buffer_download_finish (CUGI_BUFFER (source), result, &downloaded->error);
}

void
cugi_test_on_uploaded (GObject      *source,
                       GAsyncResult *result,
                       gpointer      transfer)
{
  CugiTestTransfer *uploaded = transfer_called (transfer);

  uploaded->uploaded = cugi_buffer_upload_bytes_finish (CUGI_BUFFER (source), result, &uploaded->error);
}

void
cugi_test_on_uploaded_from_address (GObject      *source,
                                    GAsyncResult *result,
                                    gpointer      transfer)
{
  CugiTestTransfer *uploaded = transfer_called (transfer);

  uploaded->uploaded = cugi_buffer_upload_from_address_finish (CUGI_BUFFER (source), result,
                                                               &uploaded->error);
}

void
cugi_test_on_downloaded_to_host (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      transfer)
{
  CugiTestTransfer *downloaded = transfer_called (transfer);

  g_clear_error (&downloaded->error);
  downloaded->in_host = cugi_buffer_download_to_host_finish (CUGI_BUFFER (source), result, &downloaded->error);
}

/* ---- holding a stream back ------------------------------------------------ */

static void CUDA_CB
gate_wait (void *data)
{
  CugiTestGate *gate = data;

  g_mutex_lock (&gate->lock);
  while (!gate->open)
    g_cond_wait (&gate->opened, &gate->lock);
  g_mutex_unlock (&gate->lock);
}

void
cugi_test_gate_close (CugiTestGate *gate,
                      CugiStream   *stream)
{
  g_mutex_init (&gate->lock);
  g_cond_init (&gate->opened);
  gate->open = FALSE;
  g_assert_cmpint (cugi_cuda.cuLaunchHostFunc (cugi_stream_get_handle (stream), gate_wait, gate),
                   ==, CUDA_SUCCESS);
}

void
cugi_test_gate_open (CugiTestGate *gate,
                     CugiStream   *stream)
{
  g_mutex_lock (&gate->lock);
  gate->open = TRUE;
  g_cond_broadcast (&gate->opened);
  g_mutex_unlock (&gate->lock);
  g_assert_cmpint (cugi_cuda.cuStreamSynchronize (cugi_stream_get_handle (stream)), ==, CUDA_SUCCESS);
  g_mutex_clear (&gate->lock);
  g_cond_clear (&gate->opened);
}

/* ---- cugi-info ------------------------------------------------------------ */

void
cugi_test_run_clear (CugiTestRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

void
cugi_test_run_cugi_info (const char         *libcuda,
                         const char * const *arguments,
                         CugiTestRun        *run)
{
  const char *cugi_info = g_getenv ("CUGI_INFO");
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto (GStrv) argv = NULL;
  g_auto (GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;

  if (cugi_info == NULL)
    g_error ("CUGI_INFO is not set: run this test through meson test");
  g_strv_builder_add (builder, cugi_info);
  g_strv_builder_addv (builder, (const char **) arguments);
  argv = g_strv_builder_end (builder);
  if (libcuda != NULL)
    envp = g_environ_setenv (envp, "CUGI_LIBCUDA", libcuda, TRUE);
  envp = g_environ_setenv (envp, "LC_ALL", "C.UTF-8", TRUE);
  g_spawn_sync (NULL, argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &run->out, &run->err, &run->status, &error);
  g_assert_no_error (error);
  g_test_message ("stdout:\n%s\nstderr:\n%s", run->out, run->err);
}

void
cugi_test_run_assert_exit (const CugiTestRun *run,
                           int                exit_status)
{
  g_autoptr(GError) error = NULL;

  g_spawn_check_wait_status (run->status, &error);
  if (exit_status == 0)
    g_assert_no_error (error);
  else
    g_assert_error (error, G_SPAWN_EXIT_ERROR, exit_status);
}
