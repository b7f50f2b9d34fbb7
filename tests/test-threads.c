/* test-threads.c: 8 threads, each with its own GMainContext, loop, stream and
 * event, launch work at once and receive their signals and async callbacks
 * in their own thread only */
#include "config.h"

#include "cugi-private.h"
#include "gpu-work.h"

#define N_THREADS 8
#define N_ROUNDS 6
#define LAUNCHES_PER_ROUND 20

typedef struct
{
  guint           index;
  CugiTestCaller  caller;
  GMainLoop      *loop;
  CugiStream     *stream;
  CugiEvent      *event;
  guint           round;
  guint           n_idle;
  guint           n_completed;
  guint           n_synchronized;
} Worker;

static void on_synchronized (GObject *source, GAsyncResult *result, gpointer data);

/* A burst: launches, a recording and an asynchronous wait, all in one
 * iteration of the worker's loop. */
static void
worker_start_round (Worker *worker)
{
  for (guint i = 0; i < LAUNCHES_PER_ROUND; i++)
    spin (spinner (), worker->stream, 0.1 * (1 + worker->index));
  cugi_test_record (worker->event, worker->stream);
  cugi_stream_synchronize_async (worker->stream, NULL, on_synchronized, worker);
}

/* The next round starts once all three deliveries of this one arrived, so
 * rounds are separate bursts and each gives exactly one of each. */
static void
worker_maybe_next_round (Worker *worker)
{
  guint expected = worker->round + 1;

  g_assert_cmpuint (worker->n_idle, <=, expected);
  g_assert_cmpuint (worker->n_completed, <=, expected);
  g_assert_cmpuint (worker->n_synchronized, <=, expected);
  if (worker->n_idle < expected || worker->n_completed < expected || worker->n_synchronized < expected)
    return;

  worker->round++;
  if (worker->round == N_ROUNDS)
    g_main_loop_quit (worker->loop);
  else
    worker_start_round (worker);
}

/* ::idle of the worker's stream or ::completed of its event. */
static void
on_signal (gpointer  instance,
           Worker   *worker)
{
  cugi_test_caller_check (&worker->caller);
  if (instance == worker->stream)
    worker->n_idle++;
  else
    {
      g_assert_true (instance == worker->event);
      worker->n_completed++;
    }
  worker_maybe_next_round (worker);
}

static void
on_synchronized (GObject      *source,
                 GAsyncResult *result,
                 gpointer      data)
{
  Worker *worker = data;
  g_autoptr(GError) error = NULL;

  cugi_test_caller_check (&worker->caller);
  g_assert_true (cugi_stream_synchronize_finish (CUGI_STREAM (source), result, &error));
  g_assert_no_error (error);
  worker->n_synchronized++;
  worker_maybe_next_round (worker);
}

static gboolean
worker_timed_out (gpointer data)
{
  Worker *worker = data;

  g_error ("worker %u timed out in round %u: %u idle, %u completed, %u synchronized",
           worker->index, worker->round, worker->n_idle, worker->n_completed, worker->n_synchronized);
  return G_SOURCE_REMOVE;
}

static gpointer
run_worker (gpointer data)
{
  Worker *worker = data;
  GSource *timeout;

  cugi_test_caller_push (&worker->caller);
  worker->loop = g_main_loop_new (worker->caller.main_context, FALSE);

  /* Made here, so they deliver here. */
  worker->stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  worker->event = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);
  g_signal_connect (worker->stream, "idle", G_CALLBACK (on_signal), worker);
  g_signal_connect (worker->event, "completed", G_CALLBACK (on_signal), worker);

  timeout = g_timeout_source_new_seconds (60);
  g_source_set_callback (timeout, worker_timed_out, worker, NULL);
  g_source_attach (timeout, worker->caller.main_context);

  worker_start_round (worker);
  g_main_loop_run (worker->loop);

  /* Nothing more arrives once the last round is done. */
  cugi_test_synchronize (worker->stream);
  iterate_for (100);
  g_assert_cmpuint (worker->round, ==, N_ROUNDS);
  g_assert_cmpuint (worker->n_idle, ==, N_ROUNDS);
  g_assert_cmpuint (worker->n_completed, ==, N_ROUNDS);
  g_assert_cmpuint (worker->n_synchronized, ==, N_ROUNDS);

  g_source_destroy (timeout);
  g_source_unref (timeout);
  g_signal_handlers_disconnect_by_data (worker->stream, worker);
  g_signal_handlers_disconnect_by_data (worker->event, worker);
  g_clear_object (&worker->stream);
  g_clear_object (&worker->event);
  g_main_loop_unref (worker->loop);
  cugi_test_caller_pop (&worker->caller);
  return NULL;
}

static void
test_eight_loops (void)
{
  Worker workers[N_THREADS] = { 0 };

  for (guint i = 0; i < N_THREADS; i++)
    workers[i].index = i;
  cugi_test_run_threads (run_worker, workers, sizeof workers[0], N_THREADS);
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  require_gpu_with_spinner ();

  g_test_add_func ("/threads/eight-loops", test_eight_loops);

  return g_test_run ();
}
