/* bench-completion.c: what the completion bridge costs, on a GPU
 *
 * 1. Latency from GPU completion to the code that learns of it, p50, p99
 *    and p99.9: CugiEvent::completed in the main loop, beside a raw
 *    cuLaunchHostFunc callback on CUDA's thread. "Completion" is when a
 *    kernel's last write, to mapped pinned memory, becomes visible to a host
 *    thread that spins on it; all paths are timed from there with the same
 *    clock (CLOCK_MONOTONIC), in the same process. cugi's delivery runs once
 *    per way of learning of the completion and waking the main loop
 *    (cugi_completion_set_delivery(): ready-time; eventfd; spin; counter,
 *    the default, where a cugi thread watches a counter the stream writes
 *    before the host function), each with where its time goes: when the
 *    marker is seen (CUDA's thread calls its host function, or the counter's
 *    watcher sees it), when that thread has queued the completion and woken
 *    the context, when the context finds it (before sleeping or woken:
 *    prepare/check), dispatch, and the handler. Goals
 *    (issue 12): added latency over the raw callback <= 5 us at the median,
 *    p99 <= 1.5x the raw p99. Beside them, with no GPU, what GLib takes to
 *    wake a thread asleep in its main loop.
 * 2. Kernel launch throughput with and without a CugiStream::idle handler
 *    connected (bursts of launches, one main-loop iteration each), for each
 *    delivery. Goal: the ratio is at least 0.97.
 * 3. The longest main-loop stall (a 1 ms timer; the longest gap between two
 *    ticks, less the period) while 1 GiB goes through the public async
 *    download and upload API: in turn downloads, uploads of the last
 *    download (pinned memory) and uploads from pageable memory, which must
 *    be staged, for each delivery. Goal: under 2 ms. The first copies of a
 *    run pin the staging memory that cugi then reuses; they run first, as a
 *    warm-up whose figures are printed apart. Beside the stall: the longest
 *    time inside one call of each kind, and the staging blocks pinned
 *    during the run (by any thread; "in calls": the calls during which the
 *    pool grew, which a call pinning on its own thread would show).
 *
 * Prints PASS or MISS against each goal; exits 77 without a GPU.
 * --runs N repeats part 3 N times (the deliveries in turn, each run with
 * its warm-up) and prints a table of the runs with the median and the
 * largest stall and longest calls of each delivery, the goal checked on
 * the largest; without it, one run, printed as the runs' table is not.
 * --json FILE writes each latency distribution as a record
 * {"bench":"completion","impl":..,"p50_us":..,"p99_us":..,"p999_us":..,
 *  "samples":[..]} (microseconds), for a plot, and each run of part 3 as
 * {"bench":"completion-stall","impl":..,"run":..,"longest_gap_ms":..,
 *  "stall_ms":..,"longest_call_ms":{"download":..,"upload_pinned":..,
 *  "upload_pageable":..},"longest_callback_ms":..,"gb_per_s":..,
 *  "staging_blocks_pinned":..,"calls_pinning":..}. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cugi-private.h"
#include "cugi-stream-private.h"
#include "cugi-staging-private.h"
#include "bench-util.h"
#include "gpu-work.h"

#define N_LATENCY_SAMPLES 2000
#define GOAL_ADDED_P50_US 5.0
#define GOAL_P99_OVER_RAW 1.5
#define SPIN_US 200

#define N_BURSTS 50
#define LAUNCHES_PER_BURST 200
#define N_THROUGHPUT_ROUNDS 7
#define GOAL_THROUGHPUT_RATIO 0.97

#define COPY_TOTAL ((gsize) 1 << 30)
#define COPY_WARM_UP ((gsize) 128 << 20)
#define COPY_CHUNK ((gsize) 8 << 20)
#define COPY_DEVICE_SIZE ((gsize) 256 << 20)
#define COPIES_IN_FLIGHT 4
#define GOAL_STALL_US 2000.0
#define MAX_STALL_RUNS 100

static const char kernels_source[] =
  "extern \"C\" __global__ void signal_after(volatile unsigned int *flag, unsigned int value,\n"
  "                                          long long cycles)\n"
  "{\n"
  "  long long t = clock64();\n"
  "  while (clock64() - t < cycles);\n"
  "  __threadfence_system();\n"
  "  *flag = value;\n"
  "}\n"
  "extern \"C\" __global__ void nothing() {}\n";

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *) a;
  gint64 y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* The median of @n values (n > 0). */
static double
median (const gint64 *values,
        guint         n)
{
  g_autofree gint64 *sorted = g_memdup2 (values, n * sizeof *values);

  qsort (sorted, n, sizeof *sorted, compare_gint64);
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
}

/* The @percent percentile of @values, in microseconds. */
static double
percentile_us (const gint64 *values,
               guint         n,
               double        percent)
{
  g_autofree gint64 *sorted = g_memdup2 (values, n * sizeof *values);

  qsort (sorted, n, sizeof *sorted, compare_gint64);
  return sorted[MIN (n - 1, (guint) (percent / 100.0 * n))] / 1000.0;
}

/* The records of --json, NULL without it. */
static GString *json_records;

