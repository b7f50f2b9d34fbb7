/* test-threads.c: 8 threads, each with its own GMainContext, loop, stream and
 * event, launch work at once and receive their signals and async callbacks
 * in their own thread only */
#include "config.h"

#include "cugi-private.h"
#include "gpu-work.h"

#define N_THREADS 8
#define N_ROUNDS 6
#define LAUNCHES_PER_ROUND 20

static CugiKernel *spinner;

typedef struct
{
  guint         index;
  GThread      *thread;
  GMainContext *main_context;
  GMainLoop    *loop;
  CugiStream   *stream;
  CugiEvent    *event;
  guint         round;
  guint         n_idle;
  guint         n_completed;
  guint         n_synchronized;
} Worker;

static void
worker_check_thread (Worker *worker)
{
  g_assert_true (g_thread_self () == worker->thread);
  g_assert_true (g_main_context_is_owner (worker->main_context));
}

static void on_synchronized (GObject *source, GAsyncResult *result, gpointer data);

/* A burst: launches, a recording and an asynchronous wait, all in one
 * iteration of the worker's loop. */
static void
worker_start_round (Worker *worker)
{
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < LAUNCHES_PER_ROUND; i++)
    spin (spinner, worker->stream, 0.1 * (1 + worker->index));
  cugi_event_record (worker->event, worker->stream, &error);
  g_assert_no_error (error);
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

static void
on_idle (CugiStream *stream,
         Worker     *worker)
{
  worker_check_thread (worker);
  g_assert_true (stream == worker->stream);
  worker->n_idle++;
  worker_maybe_next_round (worker);
}

static void
on_completed (CugiEvent *event,
              Worker    *worker)
{
  worker_check_thread (worker);
  g_assert_true (event == worker->event);
  worker->n_completed++;
  worker_maybe_next_round (worker);
}

static void
on_synchronized (GObject      *source,
                 GAsyncResult *result,
                 gpointer      data)
{
  Worker *worker = data;
  g_autoptr(GError) error = NULL;

  worker_check_thread (worker);
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
  g_autoptr(GError) error = NULL;
  GSource *timeout;

  worker->thread = g_thread_self ();
  worker->main_context = g_main_context_new ();
  g_main_context_push_thread_default (worker->main_context);
  worker->loop = g_main_loop_new (worker->main_context, FALSE);

  /* Made here, so they deliver here. */
  worker->stream = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
  g_assert_no_error (error);
  worker->event = cugi_event_new (NULL, CUGI_EVENT_FLAGS_DISABLE_TIMING, &error);
  g_assert_no_error (error);
  g_signal_connect (worker->stream, "idle", G_CALLBACK (on_idle), worker);
  g_signal_connect (worker->event, "completed", G_CALLBACK (on_completed), worker);

  timeout = g_timeout_source_new_seconds (60);
  g_source_set_callback (timeout, worker_timed_out, worker, NULL);
  g_source_attach (timeout, worker->main_context);

  worker_start_round (worker);
  g_main_loop_run (worker->loop);

  /* Nothing more arrives once the last round is done. */
  g_assert_true (cugi_stream_synchronize (worker->stream, &error));
  g_assert_no_error (error);
  iterate_for (100);

  g_source_destroy (timeout);
  g_source_unref (timeout);
  g_signal_handlers_disconnect_by_data (worker->stream, worker);
  g_signal_handlers_disconnect_by_data (worker->event, worker);
  g_clear_object (&worker->stream);
  g_clear_object (&worker->event);
  g_main_loop_unref (worker->loop);
  g_main_context_pop_thread_default (worker->main_context);
  g_main_context_unref (worker->main_context);
  return NULL;
}

static void
test_threads (void)
{
  Worker workers[N_THREADS] = { 0 };
  GThread *threads[N_THREADS];

  for (guint i = 0; i < N_THREADS; i++)
    {
      workers[i].index = i;
      threads[i] = g_thread_new ("cugi-worker", run_worker, &workers[i]);
    }

  for (guint i = 0; i < N_THREADS; i++)
    {
      g_thread_join (threads[i]);
      g_assert_cmpuint (workers[i].round, ==, N_ROUNDS);
      g_assert_cmpuint (workers[i].n_idle, ==, N_ROUNDS);
      g_assert_cmpuint (workers[i].n_completed, ==, N_ROUNDS);
      g_assert_cmpuint (workers[i].n_synchronized, ==, N_ROUNDS);
    }
}

int
main (int argc, char **argv)
{
  int result;

  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();
  spinner = spin_kernel_new ();

  g_test_add_func ("/threads/eight-loops", test_threads);

  result = g_test_run ();
  g_clear_object (&spinner);
  return result;
}
