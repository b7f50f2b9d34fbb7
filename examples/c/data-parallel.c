/* cugi-data-parallel: data parallelism with cugi, in C. One process per GPU,
 * started with GSubprocess, joined by an NCCL communicator; on every step
 * each rank makes its gradient and all-reduces the mean of all ranks'
 * gradients, without any rank's main loop blocking. The C version of
 * examples/python/data_parallel.py.
 *
 *   cugi-data-parallel [--ranks N] [--steps S]
 *
 * Without --ranks, one rank per GPU. The launcher makes the communicator's
 * unique id and gives each rank its id, rank and number of ranks in its
 * environment (CUGI_UNIQUE_ID, CUGI_RANK, CUGI_N_RANKS); each rank makes
 * its communicator with cugi_communicator_new_async(), and on each step
 * fills a gradient of 2^20 floats with memsets (what it "computed"),
 * all-reduces the mean in place, downloads it asynchronously and checks it
 * against the mean it expects; then it closes the communicator, still from
 * the main loop, and prints one line. The launcher waits for all ranks in
 * its own main loop (stopping the others when one fails, since they would
 * wait for it forever) and exits 0 when all passed, 77 where there is no
 * GPU or no NCCL, 1 otherwise (docs/multi-gpu.md). */
#include <cugi/cugi.h>

#include <math.h>
#include <string.h>

#include "launch-ranks.h"

/* 4 MiB of float32: the gradient of a small model. */
#define N_ELEMENTS (1u << 20)
/* The gradient is made of this many runs of one value each: one memset a
 * run, so that the check sees an all-reduce of the wrong part. */
#define SEGMENTS 8
#define DEFAULT_STEPS 10
#define UNIQUE_ID_VARIABLE "CUGI_UNIQUE_ID"

/* Element of segment @segment of rank @rank's gradient at step @step: what
 * it "computed". */
static float
gradient_value (int rank,
                int segment,
                int step)
{
  return (float) (rank + 1) * (float) (segment + 1) + (float) step;
}

/* The mean over @n_ranks ranks of gradient_value(). */
static double
expected_mean (int n_ranks,
               int segment,
               int step)
{
  return (n_ranks + 1) / 2.0 * (segment + 1) + step;
}

typedef struct
{
  int               rank;
  int               n_ranks;
  int               steps;
  int               step;
  CugiDevice       *device;
  CugiContext      *context;
  CugiStream       *stream;
  CugiBuffer       *gradient;
  CugiCommunicator *communicator;
  GMainLoop        *loop;
  GError           *error;
  gboolean          right;
} Rank;

static void
rank_clear (Rank *self)
{
  g_clear_object (&self->communicator);
  g_clear_object (&self->gradient);
  g_clear_object (&self->stream);
  g_clear_object (&self->context);
  g_clear_object (&self->device);
  g_clear_pointer (&self->loop, g_main_loop_unref);
  g_clear_error (&self->error);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Rank, rank_clear)

/* Ends the rank's main loop with @error (owned), or with what it has. */
static void
rank_stop (Rank   *self,
           GError *error)
{
  if (error != NULL && self->error == NULL)
    self->error = error;
  else
    g_clear_error (&error);
  g_main_loop_quit (self->loop);
}

static void step_start (Rank *self);

/* FALSE, with the first wrong element said, unless @mean is the mean of
 * every rank's gradient at this step. */
static gboolean
check_mean (Rank        *self,
            const float *mean)
{
  gsize per_segment = N_ELEMENTS / SEGMENTS;

  for (gsize i = 0; i < N_ELEMENTS; i++)
    {
      double expected = expected_mean (self->n_ranks, (int) (i / per_segment), self->step);

      /* NCCL's mean of floats divides in float: a few ulps off. */
      if (fabs (mean[i] - expected) > 1e-5 * expected)
        {
          g_printerr ("rank %d, step %d: element %" G_GSIZE_FORMAT " is %g, not %g\n",
                      self->rank, self->step, i, mean[i], expected);
          return FALSE;
        }
    }
  return TRUE;
}

static void
closed (GObject      *source,
        GAsyncResult *result,
        gpointer      data)
{
  Rank *self = data;

  /* The first error is the one to tell. */
  cugi_communicator_close_finish (CUGI_COMMUNICATOR (source), result, self->error == NULL ? &self->error : NULL);
  g_main_loop_quit (self->loop);
}

static void
downloaded (GObject      *source,
            GAsyncResult *result,
            gpointer      data)
{
  Rank *self = data;
  GError *error = NULL;
  g_autoptr(GBytes) mean = cugi_buffer_download_finish (CUGI_BUFFER (source), result, &error);

  if (mean == NULL)
    {
      rank_stop (self, error);
      return;
    }
  /* A wrong step goes on to the end all the same: the other ranks wait
   * for this one's next all-reduce. */
  if (!check_mean (self, g_bytes_get_data (mean, NULL)))
    self->right = FALSE;
  if (++self->step < self->steps)
    step_start (self);
  else
    cugi_communicator_close_async (self->communicator, NULL, closed, self);
}

/* Enqueues one step on the rank's stream: the gradient, its all-reduce and
 * its download, whose end comes back to the main loop. */