static void
add_record (const char   *impl,
            const gint64 *latencies,
            guint         n)
{
  if (json_records == NULL)
    return;
  g_string_append_printf (json_records, "%s\n  {\"bench\":\"completion\",\"impl\":\"%s\","
                          "\"p50_us\":%.2f,\"p99_us\":%.2f,\"p999_us\":%.2f,\"samples\":[",
                          json_records->len > 1 ? "," : "", impl, percentile_us (latencies, n, 50),
                          percentile_us (latencies, n, 99), percentile_us (latencies, n, 99.9));
  for (guint i = 0; i < n; i++)
    g_string_append_printf (json_records, "%s%.2f", i > 0 ? "," : "", latencies[i] / 1000.0);
  g_string_append (json_records, "]}");
}

static const char *
verdict (gboolean pass)
{
  return pass ? "PASS" : "MISS";
}

/* A new thread-default main context whose completions come through
 * @delivery (see cugi_completion_set_delivery()): the objects made from now
 * on deliver there. */
static GMainContext *
push_delivery (CugiCompletionDelivery delivery)
{
  GMainContext *main_context = g_main_context_new ();

  cugi_completion_set_delivery (delivery, SPIN_US);
  g_main_context_push_thread_default (main_context);
  return main_context;
}

/* Once the objects made since push_delivery() are gone. */
static void
pop_delivery (GMainContext *main_context)
{
  while (g_main_context_iteration (main_context, FALSE))
    ;
  g_main_context_pop_thread_default (main_context);
  g_main_context_unref (main_context);
  cugi_completion_set_delivery (CUGI_COMPLETION_DELIVERY_READY_TIME, 0);
}

static CugiKernel *
kernel_new (const char *name)
{
  g_autoptr(GError) error = NULL;
  CugiKernel *kernel = cugi_kernel_new_from_source (NULL, kernels_source, name, NULL, &error);

  g_assert_no_error (error);
  return kernel;
}

/* ---- 1. latency ------------------------------------------------------------- */

typedef struct
{
  volatile guint32 *flag;            /* mapped pinned memory the kernel writes */
  guint64           flag_device;
  CugiKernel       *signal_after;
  CugiStream       *stream;
  CugiEvent        *event;
  GMainLoop        *loop;

  gint64            visible_at[N_LATENCY_SAMPLES];  /* by the spinning thread */
  gint64            learned_at[N_LATENCY_SAMPLES];  /* by the callback or handler */
  /* cugi's stages (cugi_completion_set_probe()): the first of each per
   * sample; PREPARE holds whichever of prepare and check found it first. */
  gint64            stage_at[CUGI_COMPLETION_N_STAGES][N_LATENCY_SAMPLES];
  int               n_visible;                      /* atomic */
  guint             sample;
  gboolean          stop;
} Latency;

/* Spins on the flag and notes when each new value becomes visible. */
static gpointer
watch_flag (gpointer data)
{
  Latency *latency = data;
  guint32 expected = 1;

  while (!g_atomic_int_get (&latency->stop))
    {
      if (*latency->flag >= expected)
        {
          latency->visible_at[expected - 1] = bench_clock_ns (CLOCK_MONOTONIC);
          g_atomic_int_set (&latency->n_visible, expected);
          expected++;
        }
    }
  return NULL;
}

/* Launches sample @latency->sample: about 20 us of spinning, so that what
 * follows is enqueued before the kernel ends, then the flag's write. */
static void
launch_sample (Latency *latency)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (1, 1);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();

  cugi_launch_config_set_stream (config, latency->stream);
  cugi_kernel_args_add_pointer (args, latency->flag_device);
  cugi_kernel_args_add_uint32 (args, latency->sample + 1);
  cugi_kernel_args_add_int64 (args, spin_cycles (0.02));
  cugi_kernel_launch (latency->signal_after, config, args, &error);
  g_assert_no_error (error);
}

/* The latency run the probe notes stages for. */
static Latency *probed;

static void
note_stage (CugiCompletionStage stage)
{
  guint sample = g_atomic_int_get (&probed->sample);

  if (stage == CUGI_COMPLETION_STAGE_CHECK)
    stage = CUGI_COMPLETION_STAGE_PREPARE;
  if (sample < N_LATENCY_SAMPLES && probed->stage_at[stage][sample] == 0)
    probed->stage_at[stage][sample] = bench_clock_ns (CLOCK_MONOTONIC);
}

static void CUDA_CB
note_raw_callback (void *data)
{
  Latency *latency = data;

  latency->learned_at[latency->sample] = bench_clock_ns (CLOCK_MONOTONIC);
}

static void
on_completed (CugiEvent *event,
              Latency   *latency)
{
  g_autoptr(GError) error = NULL;

  latency->learned_at[latency->sample] = bench_clock_ns (CLOCK_MONOTONIC);
  if (++latency->sample == N_LATENCY_SAMPLES)
    {
      g_main_loop_quit (latency->loop);
      return;
    }
  launch_sample (latency);
  cugi_event_record (latency->event, latency->stream, &error);
  g_assert_no_error (error);
}

/* Stops @watcher once it has seen every sample, and fills @latencies with
 * learned_at - visible_at. */
