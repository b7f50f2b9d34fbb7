/* cugi-test-utils.h: shared by cugi's C tests */
#pragma once

#include <cugi/cugi.h>

G_BEGIN_DECLS

/* GTest set-up for cugi's tests: g_test_init plus a fixed locale. */
void     cugi_test_init        (int *argc, char ***argv);
/* cugi_test_init() for tests over the stand-in driver that CUGI_LIBCUDA
 * names (fake-cuda-streams): cugi is initialized with it, or the test fails. */
void     cugi_test_init_stand_in   (int *argc, char ***argv);
/* A function of the stand-in driver through which a test steers or watches
 * it (fake_cuda_streams_fail(), say); the test fails without it. */
gpointer cugi_test_stand_in_symbol (const char *name);

/* Skips the whole program: prints the reason as a skipped TAP plan (and on
 * stderr) and exits, with status 0 under --tap, else 77, so that either
 * kind of harness counts it as skipped. */
void     cugi_test_skip_all    (const char *format,
                                ...) G_GNUC_PRINTF (1, 2) G_GNUC_NORETURN;

/* For tests that need a GPU: when none can be used, skips the whole program
 * with the reason. */
void     cugi_test_require_gpu (void);

/* For a single test case: TRUE if a GPU is usable, else marks the case
 * skipped with the reason and returns FALSE. */
gboolean cugi_test_have_gpu    (void);

/* Runs the current test case again in a subprocess (stderr inherited), with
 * @timeout_s seconds (0: no limit), and asserts that it passed. */
void     cugi_test_trap_subprocess (guint timeout_s);
/* For a test case that needs a process of its own: in the subprocess, TRUE
 * (go on); otherwise cugi_test_trap_subprocess() and FALSE (return). */
gboolean cugi_test_in_subprocess   (guint timeout_s);

/* ---- objects of the default context; any error fails the test ----------- */

CugiContext *cugi_test_default_context (void);
/* A stream of priority 0. */
CugiStream  *cugi_test_stream_new      (CugiStreamFlags flags);
CugiEvent   *cugi_test_event_new       (CugiEventFlags  flags);
CugiBuffer  *cugi_test_buffer_new      (gsize           size);
/* A buffer holding @contents. */
CugiBuffer  *cugi_test_buffer_new_with (GBytes         *contents);
CugiArray   *cugi_test_array_new       (CugiArrayFormat format,
                                        guint           channels,
                                        gsize           width,
                                        gsize           height,
                                        gsize           depth,
                                        CugiArrayFlags  flags);
/* Kernel @name of @source, compiled with NVRTC. */
CugiKernel  *cugi_test_kernel_new      (const char     *source,
                                        const char     *name);

/* ---- calls that must succeed ---------------------------------------------- */

/* Waits for @stream's work, or with %NULL for all of the default context's. */
void     cugi_test_synchronize        (CugiStream *stream);
/* Asserts that cugi_stream_query() says @done, without an error. */
void     cugi_test_assert_query       (CugiStream *stream,
                                       gboolean    done);
void     cugi_test_record             (CugiEvent  *event,
                                       CugiStream *stream);
void     cugi_test_event_synchronize  (CugiEvent  *event);
/* Asserts that cugi_event_query() says @done, without an error. */
void     cugi_test_assert_event_query (CugiEvent  *event,
                                       gboolean    done);
/* Asserts that cugi_event_elapsed_time() gives no time for @start and
 * @end: 0, with CUGI_ERROR_INVALID_STATE. */
void     cugi_test_assert_no_elapsed_time (CugiEvent *start,
                                           CugiEvent *end);
/* Enqueues about @ms milliseconds of work on @stream. */
typedef void (*CugiTestWorkFunc) (CugiStream *stream,
                                  guint       ms);
/* Takes cugi_event_elapsed_time() on @stream through its refusals (neither
 * event recorded, one recorded, timing disabled, the work between them not
 * done yet) to the time it gives once that work, @ms milliseconds of it
 * from @work, is done, and returns that time. */
gdouble  cugi_test_check_elapsed_time (CugiStream       *stream,
                                       CugiTestWorkFunc  work,
                                       guint             ms);
/* @size bytes from @offset, checked to be that many. */
GBytes  *cugi_test_download           (CugiBuffer *buffer,
                                       gsize       offset,
                                       gsize       size);
GBytes  *cugi_test_download_all       (CugiBuffer *buffer);
/* Runs what the global default main context has pending, waits for the work
 * on @stream (NULL: the default context's legacy stream), then runs what its
 * completion released. */
void     cugi_test_settle             (CugiStream *stream);

/* ---- errors --------------------------------------------------------------- */

/* Asserts that *@error is CUGI_ERROR @code with @fragment (unless NULL) in
 * its message, and clears it. */
void     cugi_test_assert_error       (GError    **error,
                                       gint        code,
                                       const char *fragment);
/* The same, after asserting that the call that set *@error returned
 * @succeeded FALSE: cugi_test_assert_fails (call (..., &error), &error, ...). */
void     cugi_test_assert_fails       (gboolean    succeeded,
                                       GError    **error,
                                       gint        code,
                                       const char *fragment);

/* ---- data ----------------------------------------------------------------- */

/* A recognizable byte pattern; different seeds give different patterns. */
GBytes  *cugi_test_pattern_new            (gsize         size,
                                           guint         seed);
void     cugi_test_assert_bytes_equal     (GBytes       *actual,
                                           GBytes       *expected);