static void
step_start (Rank *self)
{
  gsize per_segment = N_ELEMENTS / SEGMENTS;
  GError *error = NULL;

  for (int segment = 0; segment < SEGMENTS; segment++)
    {
      float value = gradient_value (self->rank, segment, self->step);
      guint32 bits;

      memcpy (&bits, &value, sizeof bits);
      if (!cugi_buffer_memset_d32 (self->gradient, segment * per_segment * sizeof (float), bits, per_segment,
                                   self->stream, &error))
        {
          rank_stop (self, error);
          return;
        }
    }
  if (!cugi_communicator_all_reduce (self->communicator, self->gradient, self->gradient, N_ELEMENTS,
                                     CUGI_DATA_TYPE_FLOAT32, CUGI_REDUCE_OP_AVG, self->stream, &error))
    {
      rank_stop (self, error);
      return;
    }
  cugi_buffer_download_async (self->gradient, 0, N_ELEMENTS * sizeof (float), self->stream, NULL, downloaded,
                              self);
}

static void
connected (GObject      *source,
           GAsyncResult *result,
           gpointer      data)
{
  Rank *self = data;
  GError *error = NULL;

  self->communicator = cugi_communicator_new_finish (result, &error);
  if (self->communicator == NULL)
    {
      rank_stop (self, error);
      return;
    }
  step_start (self);
}

static int
run_rank (int       rank,
          int       n_ranks,
          int       steps,
          GError  **error)
{
  g_auto (Rank) self = { .rank = rank, .n_ranks = n_ranks, .steps = steps, .right = TRUE };
  g_autoptr(GBytes) unique_id = NULL;
  const char *unique_id_text = g_getenv (UNIQUE_ID_VARIABLE);
  int n_devices = cugi_device_get_count (error);

  if (n_devices == 0)
    return -1;
  if (unique_id_text == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s is not set", UNIQUE_ID_VARIABLE);
      return -1;
    }
  if ((unique_id = cugi_communicator_unique_id_from_string (unique_id_text, error)) == NULL ||
      (self.device = cugi_device_get (rank % n_devices, error)) == NULL ||
      (self.context = cugi_device_get_primary_context (self.device, error)) == NULL ||
      (self.stream = cugi_stream_new (self.context, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, error)) == NULL ||
      (self.gradient = cugi_buffer_new (self.context, N_ELEMENTS * sizeof (float), error)) == NULL)
    return -1;

  self.loop = g_main_loop_new (NULL, FALSE);
  cugi_communicator_new_async (self.context, unique_id, n_ranks, rank, NULL, connected, &self);
  /* The loop goes on while NCCL connects the ranks and while each step
   * runs on the GPU. */
  g_main_loop_run (self.loop);
  if (self.error != NULL)
    {
      /* Closing would wait for ranks that may never come. */
      if (self.communicator != NULL)
        cugi_communicator_abort (self.communicator);
      if (self.communicator == NULL)
        g_propagate_prefixed_error (error, g_steal_pointer (&self.error), "connecting: ");
      else
        g_propagate_prefixed_error (error, g_steal_pointer (&self.error), "step %d: ", self.step);
      return -1;
    }
  g_print ("rank %d/%d on %s: mean of %u elements over %d steps %s\n", rank, n_ranks,
           cugi_device_get_name (self.device), N_ELEMENTS, steps, self.right ? "right" : "WRONG");
  return self.right ? 0 : 1;
}

static int
launch (const char  *argv0,
        int          n_ranks,
        int          steps,
        GError     **error)
{
  g_autoptr(GBytes) unique_id = cugi_communicator_new_unique_id (error);
  g_autofree char *unique_id_text = NULL;
  g_autofree char *unique_id_variable = NULL;
  g_autofree char *program = ranks_get_program (argv0);
  g_autofree char *steps_text = g_strdup_printf ("%d", steps);
  const char *argv[] = { program, "--steps", steps_text, NULL };
  const char *environment[] = { NULL, NULL };
  g_autoptr(Ranks) ranks = NULL;

  if (unique_id == NULL || (unique_id_text = cugi_communicator_unique_id_to_string (unique_id, error)) == NULL)
    return -1;
  unique_id_variable = g_strconcat (UNIQUE_ID_VARIABLE "=", unique_id_text, NULL);
  environment[0] = unique_id_variable;
  ranks = ranks_spawn (argv, 0, n_ranks, environment, error);
  if (ranks == NULL)
    return -1;
  return ranks_wait (ranks, 0);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  int n_ranks = 0, steps = DEFAULT_STEPS, rank = 0, status;
  GOptionEntry entries[] = {
    { "ranks", 0, 0, G_OPTION_ARG_INT, &n_ranks, "Start N ranks (default: one per GPU)", "N" },
    { "steps", 0, 0, G_OPTION_ARG_INT, &steps, "All-reduce a gradient S times (default 10)", "S" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) options = g_option_context_new (NULL);

  g_option_context_set_summary (options, "Data parallelism: one process per GPU, joined by an NCCL communicator.");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("cugi-data-parallel: %s\n", error->message);
      return 2;
    }
  if (n_ranks < 0 || steps < 1)
    {
      g_printerr ("cugi-data-parallel: --ranks takes a number of ranks from 1 and --steps one from 1\n");
      return 2;
    }

  if (!cugi_init (&error))
    status = -1;
  else if (ranks_find_own (&rank, &n_ranks, &error))
    status = run_rank (rank, n_ranks, steps, &error);
  else if (error != NULL)
    status = -1;
  else if (n_ranks == 0 && (n_ranks = cugi_device_get_count (&error)) == 0)
    status = -1;
  else
    status = launch (argv[0], n_ranks, steps, &error);

  if (status >= 0)
    return status;
  if (g_error_matches (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE))
    {
      g_print ("no GPU or no NCCL: %s\n", error->message);
      return RANKS_EXIT_SKIPPED;
    }
  g_printerr ("cugi-data-parallel: %s\n", error->message);
  return 1;
}