static void
collect (Latency *latency,
         GThread *watcher,
         gint64  *latencies)
{
  gint64 deadline = g_get_monotonic_time () + G_USEC_PER_SEC;

  while (g_atomic_int_get (&latency->n_visible) < N_LATENCY_SAMPLES &&
         g_get_monotonic_time () < deadline)
    g_usleep (100);
  g_atomic_int_set (&latency->stop, TRUE);
  g_thread_join (watcher);
  g_assert_cmpint (g_atomic_int_get (&latency->n_visible), ==, N_LATENCY_SAMPLES);
  for (guint i = 0; i < N_LATENCY_SAMPLES; i++)
    latencies[i] = latency->learned_at[i] - latency->visible_at[i];
}

static void
reset (Latency *latency)
{
  g_autoptr(GError) error = NULL;

  *latency->flag = 0;
  latency->sample = 0;
  memset (latency->stage_at, 0, sizeof latency->stage_at);
  g_atomic_int_set (&latency->n_visible, 0);
  g_atomic_int_set (&latency->stop, FALSE);
  cugi_stream_synchronize (latency->stream, &error);
  g_assert_no_error (error);
}

/* The platform's share: how long GLib takes to wake a thread that sleeps in
 * its main loop's poll(), from g_source_set_ready_time() in another thread to
 * the source's dispatch. The completion bridge pays this once, after CUDA's
 * own callback; a host function's latency plus this is the least any
 * main-loop delivery through cuLaunchHostFunc can cost on this machine. */
typedef struct
{
  GSource  parent;
  gint64   woken_at;  /* written before woken is set */
  gint     woken;     /* atomic */
} WakeSource;

static gboolean
wake_source_dispatch (GSource    *source,
                      GSourceFunc callback,
                      gpointer    user_data)
{
  WakeSource *wake = (WakeSource *) source;

  wake->woken_at = bench_clock_ns (CLOCK_MONOTONIC);
  g_source_set_ready_time (source, -1);
  g_atomic_int_set (&wake->woken, TRUE);
  return G_SOURCE_CONTINUE;
}

static GSourceFuncs wake_source_funcs = { .dispatch = wake_source_dispatch };

static gpointer
run_loop (gpointer loop)
{
  g_main_context_push_thread_default (g_main_loop_get_context (loop));
  g_main_loop_run (loop);
  g_main_context_pop_thread_default (g_main_loop_get_context (loop));
  return NULL;
}

static gboolean
quit_loop (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

static void
measure_thread_wake (gint64 *latencies)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GMainLoop) loop = g_main_loop_new (context, FALSE);
  GSource *source = g_source_new (&wake_source_funcs, sizeof (WakeSource));
  WakeSource *wake = (WakeSource *) source;
  GThread *thread;

  g_source_attach (source, context);
  thread = g_thread_new ("wake-me", run_loop, loop);
  for (guint i = 0; i < N_LATENCY_SAMPLES; i++)
    {
      gint64 sent_at;

      /* Long enough for the thread to go back to sleep in poll(). */
      g_usleep (200);
      g_atomic_int_set (&wake->woken, FALSE);
      sent_at = bench_clock_ns (CLOCK_MONOTONIC);
      g_source_set_ready_time (source, 0);
      while (!g_atomic_int_get (&wake->woken))
        ;
      latencies[i] = wake->woken_at - sent_at;
    }
  g_main_context_invoke (context, quit_loop, loop);
  g_thread_join (thread);
  g_source_destroy (source);
  g_source_unref (source);
}

/* The stages shown, by their CugiCompletionStage (CHECK is folded into
 * PREPARE), and their latencies for one delivery. */
#define N_STAGES_SHOWN 4
static const char *const stage_names[N_STAGES_SHOWN] = {
  [CUGI_COMPLETION_STAGE_HOST_FUNC] = "marker seen",
  [CUGI_COMPLETION_STAGE_QUEUED] = "queued, woken",
  [CUGI_COMPLETION_STAGE_PREPARE] = "found (prepare/check)",
  [CUGI_COMPLETION_STAGE_DISPATCH - 1] = "dispatch",
};
typedef gint64 StageLatencies[N_STAGES_SHOWN][N_LATENCY_SAMPLES];

/* CugiEvent::completed through @delivery: a main context of its own (whose
 * completion source is made with the delivery), which sleeps in poll()
 * between samples as a real application's would. Fills @completed with the
 * handler's latencies and @stages with the stages'. */
