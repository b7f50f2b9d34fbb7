/* test-stream-callback.c: cugi_stream_add_callback(): callbacks run in the
 * stream's main context after the work before them, in stream order with
 * events' ::completed and ::idle, and refuse streams that cannot take work.
 * Built twice: against fake-cuda-streams (suite cpu) and against the real
 * driver (suite gpu); the work a test waits for is a host function that
 * holds the stream (a gate), which both drivers run. */
#include "config.h"

#include "cugi-stream-private.h"
#include "cugi-test-utils.h"

/* What ran, in order, as a string of names ("e1 a e2 b idle "). */
typedef struct
{
  GString        *log;
  CugiTestCaller *caller;  /* where each callback must run, or NULL */
  guint           freed;   /* notify calls */
} Journal;

static void
journal_init (Journal        *journal,
              CugiTestCaller *caller)
{
  journal->log = g_string_new (NULL);
  journal->caller = caller;
  journal->freed = 0;
}

static void
journal_clear (Journal *journal)
{
  g_string_free (journal->log, TRUE);
}

/* The user data of one callback: its name and the journal. */
typedef struct
{
  Journal    *journal;
  const char *name;
  CugiStream *stream;  /* what the callback must be given */
} Entry;

static Entry *
entry_new (Journal    *journal,
           const char *name,
           CugiStream *stream)
{
  Entry *entry = g_new (Entry, 1);

  entry->journal = journal;
  entry->name = name;
  entry->stream = stream;
  return entry;
}

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  entry->journal->freed++;
  g_free (entry);
}

static void
on_callback (CugiStream *stream,
             gpointer    data)
{
  Entry *entry = data;

  g_assert_true (stream == entry->stream);
  if (entry->journal->caller != NULL)
    cugi_test_caller_check (entry->journal->caller);
  g_string_append_printf (entry->journal->log, "%s ", entry->name);
}

static void
add_callback (CugiStream *stream,
              Journal    *journal,
              const char *name)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_stream_add_callback (stream, on_callback, entry_new (journal, name, stream), entry_free,
                                           &error));
  g_assert_no_error (error);
}

static void
on_completed (CugiEvent *event,
              gpointer   data)
{
  Journal *journal = data;

  g_string_append_printf (journal->log, "%s ", (const char *) g_object_get_data (G_OBJECT (event), "name"));
}

static void
on_idle (CugiStream *stream,
         gpointer    data)
{
  Journal *journal = data;

  g_string_append (journal->log, "idle ");
}

static CugiEvent *
named_event (const char *name,
             Journal    *journal)
{
  CugiEvent *event = cugi_test_event_new (CUGI_EVENT_FLAGS_DISABLE_TIMING);

  g_object_set_data (G_OBJECT (event), "name", (gpointer) name);
  g_signal_connect (event, "completed", G_CALLBACK (on_completed), journal);
  return event;
}

/* Runs @main_context until @journal's log is @expected. */
static void
run_until (GMainContext *main_context,
           Journal      *journal,
           const char   *expected)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (strcmp (journal->log->str, expected) != 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (main_context, FALSE);
  g_assert_cmpstr (journal->log->str, ==, expected);
}

static void
sleep_ms (void *data)
{
  g_usleep (GPOINTER_TO_UINT (data) * 1000);
}

/* Work that cugi tracks, as a launch is: what drives ::idle. */
static void
work (CugiStream *stream)
{
  g_assert_cmpint (cugi_cuda.cuLaunchHostFunc (cugi_stream_get_handle (stream), sleep_ms, GUINT_TO_POINTER (1)),
                   ==, CUDA_SUCCESS);
  cugi_stream_track_work (stream, NULL);
}

static void
test_order (void)
{
  CugiTestCaller caller;
  Journal journal;
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(CugiEvent) first = NULL;
  g_autoptr(CugiEvent) second = NULL;
  CugiTestGate gate;

  cugi_test_caller_push (&caller);
  journal_init (&journal, &caller);
  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  first = named_event ("e1", &journal);
  second = named_event ("e2", &journal);
  g_signal_connect (stream, "idle", G_CALLBACK (on_idle), &journal);

  cugi_test_gate_close (&gate, stream);
  work (stream);
  cugi_test_record (first, stream);
  add_callback (stream, &journal, "a");
  cugi_test_record (second, stream);
  add_callback (stream, &journal, "b");
  work (stream);

  /* Nothing before the work is done. */
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (caller.main_context, FALSE);
  g_assert_cmpstr (journal.log->str, ==, "");
  g_assert_cmpuint (journal.freed, ==, 0);

  cugi_test_gate_open (&gate, stream);
  run_until (caller.main_context, &journal, "e1 a e2 b idle ");
  g_assert_cmpuint (journal.freed, ==, 2);

  journal_clear (&journal);
  cugi_test_caller_pop (&caller);
}

