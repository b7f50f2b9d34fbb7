/* bench-compile.c: what the NVRTC cache saves for a small kernel: a cold
 * compile, a warm hit from the disk cache (the in-memory layer cleared, as
 * in a new process), a hit in memory, and the first compile of a cached
 * kernel in a fresh process, which must not load NVRTC. Needs NVRTC, not a
 * GPU: it compiles for sm_90 with cugi_program_compile_for_arch().
 *
 * Goals (issue 4): a warm hit takes at most 2 ms and is at least 50 times
 * faster than the cold compile; (issue 12) so does the first one in a fresh
 * process, with NVRTC left unloaded. Exits 1 when they are missed.
 * `--json FILE` writes the figures for docs/performance.md. */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "bench-json.h"
#include "bench-util.h"
#include "cugi-private.h"
#include "cugi-program-cache.h"

#define N_COLD 5
#define N_DISK 200
#define N_MEMORY_BATCHES 20
#define N_FRESH_PROCESSES 20
#define FRESH_PROCESS_ARGUMENT "--fresh-process"
#define MEMORY_BATCH 100

#define GOAL_WARM_US 2000.0
#define GOAL_RATIO 50.0

static const char kernel_template[] =
  "// variant %u\n"
  "extern \"C\" __global__ void saxpy (float a, const float *x, float *y, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    y[i] = a * x[i] + y[i];\n"
  "}\n";

typedef enum
{
  CLEAR_NOTHING,
  CLEAR_MEMORY,
} Clear;

static void
compile_once (const char         *source,
              CugiProgramCacheHit expected)
{
  g_autoptr(CugiProgram) program = cugi_program_new (source, "saxpy.cu");
  g_autoptr(GError) error = NULL;

  if (!cugi_program_compile_for_arch (program, 9, 0, NULL, &error))
    g_error ("compile failed: %s", error->message);
  if (cugi_program_get_cache_hit (program) != expected)
    g_error ("the compile came from the wrong place (%d, expected %d)",
             cugi_program_get_cache_hit (program), expected);
}

/* The mean time, in microseconds, of @count compiles of @source for sm_90,
 * each of which must come from @expected; with CLEAR_MEMORY, the in-memory
 * layer is emptied before each (which is timed too: it frees one entry). */
static double
time_compiles (const char         *source,
               Clear               clear,
               CugiProgramCacheHit expected,
               guint               count)
{
  gint64 start = g_get_monotonic_time ();

  for (guint i = 0; i < count; i++)
    {
      if (clear == CLEAR_MEMORY)
        cugi_program_cache_clear_memory ();
      compile_once (source, expected);
    }
  return (double) (g_get_monotonic_time () - start) / count;
}

/* In a fresh process: the time of its first compile, a cache hit, and
 * whether NVRTC was mapped for it. */
static int
run_fresh_process (void)
{
  g_autofree char *source = g_strdup_printf (kernel_template, 0u);
  g_autofree char *maps = NULL;
  double us = time_compiles (source, CLEAR_NOTHING, CUGI_PROGRAM_CACHE_HIT_DISK, 1);

  if (!g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL))
    g_error ("/proc/self/maps cannot be read");
  g_print ("%.1f %d\n", us, strstr (maps, "libnvrtc") != NULL);
  return EXIT_SUCCESS;
}

/* The time of the first compile in @n fresh processes, each a cache hit;
 * FALSE when one of them loaded NVRTC. */
static gboolean
time_fresh_processes (double *samples,
                      guint   n)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *self_path = g_file_read_link ("/proc/self/exe", &error);
  gboolean nvrtc_unmapped = TRUE;

  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GSubprocess) child = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                                       self_path, FRESH_PROCESS_ARGUMENT, NULL);
      g_autofree char *output = NULL;
      int mapped = 1;

      g_assert_no_error (error);
      if (!g_subprocess_communicate_utf8 (child, NULL, NULL, &output, NULL, &error) ||
          !g_subprocess_get_successful (child) ||
          sscanf (output, "%lf %d", &samples[i], &mapped) != 2)
        g_error ("the fresh process failed: %s", error != NULL ? error->message : output);
      nvrtc_unmapped = nvrtc_unmapped && !mapped;
    }
  return nvrtc_unmapped;
}

typedef struct
{
  double median;
  double min;
  double p90;
} Summary;

static Summary
summarize (double *samples,
           gsize   n)
{
  Summary summary;

  /* Sorted by bench_median(). */
  summary.median = bench_median (samples, n);
  summary.min = samples[0];
  summary.p90 = samples[(n * 9) / 10];
  return summary;
}