static void
run_cugi_latency (Latency               *latency,
                  CugiCompletionDelivery delivery,
                  gint64                *completed,
                  StageLatencies         stages)
{
  g_autoptr(GError) error = NULL;
  GMainContext *main_context = push_delivery (delivery);
  CugiStream *raw_stream = latency->stream;
  GThread *watcher;

  latency->stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  latency->event = cugi_event_new (NULL, CUGI_EVENT_FLAGS_DISABLE_TIMING, &error);
  g_assert_no_error (error);
  latency->loop = g_main_loop_new (main_context, FALSE);

  reset (latency);
  probed = latency;
  cugi_completion_set_probe (note_stage);
  watcher = g_thread_new ("watch-flag", watch_flag, latency);
  g_signal_connect (latency->event, "completed", G_CALLBACK (on_completed), latency);
  launch_sample (latency);
  cugi_event_record (latency->event, latency->stream, &error);
  g_assert_no_error (error);
  g_main_loop_run (latency->loop);
  collect (latency, watcher, completed);
  cugi_completion_set_probe (NULL);
  for (guint stage = 0; stage < N_STAGES_SHOWN; stage++)
    {
      /* CHECK's slot stays empty: note_stage() folds it into PREPARE's. */
      guint noted = stage < CUGI_COMPLETION_STAGE_CHECK ? stage : stage + 1;

      for (guint i = 0; i < N_LATENCY_SAMPLES; i++)
        stages[stage][i] = latency->stage_at[noted][i] - latency->visible_at[i];
    }

  /* The last sample's marker has run: nothing of this context is left. */
  cugi_stream_synchronize (latency->stream, &error);
  g_assert_no_error (error);
  g_clear_object (&latency->event);
  g_clear_object (&latency->stream);
  g_clear_pointer (&latency->loop, g_main_loop_unref);
  pop_delivery (main_context);
  latency->stream = raw_stream;
}

static void
print_distribution (const char   *what,
                    const gint64 *latencies)
{
  printf ("   %-34s %8.1f %8.1f %8.1f\n", what, percentile_us (latencies, N_LATENCY_SAMPLES, 50),
          percentile_us (latencies, N_LATENCY_SAMPLES, 99), percentile_us (latencies, N_LATENCY_SAMPLES, 99.9));
}

static void
bench_latency (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiHostBuffer) flag_memory = NULL;
  g_autofree gint64 *raw = g_new (gint64, N_LATENCY_SAMPLES);
  g_autofree gint64 *completed = g_new (gint64, N_LATENCY_SAMPLES * CUGI_COMPLETION_N_DELIVERIES);
  g_autofree StageLatencies *stages = g_new (StageLatencies, CUGI_COMPLETION_N_DELIVERIES);
  Latency *latency = g_new0 (Latency, 1);
  GThread *watcher;
  g_autofree gint64 *wake = g_new (gint64, N_LATENCY_SAMPLES);
  double raw_p50, raw_p99;

  flag_memory = cugi_host_buffer_new (NULL, 4096, CUGI_HOST_BUFFER_FLAGS_MAPPED, &error);
  g_assert_no_error (error);
  latency->flag = (volatile guint32 *) cugi_host_buffer_get_data (flag_memory, NULL, &error);
  g_assert_no_error (error);
  latency->flag_device = cugi_host_buffer_get_device_pointer (flag_memory);
  latency->signal_after = kernel_new ("signal_after");
  latency->stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);

  /* Raw: a host function of our own behind each kernel, waited for with
   * cuStreamSynchronize (the host function's time does not depend on it). */
  reset (latency);
  watcher = g_thread_new ("watch-flag", watch_flag, latency);
  for (; latency->sample < N_LATENCY_SAMPLES; latency->sample++)
    {
      launch_sample (latency);
      g_assert_cmpint (cugi_cuda.cuLaunchHostFunc (cugi_stream_get_handle (latency->stream),
                                                   note_raw_callback, latency), ==, CUDA_SUCCESS);
      cugi_stream_synchronize (latency->stream, &error);
      g_assert_no_error (error);
    }
  collect (latency, watcher, raw);

  for (guint d = 0; d < CUGI_COMPLETION_N_DELIVERIES; d++)
    run_cugi_latency (latency, d, completed + d * N_LATENCY_SAMPLES, stages[d]);

  measure_thread_wake (wake);

  raw_p50 = percentile_us (raw, N_LATENCY_SAMPLES, 50);
  raw_p99 = percentile_us (raw, N_LATENCY_SAMPLES, 99);
  printf ("1. Completion latency, %u samples each, in us from the moment a kernel's last write\n"
          "   (to mapped pinned memory) is seen by a host thread spinning on it, to:\n",
          N_LATENCY_SAMPLES);
  printf ("   %-34s %8s %8s %8s\n", "", "p50", "p99", "p99.9");
  print_distribution ("raw cuLaunchHostFunc callback", raw);
  add_record ("raw", raw, N_LATENCY_SAMPLES);
  for (guint d = 0; d < CUGI_COMPLETION_N_DELIVERIES; d++)
    {
      const gint64 *handler = completed + d * N_LATENCY_SAMPLES;
      g_autofree char *title = g_strdup_printf ("cugi, %s: ::completed handler",
                                                cugi_completion_delivery_get_name (d));
      double p50 = percentile_us (handler, N_LATENCY_SAMPLES, 50);
      double p99 = percentile_us (handler, N_LATENCY_SAMPLES, 99);

      print_distribution (title, handler);
      for (guint stage = 0; stage < N_STAGES_SHOWN; stage++)
        {
          g_autofree char *what = g_strdup_printf ("  at %s", stage_names[stage]);

          print_distribution (what, stages[d][stage]);
        }
      printf ("     added over raw: p50 +%.1f us (goal <= %.0f: %s), p99 %.2fx raw (goal <= %.1f: %s)\n",
              p50 - raw_p50, GOAL_ADDED_P50_US, verdict (p50 - raw_p50 <= GOAL_ADDED_P50_US),
              p99 / raw_p99, GOAL_P99_OVER_RAW, verdict (p99 <= GOAL_P99_OVER_RAW * raw_p99));
      add_record (cugi_completion_delivery_get_name (d), handler, N_LATENCY_SAMPLES);
    }
  printf ("   (spin waits up to %u us before the main loop sleeps while completions are in flight;\n"
          "   counter's thread spins after each marker is enqueued, then sleeps between looks)\n",
          SPIN_US);
  print_distribution ("GLib waking a sleeping main loop", wake);
  add_record ("glib-wake", wake, N_LATENCY_SAMPLES);

  g_object_unref (latency->signal_after);
  g_object_unref (latency->stream);
  g_free (latency);
}

