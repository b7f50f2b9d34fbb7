/* test-completion-counter.c: the COUNTER delivery without a GPU, against
 * fake-cuda-streams, whose streams run cuStreamWriteValue32 in order and
 * whose host functions a test can hold back (as a slow CUDA callback
 * thread would): completions arrive once each and in stream order, whether
 * cugi's watcher or the host function sees them first; the watcher alone
 * delivers while host functions are held; a stream may go while its last
 * host function is pending; and without stream memory operations, host
 * functions deliver alone. */
#include "config.h"

#include <gmodule.h>

#include "cugi-stream-private.h"
#include "gpu-work.h"

#define N_STREAMS 2

static void (*hold_host_functions) (int hold);

static void CUDA_CB
sleep_us (void *data)
{
  g_usleep (GPOINTER_TO_UINT (data));
}

/* Work of @us microseconds on @stream, as a kernel would be. */
static void
work (CugiStream *stream,
      guint       us)
{
  g_assert_cmpint (cugi_cuda.cuLaunchHostFunc (cugi_stream_get_handle (stream), sleep_us, GUINT_TO_POINTER (us)),
                   ==, CUDA_SUCCESS);
}

typedef struct
{
  GMainContext *main_context;
  CugiStream   *streams[N_STREAMS];
  guint         n_enqueued[N_STREAMS];
  guint         n_run[N_STREAMS];
  guint         n_freed;
  guint         n_refused;     /* whose enqueue failed */
  guint         n_tasks_done;
} Fixture;

typedef struct
{
  Fixture *fixture;
  guint    stream;
  guint    sequence;
} Item;

/* Each completion once, in the main context, after those enqueued before
 * it on its stream and before those after. */
static void
item_run (gpointer data)
{
  Item *item = data;

  g_assert_true (g_main_context_is_owner (item->fixture->main_context));
  g_assert_cmpuint (item->sequence, ==, item->fixture->n_run[item->stream]);
  item->fixture->n_run[item->stream]++;
}

static void
item_free (gpointer data)
{
  Item *item = data;

  g_assert_true (g_main_context_is_owner (item->fixture->main_context));
  item->fixture->n_freed++;
  g_free (item);
}

static void
add_item (Fixture *fixture,
          guint    stream)
{
  g_autoptr(GError) error = NULL;
  Item *item = g_new0 (Item, 1);

  item->fixture = fixture;
  item->stream = stream;
  item->sequence = fixture->n_enqueued[stream]++;
  g_assert_true (cugi_stream_add_completion (fixture->streams[stream], NULL, item_run, item, item_free, &error));
  g_assert_no_error (error);
}

static guint
total_run (const Fixture *fixture)
{
  guint total = 0;

  for (guint i = 0; i < N_STREAMS; i++)
    total += fixture->n_run[i];
  return total;
}

static gboolean
all_run (gconstpointer data)
{
  const Fixture *fixture = data;

  for (guint i = 0; i < N_STREAMS; i++)
    if (fixture->n_run[i] < fixture->n_enqueued[i])
      return FALSE;
  return TRUE;
}

/* Streams whose completions go through COUNTER: the delivery is chosen for
 * the new main context's completion source, made by its first completion. */
static void
fixture_set_up (Fixture      *fixture,
                gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  cugi_completion_set_delivery (CUGI_COMPLETION_DELIVERY_COUNTER, 0);
  fixture->main_context = g_main_context_new ();
  g_main_context_push_thread_default (fixture->main_context);
  for (guint i = 0; i < N_STREAMS; i++)
    {
      fixture->streams[i] = cugi_stream_new (NULL, CUGI_STREAM_FLAGS_NON_BLOCKING, 0, &error);
      g_assert_no_error (error);
    }
}