/* Prints a row of the table, and records it as @phase of "compile". */
static void
print_row (BenchJson  *json,
           const char *phase,
           const char *what,
           Summary     summary)
{
  g_print ("%-28s %12.1f %12.1f %12.1f\n", what, summary.median, summary.min, summary.p90);
  bench_json_record (json, "compile", "phase", phase, NULL);
  bench_json_number (json, "median_us", summary.median);
  bench_json_number (json, "min_us", summary.min);
  bench_json_number (json, "p90_us", summary.p90);
}

static void
remove_cache_dir (const char *dir)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL;
  g_autofree char *cache_dir = NULL;
  g_autofree char *source = g_strdup_printf (kernel_template, 0u);
  double cold[N_COLD], disk[N_DISK], memory[N_MEMORY_BATCHES], fresh[N_FRESH_PROCESSES];
  Summary cold_summary, disk_summary, memory_summary, fresh_summary;
  double ratio;
  gboolean fresh_without_nvrtc;
  gboolean met;
  BenchJson *json = bench_json_new (&argc, argv);

  setlocale (LC_ALL, "C.UTF-8");
  if (argc == 2 && strcmp (argv[1], FRESH_PROCESS_ARGUMENT) == 0)
    return run_fresh_process ();
  if (!cugi_ensure_nvrtc (&error))
    {
      g_printerr ("bench-compile: %s\n", error->message);
      return 77;
    }

  /* A cache of its own, so that the first compile is cold whatever the
   * user's cache holds. */
  root = g_dir_make_tmp ("cugi-bench-compile-XXXXXX", &error);
  g_assert_no_error (error);
  cache_dir = g_build_filename (root, "cache", NULL);
  g_setenv ("CUGI_CACHE_DIR", cache_dir, TRUE);
  g_unsetenv ("CUGI_DISABLE_CACHE");

  /* NVRTC's first compile in a process also starts NVRTC up: not counted. */
  {
    g_autofree char *warm_up = g_strdup_printf (kernel_template, 1000u);

    compile_once (warm_up, CUGI_PROGRAM_CACHE_MISS);
  }

  for (guint i = 0; i < N_COLD; i++)
    {
      g_autofree char *variant = g_strdup_printf (kernel_template, i + 1);

      cold[i] = time_compiles (variant, CLEAR_NOTHING, CUGI_PROGRAM_CACHE_MISS, 1);
    }
  compile_once (source, CUGI_PROGRAM_CACHE_MISS);
  for (guint i = 0; i < N_DISK; i++)
    disk[i] = time_compiles (source, CLEAR_MEMORY, CUGI_PROGRAM_CACHE_HIT_DISK, 1);
  /* Too quick for the clock one by one: timed in batches. */
  for (guint i = 0; i < N_MEMORY_BATCHES; i++)
    memory[i] = time_compiles (source, CLEAR_NOTHING, CUGI_PROGRAM_CACHE_HIT_MEMORY, MEMORY_BATCH);
  fresh_without_nvrtc = time_fresh_processes (fresh, N_FRESH_PROCESSES);

  cold_summary = summarize (cold, N_COLD);
  disk_summary = summarize (disk, N_DISK);
  memory_summary = summarize (memory, N_MEMORY_BATCHES);
  fresh_summary = summarize (fresh, N_FRESH_PROCESSES);
  ratio = cold_summary.median / disk_summary.median;

  g_print ("NVRTC %d.%d, sm_90 CUBIN of a saxpy kernel; times in microseconds\n",
           cugi_loader_get_nvrtc_version () / 1000, (cugi_loader_get_nvrtc_version () % 1000) / 10);
  g_print ("%-28s %12s %12s %12s\n", "", "median", "min", "p90");
  print_row (json, "cold", "cold compile (NVRTC)", cold_summary);
  print_row (json, "disk", "warm hit, disk cache", disk_summary);
  print_row (json, "memory", "warm hit, in process", memory_summary);
  print_row (json, "fresh-process", "first hit, fresh process", fresh_summary);
  bench_json_number (json, "nvrtc_loaded", !fresh_without_nvrtc);
  bench_json_finish (json);
  g_print ("cold / warm disk hit: %.0fx (goal >= %.0fx); warm disk hit %.3f ms (goal <= %.0f ms)\n",
           ratio, GOAL_RATIO, disk_summary.median / 1000.0, GOAL_WARM_US / 1000.0);
  g_print ("first hit in a fresh process %.3f ms (goal <= %.0f ms), NVRTC %s (goal: not loaded)\n",
           fresh_summary.median / 1000.0, GOAL_WARM_US / 1000.0,
           fresh_without_nvrtc ? "not loaded" : "LOADED");

  remove_cache_dir (cache_dir);
  g_rmdir (root);

  met = disk_summary.median <= GOAL_WARM_US && ratio >= GOAL_RATIO &&
        fresh_summary.median <= GOAL_WARM_US && fresh_without_nvrtc;
  g_print ("%s\n", met ? "goals met" : "GOALS MISSED");
  return met ? EXIT_SUCCESS : EXIT_FAILURE;
}