/* ---- 2. launch throughput ----------------------------------------------------- */

/* Launches per second of the empty kernel: N_BURSTS bursts, each followed by
 * one iteration of the thread-default main context, then a wait for the
 * stream (and for ::idle when watched). */
static double
launch_rate (CugiKernel *nothing,
             gboolean    watch_idle)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (1, 32);
  g_autoptr(CugiKernelArgs) args = cugi_kernel_args_new ();
  guint n_idle = 0;
  gint64 start;
  double seconds;

  g_assert_no_error (error);
  cugi_launch_config_set_stream (config, stream);
  if (watch_idle)
    g_signal_connect (stream, "idle", G_CALLBACK (count_emission), &n_idle);

  start = bench_clock_ns (CLOCK_MONOTONIC);
  for (guint burst = 0; burst < N_BURSTS; burst++)
    {
      for (guint i = 0; i < LAUNCHES_PER_BURST; i++)
        if (!cugi_kernel_launch (nothing, config, args, &error))
          g_error ("launch failed: %s", error->message);
      g_main_context_iteration (g_main_context_get_thread_default (), FALSE);
    }
  cugi_stream_synchronize (stream, &error);
  g_assert_no_error (error);
  if (watch_idle)
    iterate_until (&n_idle, 1, 10000);
  seconds = (bench_clock_ns (CLOCK_MONOTONIC) - start) / 1e9;

  return N_BURSTS * LAUNCHES_PER_BURST / seconds;
}

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

static void
bench_throughput (void)
{
  g_autoptr(CugiKernel) nothing = kernel_new ("nothing");

  printf ("2. Launch throughput, empty kernel, %u bursts of %u launches with a main-loop\n"
          "   iteration after each, until the stream is idle; median of %u rounds:\n",
          N_BURSTS, LAUNCHES_PER_BURST, N_THROUGHPUT_ROUNDS);
  printf ("   %-12s %22s %22s %7s\n", "delivery", "without idle handler", "with idle handler", "ratio");
  for (guint d = 0; d < CUGI_COMPLETION_N_DELIVERIES; d++)
    {
      GMainContext *main_context = push_delivery (d);
      double without[N_THROUGHPUT_ROUNDS];
      double with[N_THROUGHPUT_ROUNDS];
      double ratio;

      /* Warm up, then alternate, so that drift affects both alike. */
      launch_rate (nothing, FALSE);
      for (guint round = 0; round < N_THROUGHPUT_ROUNDS; round++)
        {
          without[round] = launch_rate (nothing, FALSE);
          with[round] = launch_rate (nothing, TRUE);
        }
      pop_delivery (main_context);
      qsort (without, N_THROUGHPUT_ROUNDS, sizeof (double), compare_double);
      qsort (with, N_THROUGHPUT_ROUNDS, sizeof (double), compare_double);
      ratio = with[N_THROUGHPUT_ROUNDS / 2] / without[N_THROUGHPUT_ROUNDS / 2];
      printf ("   %-12s %13.0f launches/s %13.0f launches/s %7.3f  goal >= %.2f: %s\n",
              cugi_completion_delivery_get_name (d), without[N_THROUGHPUT_ROUNDS / 2],
              with[N_THROUGHPUT_ROUNDS / 2], ratio, GOAL_THROUGHPUT_RATIO,
              verdict (ratio >= GOAL_THROUGHPUT_RATIO));
    }
}

/* ---- 3. main-loop stall -------------------------------------------------------- */

typedef enum
{
  COPY_DOWNLOAD,
  COPY_UPLOAD_PINNED,
  COPY_UPLOAD_PAGEABLE,
  N_COPY_KINDS
} CopyKind;

static const char *const copy_kind_names[N_COPY_KINDS] = {
  [COPY_DOWNLOAD] = "download",
  [COPY_UPLOAD_PINNED] = "upload_pinned",
  [COPY_UPLOAD_PAGEABLE] = "upload_pageable",
};

/* What one run of copies saw. */
typedef struct
{
  guint  n_kind[N_COPY_KINDS];
  gint64 longest_gap;                  /* us between two ticks */
  gint64 longest_call[N_COPY_KINDS];   /* us inside one *_async() call */
  gint64 longest_callback;             /* us inside one callback */
  double seconds;
  guint  blocks_pinned;                /* staging blocks the pool gained */
  guint  calls_pinning;                /* calls during which it gained some */
} CopyRun;

