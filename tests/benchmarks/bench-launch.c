/* bench-launch.c: cugi's launch path beside the raw driver API, in one
 * process, on the same kernel, stream and arguments:
 *  - a 4-argument kernel launched through cuLaunchKernel (prepared
 *    parameters) and through cugi_kernel_launch(): throughput over many
 *    launches with a synchronization every SYNC_EVERY (below the queue
 *    depth), and the host cost alone, timing only the launch calls of
 *    batches of BATCH launches that are each synchronized afterwards; the
 *    sides' chunks between synchronizations take turns, round by round, so
 *    that every side meets the machine and the driver in the same state
 *    (run after run, two identical sides drifted 4% apart here);
 *  - a graph of GRAPH_KERNELS such launches replayed through cuGraphLaunch
 *    and through cugi_graph_exec_launch(), the same two ways.
 * The launches are also made with a handler of the stream's ::idle
 * connected (cugi-idle), each synchronization followed by a main-loop
 * iteration so that each batch is one burst with its marker, as in a
 * program with a main loop.
 * Each figure is the median of REPETITIONS runs, the sides interleaved
 * (and taking turns going first) so that drift cancels out. --diagnose
 * adds sides that tell where a graph launch's host cost goes: the raw
 * launch with cuCtxGetCurrent() before it, as cugi asks, and each side
 * without the main-loop iteration after its synchronizations.
 *
 * Goals (issues 4, 12 and 26): launch throughput and host cost at least 0.97
 * of raw, and with ::idle watched at least 0.97 of cugi without; graph
 * replay at least 0.98 of raw, and the host cost of graph launches at least
 * 0.97 of raw. Exits 1 when one is missed, 77 without a
 * GPU. --json FILE writes each figure as a record
 * {"bench":"launch","impl":"raw|cugi|cugi-idle","measure":..,"us_per_launch":..}. */
#include "config.h"

#include <locale.h>
#include <stdlib.h>

#include "launch-pair.h"
#include "cugi-graph-private.h"

#define REPETITIONS 7
#define WARM_UP 2000
#define THROUGHPUT_LAUNCHES 200000
#define SYNC_EVERY 1024
#define BATCH 512
#define BATCHES 100
#define GRAPH_KERNELS 100
#define GRAPH_LAUNCHES 2000
#define GRAPH_SYNC_EVERY 10
#define GRAPH_BATCH 16
#define GRAPH_BATCHES 400
#define N_ELEMENTS 32
#define MAX_SIDES 6

#define GOAL_LAUNCH 0.97
#define GOAL_GRAPH 0.98

static const char source[] =
  "extern \"C\" __global__ void axpy4 (float a, const float *x, float *y, unsigned int n)\n"
  "{\n"
  "  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    y[i] = a * x[i] + y[i];\n"
  "}\n";

typedef struct
{
  LaunchPair        launch;
  CugiGraphExec    *exec;       /* cugi's graph */
  CUgraphExec       raw_exec;   /* the same graph, instantiated raw */
} Bench;

typedef void (*LaunchFunc) (Bench *bench);

static void
launch_raw (Bench *bench)
{
  launch_pair_raw (&bench->launch);
}

static void
launch_cugi (Bench *bench)
{
  launch_pair_cugi (&bench->launch);
}

static void
launch_cugi_idle (Bench *bench)
{
  launch_pair_cugi_idle (&bench->launch);
}

static void
graph_raw (Bench *bench)
{
  check (cugi_cuda.cuGraphLaunch (bench->raw_exec, bench->launch.handle), "cuGraphLaunch");
}

static void
graph_cugi (Bench *bench)
{
  GError *error = NULL;
  gboolean launched = cugi_graph_exec_launch (bench->exec, bench->launch.stream, &error);

  check_error (launched, error);
}

/* What cugi's graph launch asks of the driver beside cuGraphLaunch. */
static void
graph_raw_asking_context (Bench *bench)
{
  CUcontext current = NULL;

  check (cugi_cuda.cuCtxGetCurrent (&current), "cuCtxGetCurrent");
  graph_raw (bench);
}

static void
synchronize (Bench *bench)
{
  launch_pair_synchronize (&bench->launch);
}