typedef struct
{
  CugiStream *stream;
  Journal    *journal;
} AddFromThread;

static gpointer
add_from_thread (gpointer data)
{
  AddFromThread *add = data;

  add_callback (add->stream, add->journal, "from-thread");
  return NULL;
}

/* Added from another thread, the callback still runs where the stream was
 * made, and the stream lives until it ran. */
static void
test_main_context (void)
{
  CugiTestCaller caller;
  Journal journal;
  CugiStream *stream;
  CugiTestGate gate;
  AddFromThread add;
  GThread *thread;

  cugi_test_caller_push (&caller);
  journal_init (&journal, &caller);
  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_object_add_weak_pointer (G_OBJECT (stream), (gpointer *) &stream);

  cugi_test_gate_close (&gate, stream);
  add.stream = stream;
  add.journal = &journal;
  thread = g_thread_new ("add-callback", add_from_thread, &add);
  g_thread_join (thread);
  g_object_unref (stream);
  g_assert_nonnull (stream);

  /* The global default context is not the stream's. */
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  cugi_test_gate_open (&gate, stream);
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpstr (journal.log->str, ==, "");

  run_until (caller.main_context, &journal, "from-thread ");
  g_assert_cmpuint (journal.freed, ==, 1);
  g_assert_null (stream);

  journal_clear (&journal);
  cugi_test_caller_pop (&caller);
}

static void
add_again (CugiStream *stream,
           gpointer    data)
{
  Journal *journal = data;

  g_string_append (journal->log, "outer ");
  add_callback (stream, journal, "inner");
}

/* A callback may enqueue work, another callback included. */
static void
test_reentrant (void)
{
  CugiTestCaller caller;
  Journal journal;
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(GError) error = NULL;

  cugi_test_caller_push (&caller);
  journal_init (&journal, &caller);
  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_assert_true (cugi_stream_add_callback (stream, add_again, &journal, NULL, &error));
  g_assert_no_error (error);
  run_until (caller.main_context, &journal, "outer inner ");

  journal_clear (&journal);
  cugi_test_caller_pop (&caller);
}

static void
never_called (CugiStream *stream,
              gpointer    data)
{
  g_assert_not_reached ();
}

static void
count_notify (gpointer data)
{
  (*(guint *) data)++;
}

/* Streams that cannot take work: an error, and the data freed at once. */
static void
test_refused (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) bare = g_object_new (CUGI_TYPE_STREAM, NULL);
  guint freed = 0;

  g_assert_false (cugi_stream_add_callback (bare, never_called, &freed, count_notify, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "cugi_stream_new");
  g_assert_cmpuint (freed, ==, 1);
}

/* A stream its context's reset destroyed. In a process of its own: the
 * reset ends every stream and event of the context. */
static void
test_destroyed_stream (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = NULL;
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(CugiStream) fresh = NULL;
  CugiTestCaller caller;
  Journal journal;
  guint freed = 0;

  if (!cugi_test_in_subprocess (60))
    return;
  cugi_test_caller_push (&caller);
  journal_init (&journal, &caller);
  context = cugi_test_default_context ();
  stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_assert_true (cugi_context_reset (context, &error));
  g_assert_no_error (error);

  g_assert_false (cugi_stream_add_callback (stream, never_called, &freed, count_notify, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, NULL);
  g_assert_cmpuint (freed, ==, 1);

  /* The library goes on with a new stream. */
  fresh = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  add_callback (fresh, &journal, "fresh");
  run_until (caller.main_context, &journal, "fresh ");

  journal_clear (&journal);
  cugi_test_caller_pop (&caller);
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();

  g_test_add_func ("/stream-callback/order", test_order);
  g_test_add_func ("/stream-callback/main-context", test_main_context);
  g_test_add_func ("/stream-callback/reentrant", test_reentrant);
  g_test_add_func ("/stream-callback/refused", test_refused);
  g_test_add_func ("/stream-callback/destroyed-stream", test_destroyed_stream);
  return g_test_run ();
}