/* A copy of @bytes in memory of its own, overwritten with 0xee and freed
 * when the last reference goes, as a caller's memory would be once the
 * caller is done with it. */
GBytes  *cugi_test_pageable_copy          (GBytes       *bytes);
/* Whether the driver knows @data as page-locked host memory. */
gboolean cugi_test_is_pinned_host_memory  (gconstpointer data);

/* ---- signals, threads and main contexts ----------------------------------- */

/* A GAsyncReadyCallback that keeps a reference to the result in the
 * (GAsyncResult **) @slot, for a test to wait for and finish. */
void          cugi_test_store_result      (GObject      *source,
                                           GAsyncResult *result,
                                           gpointer      slot);
/* Iterates the thread-default main context until *@slot is set. */
void          cugi_test_wait_for_result   (GAsyncResult **slot);
/* A "notify" handler that counts into the guint at @counter. */
void          cugi_test_count_notify      (GObject     *object,
                                           GParamSpec  *pspec,
                                           gpointer     counter);
/* A new main context, pushed as the thread default. */
GMainContext *cugi_test_push_main_context (void);
/* Pops @main_context and drops the reference the push function returned. */
void          cugi_test_pop_main_context  (GMainContext *main_context);
/* Runs @func on @n threads at once, the i-th given @items + i × @item_size,
 * and waits for all of them. */
void          cugi_test_run_threads       (GThreadFunc  func,
                                           gpointer     items,
                                           gsize        item_size,
                                           guint        n);

/* From now on, counts the markers cugi enqueues (cuLaunchHostFunc with its
 * completion function), by wrapping the loader's entry point. Once, after
 * cugi_init(). */
void          cugi_test_count_markers     (void);
int           cugi_test_get_n_markers     (void);

/* Where callbacks must arrive: a thread and its thread-default main context
 * at the time cugi_test_caller_init() ran there. */
typedef struct
{
  GThread      *thread;
  GMainContext *main_context;
} CugiTestCaller;

void cugi_test_caller_init  (CugiTestCaller       *caller);
/* A new main context pushed as the thread default, and cugi_test_caller_init(). */
void cugi_test_caller_push  (CugiTestCaller       *caller);
/* Pops the main context cugi_test_caller_push() pushed, and clears @caller. */
void cugi_test_caller_pop   (CugiTestCaller       *caller);
void cugi_test_caller_clear (CugiTestCaller       *caller);
/* Asserts that this is @caller's thread and that it runs its main context. */
void cugi_test_caller_check (const CugiTestCaller *caller);

/* ---- holding a stream back ------------------------------------------------ */

/* A stand-in for a long kernel: a host function that holds its stream until
 * the gate opens, for stand-in drivers whose work takes no time. */
typedef struct
{
  GMutex   lock;
  GCond    opened;
  gboolean open;
} CugiTestGate;

/* Closes @gate on @stream: work enqueued after this waits for it. */
void cugi_test_gate_close (CugiTestGate *gate,
                           CugiStream   *stream);
/* Opens @gate and waits, without telling cugi, until @stream is past it. */
void cugi_test_gate_open  (CugiTestGate *gate,
                           CugiStream   *stream);

/* ---- asynchronous transfers ----------------------------------------------- */

/* What the callbacks below saw, for the caller to check. */
typedef struct
{
  guint    calls;
  GBytes  *bytes;     /* from cugi_buffer_download_finish() */
  gboolean uploaded;  /* from cugi_buffer_upload_bytes_finish() or
                       * cugi_buffer_upload_from_address_finish() */
  gboolean in_host;   /* from cugi_buffer_download_to_host_finish() */
  GError  *error;
  GThread *thread;    /* where the callback ran */
} CugiTestTransfer;

void cugi_test_transfer_clear (CugiTestTransfer *transfer);
/* GAsyncReadyCallbacks for cugi_buffer_download_async() and
 * cugi_buffer_upload_bytes_async(), with a CugiTestTransfer as user data. */
void cugi_test_on_downloaded  (GObject          *source,
                               GAsyncResult     *result,
                               gpointer          transfer);
void cugi_test_on_uploaded    (GObject          *source,
                               GAsyncResult     *result,
                               gpointer          transfer);
/* And for cugi_buffer_download_to_host_async() and
 * cugi_buffer_upload_from_address_async(). */
void cugi_test_on_downloaded_to_host (GObject      *source,
                                      GAsyncResult *result,
                                      gpointer      transfer);
void cugi_test_on_uploaded_from_address (GObject      *source,
                                         GAsyncResult *result,
                                         gpointer      transfer);

/* ---- cugi-info ------------------------------------------------------------ */

/* What a run of cugi-info printed and how it ended. */
typedef struct
{
  char *out;
  char *err;
  int   status;
} CugiTestRun;

void cugi_test_run_clear (CugiTestRun *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CugiTestRun, cugi_test_run_clear)

/* Runs cugi-info (CUGI_INFO, set by tests/meson.build) with @arguments
 * (NULL-terminated), in the C.UTF-8 locale, with CUGI_LIBCUDA set to
 * @libcuda unless that is NULL. */
void cugi_test_run_cugi_info   (const char         *libcuda,
                                const char * const *arguments,
                                CugiTestRun        *run);
/* Asserts that the run exited with @exit_status. */
void cugi_test_run_assert_exit (const CugiTestRun  *run,
                                int                 exit_status);

G_END_DECLS