static void
fixture_tear_down (Fixture      *fixture,
                   gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  /* Nothing more arrives: each completion ran once. */
  for (guint i = 0; i < N_STREAMS; i++)
    if (fixture->streams[i] != NULL)
      {
        cugi_stream_synchronize (fixture->streams[i], &error);
        g_assert_no_error (error);
      }
  iterate_for (20);
  for (guint i = 0; i < N_STREAMS; i++)
    g_assert_cmpuint (fixture->n_run[i], ==, fixture->n_enqueued[i]);
  g_assert_cmpuint (fixture->n_freed, ==, total_run (fixture) + fixture->n_refused);

  for (guint i = 0; i < N_STREAMS; i++)
    g_clear_object (&fixture->streams[i]);
  g_main_context_pop_thread_default (fixture->main_context);
  g_main_context_unref (fixture->main_context);
  cugi_completion_set_delivery (CUGI_COMPLETION_DELIVERY_COUNTER, 0);
}

typedef struct
{
  Fixture *fixture;
  guint    stream;
  guint    n_before;  /* completions enqueued on the stream before the task */
} TaskCheck;

static void
task_done (GObject      *source,
           GAsyncResult *result,
           gpointer      data)
{
  g_autoptr(GError) error = NULL;
  TaskCheck *check = data;

  g_assert_true (cugi_stream_synchronize_finish (CUGI_STREAM (source), result, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (check->fixture->n_run[check->stream], >=, check->n_before);
  check->fixture->n_tasks_done++;
  g_free (check);
}

/* Many completions and async waits on two streams, with work between some
 * of them, so that sometimes the watcher and sometimes the host function
 * sees a marker first. */
static void
test_order (Fixture      *fixture,
            gconstpointer data)
{
  guint n_tasks = 0;

  for (guint i = 0; i < 400; i++)
    for (guint s = 0; s < N_STREAMS; s++)
      {
        if (i % 7 == s)
          work (fixture->streams[s], 300);
        add_item (fixture, s);
        if (i % 50 == 0)
          {
            TaskCheck *check = g_new0 (TaskCheck, 1);

            check->fixture = fixture;
            check->stream = s;
            check->n_before = fixture->n_enqueued[s];
            cugi_stream_synchronize_async (fixture->streams[s], NULL, task_done, check);
            n_tasks++;
          }
        if (i % 100 == 0)
          g_main_context_iteration (fixture->main_context, FALSE);
      }
  iterate_until_condition (all_run, fixture, 10000);
  iterate_until (&fixture->n_tasks_done, n_tasks, 10000);
}

/* While CUDA's host functions are held back, the watcher alone delivers:
 * the first marker of each stream (the held host function after it stops
 * the stream), and the rest once they run, each once and in order. */
static void
test_watcher_alone (Fixture      *fixture,
                    gconstpointer data)
{
  hold_host_functions (TRUE);
  for (guint s = 0; s < N_STREAMS; s++)
    for (guint i = 0; i < 3; i++)
      add_item (fixture, s);
  iterate_until (&fixture->n_run[0], 1, 10000);
  iterate_until (&fixture->n_run[1], 1, 10000);
  /* Run and freed in the main context, while the host functions wait. */
  g_assert_cmpuint (fixture->n_freed, ==, 2);
  iterate_for (20);
  g_assert_cmpuint (total_run (fixture), ==, 2);

  hold_host_functions (FALSE);
  iterate_until_condition (all_run, fixture, 10000);
}

/* A stream dropped with markers in flight delivers them all, then goes;
 * once the watcher delivered its last, it goes before that marker's host
 * function has run, which runs later on the destroyed stream. */
static void
test_stream_dropped (Fixture      *fixture,
                     gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiEvent) event = cugi_event_new (NULL, CUGI_EVENT_FLAGS_NONE, &error);
  gpointer weak = fixture->streams[0];

  g_assert_no_error (error);
  work (fixture->streams[0], 5000);
  for (guint i = 0; i < 20; i++)
    add_item (fixture, 0);
  g_object_add_weak_pointer (weak, &weak);
  g_clear_object (&fixture->streams[0]);
  iterate_until_finalized (&weak, 10000);
  g_assert_cmpuint (fixture->n_run[0], ==, 20);

  weak = fixture->streams[1];
  hold_host_functions (TRUE);
  add_item (fixture, 1);
  cugi_event_record (event, fixture->streams[1], &error);
  g_assert_no_error (error);
  g_object_add_weak_pointer (weak, &weak);
  g_clear_object (&fixture->streams[1]);
  iterate_until_finalized (&weak, 10000);
  g_assert_cmpuint (fixture->n_run[1], ==, 1);
  g_assert_cmpuint (fixture->n_freed, ==, 21);
  /* The event comes after the host function on the stream. */
  hold_host_functions (FALSE);
  cugi_event_synchronize (event, &error);
  g_assert_no_error (error);
}

/* Stand-ins for entry points of the driver that fail. */
static CUresult CUDAAPI
write_not_supported (CUstream handle, CUdeviceptr address, cuuint32_t value, unsigned int flags)
{
  return CUDA_ERROR_NOT_SUPPORTED;
}

static CUresult CUDAAPI
launch_fails (CUstream handle, CUhostFn fn, void *data)
{
  return CUDA_ERROR_NOT_PERMITTED;
}

/* Where the device refuses stream memory operations, host functions
 * deliver, silently. */
static void
test_unsupported (Fixture      *fixture,
                  gconstpointer data)
{
  __typeof__ (cugi_cuda.cuStreamWriteValue32) write_value = cugi_cuda.cuStreamWriteValue32;

  cugi_cuda.cuStreamWriteValue32 = write_not_supported;
  hold_host_functions (TRUE);
  for (guint s = 0; s < N_STREAMS; s++)
    for (guint i = 0; i < 5; i++)
      add_item (fixture, s);
  iterate_for (50);
  g_assert_cmpuint (total_run (fixture), ==, 0);
  hold_host_functions (FALSE);
  iterate_until_condition (all_run, fixture, 10000);
  cugi_cuda.cuStreamWriteValue32 = write_value;
}

/* When the host function cannot be enqueued after the counter's write was,
 * the completion runs once if the watcher saw the counter first (the call
 * succeeds), else never, and the call fails; either way its data is freed
 * once. */
static void
test_host_function_fails (Fixture      *fixture,
                          gconstpointer data)
{
  __typeof__ (cugi_cuda.cuLaunchHostFunc) launch_host_func = cugi_cuda.cuLaunchHostFunc;

  cugi_cuda.cuLaunchHostFunc = launch_fails;
  for (guint i = 0; i < 20; i++)
    {
      g_autoptr(GError) error = NULL;
      Item *item = g_new0 (Item, 1);

      item->fixture = fixture;
      item->sequence = fixture->n_enqueued[0];
      if (cugi_stream_add_completion (fixture->streams[0], NULL, item_run, item, item_free, &error))
        {
          g_assert_no_error (error);
          fixture->n_enqueued[0]++;
        }
      else
        {
          g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED);
          /* Freed at once, never run. */
          g_assert_cmpuint (fixture->n_freed, ==, ++fixture->n_refused);
        }
    }
  cugi_cuda.cuLaunchHostFunc = launch_host_func;
  iterate_until (&fixture->n_freed, 20, 10000);
  g_assert_cmpuint (fixture->n_run[0], ==, fixture->n_enqueued[0]);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;

  cugi_test_init (&argc, &argv);
  /* The stand-in's own switch, beside the driver's entry points. */
  if (!cugi_init (&error) ||
      !g_module_symbol (g_module_open (g_getenv ("CUGI_LIBCUDA"), G_MODULE_BIND_LOCAL),
                        "fake_cuda_streams_hold_host_functions", (gpointer *) &hold_host_functions))
    g_error ("CUGI_LIBCUDA is not a usable fake-cuda-streams: %s", error != NULL ? error->message : "");

  g_test_add ("/completion-counter/order", Fixture, NULL, fixture_set_up, test_order, fixture_tear_down);
  g_test_add ("/completion-counter/watcher-alone", Fixture, NULL, fixture_set_up, test_watcher_alone,
              fixture_tear_down);
  g_test_add ("/completion-counter/stream-dropped", Fixture, NULL, fixture_set_up, test_stream_dropped,
              fixture_tear_down);
  g_test_add ("/completion-counter/unsupported", Fixture, NULL, fixture_set_up, test_unsupported,
              fixture_tear_down);
  g_test_add ("/completion-counter/host-function-fails", Fixture, NULL, fixture_set_up,
              test_host_function_fails, fixture_tear_down);

  return g_test_run ();
}