static double
median (double *values)
{
  qsort (values, REPETITIONS, sizeof (double), compare_doubles);
  return values[REPETITIONS / 2];
}

/* The records of --json, NULL without it. */
static GString *json_records;

static void
add_record (const char *impl,
            const char *measure,
            double      rate)
{
  if (json_records == NULL)
    return;
  g_string_append_printf (json_records, "%s\n  {\"bench\":\"launch\",\"impl\":\"%s\",\"measure\":\"%s\","
                          "\"us_per_launch\":%.5f}",
                          json_records->len > 1 ? "," : "", impl, measure, 1e6 / rate);
}

/* One side of a comparison: its launches, whether ::idle is watched while
 * they run; for --diagnose, whether its synchronizations skip the
 * main-loop iteration (no burst flushed, no ::idle), and whether its ratio
 * is for information only. */
typedef struct
{
  const char *impl;
  LaunchFunc  launch;
  gboolean    watch_idle;
  gboolean    quiet;
  gboolean    diagnostic;
} Side;

static void
side_synchronize (Bench      *bench,
                  const Side *side)
{
  if (side->quiet)
    check (cugi_cuda.cuStreamSynchronize (bench->launch.handle), "cuStreamSynchronize");
  else
    synchronize (bench);
}

static void
side_begin (Bench      *bench,
            const Side *side)
{
  if (side->watch_idle)
    launch_pair_watch_idle (&bench->launch, TRUE);
  side_synchronize (bench, side);
}

static void
side_end (Bench      *bench,
          const Side *side)
{
  side_synchronize (bench, side);
  if (side->watch_idle)
    launch_pair_watch_idle (&bench->launch, FALSE);
}

/* How a comparison measures one repetition: launches a second of each of
 * @n_sides @sides into @rates, @first starting. */
typedef void (*MeasureFunc) (Bench      *bench,
                             const Side *sides,
                             guint       n_sides,
                             guint       first,
                             double     *rates);

/* Launches a second, each side over @rounds chunks of @chunk launches.
 * A chunk is timed from its first launch to the end of the
 * synchronization after its last (@timed_sync), or only over its launch
 * calls: the host cost, with chunks short enough never to fill the queue.
 * In each round every side has one chunk, and the rounds rotate which side
 * goes first, so that every side meets the machine and the driver in the
 * same state (run after run, two identical sides drifted 4% apart here). */
static void
interleaved_rates (Bench      *bench,
                   const Side *sides,
                   guint       n_sides,
                   guint       first,
                   guint       chunk,
                   guint       rounds,
                   gboolean    timed_sync,
                   double     *rates)
{
  gint64 spent[MAX_SIDES] = { 0 };  /* ns */

  for (guint round = 0; round < rounds; round++)
    for (guint k = 0; k < n_sides; k++)
      {
        guint index = (first + round + k) % n_sides;
        const Side *side = &sides[index];
        gint64 start;

        side_begin (bench, side);
        start = bench_clock_ns (CLOCK_MONOTONIC);
        for (guint i = 0; i < chunk; i++)
          side->launch (bench);
        if (timed_sync)
          side_synchronize (bench, side);
        spent[index] += bench_clock_ns (CLOCK_MONOTONIC) - start;
        side_end (bench, side);
      }
  for (guint i = 0; i < n_sides; i++)
    rates[i] = (double) chunk * rounds / (MAX (spent[i], 1) / 1e9);
}

static void
launch_throughputs (Bench *bench, const Side *sides, guint n_sides, guint first, double *rates)
{
  interleaved_rates (bench, sides, n_sides, first, SYNC_EVERY, THROUGHPUT_LAUNCHES / SYNC_EVERY, TRUE, rates);
}

static void
launch_host_rates (Bench *bench, const Side *sides, guint n_sides, guint first, double *rates)
{
  interleaved_rates (bench, sides, n_sides, first, BATCH, BATCHES, FALSE, rates);
}

static void
graph_throughputs (Bench *bench, const Side *sides, guint n_sides, guint first, double *rates)
{
  interleaved_rates (bench, sides, n_sides, first, GRAPH_SYNC_EVERY, GRAPH_LAUNCHES / GRAPH_SYNC_EVERY, TRUE,
                     rates);
}