typedef struct
{
  CugiHostMemoryPool *staging;   /* borrowed: cugi's staging pool */
  CugiBuffer *device;
  CugiStream *stream;
  GMainLoop  *loop;
  GBytes     *pinned;          /* the last download, uploaded back next */
  GBytes     *pageable;        /* ordinary memory, as large as the device buffer */
  guint       n_issued;
  guint       n_done;
  guint       n_total;
  gint64      last_tick;
  CopyRun    *run;
} Stall;

static gboolean
tick (gpointer data)
{
  Stall *stall = data;
  gint64 now = g_get_monotonic_time ();

  if (stall->last_tick != 0 && stall->run != NULL)
    stall->run->longest_gap = MAX (stall->run->longest_gap, now - stall->last_tick);
  stall->last_tick = now;
  return G_SOURCE_CONTINUE;
}

static void copy_done (GObject *source, GAsyncResult *result, gpointer data);

/* The blocks of pinned memory that the staging pool has made and not freed. */
static guint
staging_blocks (Stall *stall)
{
  return cugi_host_memory_pool_get_held_blocks (stall->staging) +
         cugi_host_memory_pool_get_active_blocks (stall->staging);
}

/* In turn: a download of a chunk into pinned memory, an upload of the last
 * download back from that pinned memory, and an upload from pageable memory
 * (from all over it, not from one chunk that the caches hold). */
static void
issue_copy (Stall *stall)
{
  gsize offset = (stall->n_issued / N_COPY_KINDS * COPY_CHUNK) % COPY_DEVICE_SIZE;
  CopyKind kind = stall->n_issued % N_COPY_KINDS;
  g_autoptr(GBytes) pageable = g_bytes_new_from_bytes (stall->pageable, offset, COPY_CHUNK);
  guint blocks = staging_blocks (stall);
  gint64 start = g_get_monotonic_time ();

  if (kind == COPY_UPLOAD_PINNED && stall->pinned == NULL)
    kind = COPY_DOWNLOAD;
  if (kind == COPY_DOWNLOAD)
    cugi_buffer_download_async (stall->device, offset, COPY_CHUNK, stall->stream, NULL, copy_done, stall);
  else
    cugi_buffer_upload_bytes_async (stall->device, offset,
                                    kind == COPY_UPLOAD_PINNED ? stall->pinned : pageable,
                                    stall->stream, NULL, copy_done, stall);
  stall->run->longest_call[kind] = MAX (stall->run->longest_call[kind], g_get_monotonic_time () - start);
  if (staging_blocks (stall) > blocks)
    stall->run->calls_pinning++;
  stall->run->n_kind[kind]++;
  stall->n_issued++;
}

static void
copy_done (GObject      *source,
           GAsyncResult *result,
           gpointer      data)
{
  Stall *stall = data;
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  if (g_task_get_source_tag (G_TASK (result)) == cugi_buffer_download_async)
    {
      GBytes *bytes = cugi_buffer_download_finish (CUGI_BUFFER (source), result, &error);

      g_assert_no_error (error);
      g_clear_pointer (&stall->pinned, g_bytes_unref);
      stall->pinned = bytes;
    }
  else
    {
      cugi_buffer_upload_bytes_finish (CUGI_BUFFER (source), result, &error);
      g_assert_no_error (error);
    }

  if (++stall->n_done == stall->n_total)
    g_main_loop_quit (stall->loop);
  else if (stall->n_issued < stall->n_total)
    issue_copy (stall);
  stall->run->longest_callback = MAX (stall->run->longest_callback, g_get_monotonic_time () - start);
}

/* @total bytes of copies, COPIES_IN_FLIGHT at a time, with the timer ticking. */
static void
run_copies (Stall   *stall,
            gsize    total,
            CopyRun *run)
{
  gint64 start = g_get_monotonic_time ();
  guint blocks = staging_blocks (stall);

  stall->run = run;
  stall->n_issued = stall->n_done = 0;
  stall->n_total = total / COPY_CHUNK;
  for (guint i = 0; i < COPIES_IN_FLIGHT; i++)
    issue_copy (stall);
  g_main_loop_run (stall->loop);
  run->seconds = (g_get_monotonic_time () - start) / 1e6;
  /* The last ticks of the run count too. */
  iterate_for (20);
  run->blocks_pinned = staging_blocks (stall) - MIN (blocks, staging_blocks (stall));
  stall->run = NULL;
}

static gint64
longest_call (const CopyRun *run)
{
  return MAX (run->longest_call[COPY_DOWNLOAD],
              MAX (run->longest_call[COPY_UPLOAD_PINNED], run->longest_call[COPY_UPLOAD_PAGEABLE]));
}

static gint64
stall_us (const CopyRun *run)
{
  return MAX (0, run->longest_gap - 1000);
}

static void
add_stall_record (CugiCompletionDelivery delivery,
                  guint                  run_index,
                  const CopyRun         *run)
{
  if (json_records == NULL)
    return;
  g_string_append_printf (json_records, "%s\n  {\"bench\":\"completion-stall\",\"impl\":\"%s\",\"run\":%u,"
                          "\"longest_gap_ms\":%.3f,\"stall_ms\":%.3f,\"longest_call_ms\":{",
                          json_records->len > 1 ? "," : "", cugi_completion_delivery_get_name (delivery),
                          run_index + 1, run->longest_gap / 1000.0, stall_us (run) / 1000.0);
  for (guint kind = 0; kind < N_COPY_KINDS; kind++)
    g_string_append_printf (json_records, "%s\"%s\":%.3f", kind > 0 ? "," : "", copy_kind_names[kind],
                            run->longest_call[kind] / 1000.0);
  g_string_append_printf (json_records, "},\"longest_callback_ms\":%.3f,\"gb_per_s\":%.2f,"
                          "\"staging_blocks_pinned\":%u,\"calls_pinning\":%u}",
                          run->longest_callback / 1000.0, COPY_TOTAL / run->seconds / 1e9, run->blocks_pinned,
                          run->calls_pinning);
}

/* One run of part 3, as it is printed without --runs. */
static void
print_stall (CugiCompletionDelivery  delivery,
             const CopyRun          *warm_up,
             const CopyRun          *run)
{
  printf ("3. %s: main-loop stall during %zu MiB of async copies of %zu MiB, %u in flight (%u downloads,\n"
          "   %u uploads of the last download, %u uploads from pageable memory) at %.1f GB/s,\n"
          "   measured by a 1 ms timer, after %zu MiB of the same to warm up (at %.1f GB/s; longest gap\n"
          "   %.2f ms, longest call %.2f ms, while the first copies pinned staging memory):\n",
          cugi_completion_delivery_get_name (delivery), COPY_TOTAL >> 20, COPY_CHUNK >> 20, COPIES_IN_FLIGHT,
          run->n_kind[COPY_DOWNLOAD],
          run->n_kind[COPY_UPLOAD_PINNED], run->n_kind[COPY_UPLOAD_PAGEABLE], COPY_TOTAL / run->seconds / 1e9,
          COPY_WARM_UP >> 20, COPY_WARM_UP / warm_up->seconds / 1e9, warm_up->longest_gap / 1000.0,
          longest_call (warm_up) / 1000.0);
  printf ("   longest gap between ticks %.2f ms, so a stall of %.2f ms beyond the period\n",
          run->longest_gap / 1000.0, stall_us (run) / 1000.0);
  printf ("   longest time inside one *_async() call: download %.3f ms, upload from pinned %.3f ms,\n"
          "   upload from pageable %.3f ms; inside one callback %.3f ms\n",
          run->longest_call[COPY_DOWNLOAD] / 1000.0, run->longest_call[COPY_UPLOAD_PINNED] / 1000.0,
          run->longest_call[COPY_UPLOAD_PAGEABLE] / 1000.0, run->longest_callback / 1000.0);
  printf ("   staging blocks pinned during the run: %u (calls during which the pool grew: %u)\n",
          run->blocks_pinned, run->calls_pinning);
  printf ("   goal < %.0f ms: %s\n", GOAL_STALL_US / 1000, verdict (stall_us (run) < GOAL_STALL_US));
}

/* One run of part 3 for @delivery, into *@out; printed where @print. */
static void
bench_stall (CugiCompletionDelivery delivery,
             gboolean               print,
             CopyRun               *out)
{
  g_autoptr(GError) error = NULL;
  GMainContext *main_context = push_delivery (delivery);
  Stall stall = { 0 };
  CopyRun warm_up = { 0 };
  CopyRun run = { 0 };
  GSource *timer;
  guint8 *pageable;

  stall.stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  stall.device = cugi_buffer_new (NULL, COPY_DEVICE_SIZE, &error);
  g_assert_no_error (error);
  stall.staging = cugi_staging_get_pool (cugi_stream_get_context (stall.stream), &error);
  g_assert_no_error (error);
  cugi_buffer_memset_d8 (stall.device, 0, 0x11, COPY_DEVICE_SIZE, stall.stream, &error);
  g_assert_no_error (error);
  cugi_stream_synchronize (stall.stream, &error);
  g_assert_no_error (error);
  /* Written once, so that its pages exist before the clock starts. */
  pageable = g_malloc (COPY_DEVICE_SIZE);
  memset (pageable, 0x22, COPY_DEVICE_SIZE);
  stall.pageable = g_bytes_new_take (pageable, COPY_DEVICE_SIZE);
  stall.loop = g_main_loop_new (main_context, FALSE);

  timer = g_timeout_source_new (1);
  g_source_set_callback (timer, tick, &stall, NULL);
  g_source_attach (timer, main_context);
  /* A few ticks first, so the timer runs when the copies start. */
  iterate_for (20);
  run_copies (&stall, COPY_WARM_UP, &warm_up);
  run_copies (&stall, COPY_TOTAL, &run);
  g_source_destroy (timer);
  g_source_unref (timer);
  *out = run;
  if (print)
    print_stall (delivery, &warm_up, &run);

  g_clear_pointer (&stall.pinned, g_bytes_unref);
  g_bytes_unref (stall.pageable);
  g_object_unref (stall.device);
  g_object_unref (stall.stream);
  g_main_loop_unref (stall.loop);
  pop_delivery (main_context);
}

/* The table of --runs: each run of each delivery, then for each the median
 * and the largest stall and longest calls. */