static void
graph_host_rates (Bench *bench, const Side *sides, guint n_sides, guint first, double *rates)
{
  interleaved_rates (bench, sides, n_sides, first, GRAPH_BATCH, GRAPH_BATCHES, FALSE, rates);
}

static void
print_ratio (const char *what,
             double      base,
             double      rate,
             double      goal)
{
  g_autofree char *goal_text = goal > 0 ? g_strdup_printf (">= %.2f", goal) : g_strdup ("(for information)");

  g_print ("%-36s %14.0f %14.0f %8.3f  %s\n", what, base, rate, rate / base, goal_text);
}

/* Measures @n_sides sides (the first the raw one) REPETITIONS times, each
 * repetition started by another side, prints each other side's median rate
 * beside raw's, and for a side watching ::idle beside the side before it
 * too; FALSE when @goal (0: none) is missed by a side that is not quiet. */
static gboolean
compare (Bench       *bench,
         const char  *what,
         const char  *measure_name,
         MeasureFunc  measure,
         const Side  *sides,
         guint        n_sides,
         double       goal)
{
  double rates[MAX_SIDES][REPETITIONS];
  double medians[MAX_SIDES];
  gboolean met = TRUE;

  g_assert (n_sides <= MAX_SIDES);
  for (guint rep = 0; rep < REPETITIONS; rep++)
    {
      double rep_rates[MAX_SIDES];

      measure (bench, sides, n_sides, rep % n_sides, rep_rates);
      for (guint i = 0; i < n_sides; i++)
        rates[i][rep] = rep_rates[i];
    }
  for (guint i = 0; i < n_sides; i++)
    {
      medians[i] = median (rates[i]);
      add_record (sides[i].impl, measure_name, medians[i]);
    }
  for (guint i = 1; i < n_sides; i++)
    {
      g_autofree char *label = i == 1 ? g_strdup (what) : g_strdup_printf ("  %s, vs raw", sides[i].impl);
      double side_goal = sides[i].diagnostic ? 0 : goal;

      print_ratio (label, medians[0], medians[i], side_goal);
      met &= side_goal <= 0 || medians[i] / medians[0] >= side_goal;
      if (sides[i].watch_idle)
        {
          g_autofree char *versus = g_strdup_printf ("  %s, vs %s", sides[i].impl, sides[i - 1].impl);

          print_ratio (versus, medians[i - 1], medians[i], goal);
          met &= goal <= 0 || medians[i] / medians[i - 1] >= goal;
        }
    }
  return met;
}

static void
set_up (Bench *bench)
{
  g_autoptr(GError) error = NULL;
  float zeros[N_ELEMENTS] = { 0 };
  g_autoptr(CugiBuffer) x = NULL;
  g_autoptr(CugiBuffer) y = NULL;
  g_autoptr(CugiGraph) graph = NULL;
  CugiKernel *kernel;
  CugiStream *stream;

  kernel = cugi_kernel_new_from_source (NULL, source, "axpy4", NULL, &error);
  check_error (kernel != NULL, error);
  stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  check_error (stream != NULL, error);
  x = cugi_buffer_new (NULL, sizeof zeros, &error);
  check_error (x != NULL, error);
  y = cugi_buffer_new (NULL, sizeof zeros, &error);
  check_error (y != NULL, error);
  check_error (cugi_buffer_upload (x, 0, (const guint8 *) zeros, sizeof zeros, &error), error);
  check_error (cugi_buffer_upload (y, 0, (const guint8 *) zeros, sizeof zeros, &error), error);
  launch_pair_set_up (&bench->launch, kernel, stream, x, y, N_ELEMENTS);

  /* One graph of GRAPH_KERNELS launches, instantiated by each side. */
  check_error (cugi_graph_capture_begin (stream, CUGI_CAPTURE_MODE_GLOBAL, &error), error);
  for (guint i = 0; i < GRAPH_KERNELS; i++)
    launch_cugi (bench);
  graph = cugi_graph_capture_end (stream, &error);
  check_error (graph != NULL, error);
  bench->exec = cugi_graph_instantiate (graph, &error);
  check_error (bench->exec != NULL, error);
  check (cugi_cuda.cuGraphInstantiateWithFlags (&bench->raw_exec, cugi_graph_get_handle (graph), 0),
         "cuGraphInstantiateWithFlags");
  check_error (cugi_graph_exec_upload (bench->exec, stream, &error), error);
  check (cugi_cuda.cuGraphUpload (bench->raw_exec, bench->launch.handle), "cuGraphUpload");

  for (guint i = 0; i < WARM_UP; i++)
    {
      launch_raw (bench);
      launch_cugi (bench);
    }
  synchronize (bench);
}