static void
print_stall_runs (const CopyRun *runs,
                  guint          n_runs)
{
  printf ("3. Main-loop stall during %zu MiB of async copies of %zu MiB, %u in flight, in %u runs (the\n"
          "   deliveries in turn, each run after %zu MiB to warm up), measured by a 1 ms timer; in ms but\n"
          "   GB/s and the staging blocks pinned during the run (in brackets: calls during which the pool grew):\n",
          COPY_TOTAL >> 20, COPY_CHUNK >> 20, COPIES_IN_FLIGHT, n_runs, COPY_WARM_UP >> 20);
  printf ("   %-12s %3s %7s %7s %9s %9s %9s %9s %6s %8s\n", "delivery", "run", "gap", "stall", "download",
          "up pinned", "up pageab", "callback", "GB/s", "pinned");
  for (guint d = 0; d < CUGI_COMPLETION_N_DELIVERIES; d++)
    {
      gint64 stalls[MAX_STALL_RUNS], calls[N_COPY_KINDS][MAX_STALL_RUNS];
      gint64 worst_stall = 0, worst_call[N_COPY_KINDS] = { 0 };

      for (guint r = 0; r < n_runs; r++)
        {
          const CopyRun *run = &runs[d * n_runs + r];

          printf ("   %-12s %3u %7.2f %7.2f %9.3f %9.3f %9.3f %9.3f %6.1f %4u (%u)\n",
                  cugi_completion_delivery_get_name (d), r + 1, run->longest_gap / 1000.0, stall_us (run) / 1000.0,
                  run->longest_call[COPY_DOWNLOAD] / 1000.0, run->longest_call[COPY_UPLOAD_PINNED] / 1000.0,
                  run->longest_call[COPY_UPLOAD_PAGEABLE] / 1000.0, run->longest_callback / 1000.0,
                  COPY_TOTAL / run->seconds / 1e9, run->blocks_pinned, run->calls_pinning);
          stalls[r] = stall_us (run);
          worst_stall = MAX (worst_stall, stalls[r]);
          for (guint kind = 0; kind < N_COPY_KINDS; kind++)
            {
              calls[kind][r] = run->longest_call[kind];
              worst_call[kind] = MAX (worst_call[kind], calls[kind][r]);
            }
        }
      printf ("   %-12s stall median %.2f, max %.2f ms (goal < %.0f ms at the max: %s); longest call\n"
              "   %-12s median / max: download %.3f / %.3f, up pinned %.3f / %.3f, up pageable %.3f / %.3f\n",
              cugi_completion_delivery_get_name (d), median (stalls, n_runs) / 1000.0, worst_stall / 1000.0,
              GOAL_STALL_US / 1000, verdict (worst_stall < GOAL_STALL_US), "",
              median (calls[COPY_DOWNLOAD], n_runs) / 1000.0, worst_call[COPY_DOWNLOAD] / 1000.0,
              median (calls[COPY_UPLOAD_PINNED], n_runs) / 1000.0, worst_call[COPY_UPLOAD_PINNED] / 1000.0,
              median (calls[COPY_UPLOAD_PAGEABLE], n_runs) / 1000.0, worst_call[COPY_UPLOAD_PAGEABLE] / 1000.0);
    }
}

/* Takes "@option VALUE" out of the arguments, for the test framework,
 * which would refuse it: the value, or NULL. */
static const char *
take_option (int        *argc,
             char      **argv,
             const char *option)
{
  for (int i = 1; i + 1 < *argc; i++)
    if (g_str_equal (argv[i], option))
      {
        const char *value = argv[i + 1];

        memmove (&argv[i], &argv[i + 2], (*argc - i - 1) * sizeof *argv);
        *argc -= 2;
        return value;
      }
  return NULL;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = NULL;
  g_autofree CopyRun *stalls = NULL;
  const char *json_file = take_option (&argc, argv, "--json");
  const char *runs = take_option (&argc, argv, "--runs");
  guint64 n_runs = 1;

  if (runs != NULL && !g_ascii_string_to_unsigned (runs, 10, 1, MAX_STALL_RUNS, &n_runs, &error))
    {
      g_printerr ("bench-completion: --runs: %s\n", error->message);
      return 2;
    }
  if (json_file != NULL)
    json_records = g_string_new ("[");
  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();
  device = cugi_device_get_default (&error);
  g_assert_no_error (error);

  printf ("cugi completion benchmark on %s (CUDA driver %d)\n",
          cugi_device_get_name (device), cugi_get_driver_version (NULL));
  bench_latency ();
  bench_throughput ();
  /* Run by run, the deliveries in turn, so that the machine's drift
   * affects them alike. */
  stalls = g_new0 (CopyRun, CUGI_COMPLETION_N_DELIVERIES * n_runs);
  for (guint r = 0; r < n_runs; r++)
    for (guint d = 0; d < CUGI_COMPLETION_N_DELIVERIES; d++)
      {
        bench_stall (d, n_runs == 1, &stalls[d * n_runs + r]);
        add_stall_record (d, r, &stalls[d * n_runs + r]);
      }
  if (n_runs > 1)
    print_stall_runs (stalls, n_runs);

  if (json_records != NULL)
    {
      g_string_append (json_records, "\n]\n");
      if (!g_file_set_contents (json_file, json_records->str, -1, &error))
        g_error ("bench-completion: %s", error->message);
      g_string_free (json_records, TRUE);
    }
  return 0;
}