static void
tear_down (Bench *bench)
{
  synchronize (bench);
  check (cugi_cuda.cuGraphExecDestroy (bench->raw_exec), "cuGraphExecDestroy");
  g_clear_object (&bench->exec);
  launch_pair_clear (&bench->launch);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = NULL;
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  g_autoptr(CugiContext) context = NULL;
  Bench bench = { 0 };
  gboolean met = TRUE;
  g_autofree char *json_file = NULL;
  gboolean diagnose = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &json_file, "Write the figures to FILE as JSON", "FILE" },
    { "diagnose", 0, 0, G_OPTION_ARG_NONE, &diagnose, "Add the sides that tell where graph launches' host time goes",
      NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) options = g_option_context_new (NULL);
  const Side launches[] = {
    { "raw", launch_raw, FALSE, FALSE, FALSE },
    { "cugi", launch_cugi, FALSE, FALSE, FALSE },
    { "cugi-idle", launch_cugi_idle, TRUE, FALSE, FALSE },
  };
  const Side graphs[] = {
    { "raw", graph_raw, FALSE, FALSE, FALSE },
    { "cugi", graph_cugi, FALSE, FALSE, FALSE },
    { "raw-asking-context", graph_raw_asking_context, FALSE, FALSE, TRUE },
    { "raw-quiet", graph_raw, FALSE, TRUE, TRUE },
    { "cugi-quiet", graph_cugi, FALSE, TRUE, TRUE },
  };
  guint n_graph_sides;

  setlocale (LC_ALL, "C.UTF-8");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("bench-launch: %s\n", error->message);
      return 2;
    }
  if (json_file != NULL)
    json_records = g_string_new ("[");
  n_graph_sides = diagnose ? G_N_ELEMENTS (graphs) : 2;
  if (!cugi_init (&error) || (device = cugi_device_get_default (&error)) == NULL)
    {
      g_printerr ("bench-launch: no GPU usable: %s\n", error->message);
      return 77;
    }
  /* The raw calls need the context current, as cugi's make it. */
  context = cugi_context_get_default (&error);
  check_error (context != NULL, error);
  check_error (cugi_context_enter (context, &scope, &error), error);

  set_up (&bench);
  g_print ("bench-launch on %s: a 4-argument kernel (1 block of %u threads); medians of %u runs, "
           "launches a second\n", cugi_device_get_name (device), N_ELEMENTS, REPETITIONS);
  g_print ("%-36s %14s %14s %8s  %s\n", "", "raw", "cugi", "ratio", "goal");
  met &= compare (&bench, "launch throughput (sync every 1024)", "throughput", launch_throughputs,
                  launches, G_N_ELEMENTS (launches), GOAL_LAUNCH);
  met &= compare (&bench, "launch host cost (batches of 512)", "host", launch_host_rates,
                  launches, G_N_ELEMENTS (launches), GOAL_LAUNCH);
  met &= compare (&bench, "graph replay, 100 kernels", "graph-throughput", graph_throughputs,
                  graphs, n_graph_sides, GOAL_GRAPH);
  met &= compare (&bench, "graph launch host cost (batches of 16)", "graph-host", graph_host_rates,
                  graphs, n_graph_sides, GOAL_LAUNCH);
  tear_down (&bench);

  if (json_records != NULL)
    {
      g_string_append (json_records, "\n]\n");
      if (!g_file_set_contents (json_file, json_records->str, -1, &error))
        g_error ("bench-launch: %s", error->message);
      g_string_free (json_records, TRUE);
    }

  g_print ("%s\n", met ? "goals met" : "GOALS MISSED");
  return met ? 0 : 1;
}
