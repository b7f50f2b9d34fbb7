/* test-completion-queue.c: the completion bridge's queue and GSource, without a GPU
 *
 * Producer threads stand in for CUDA's host-function thread: they post
 * completions exactly as cugi_completion_host_func() does. */
#include "config.h"

#include <string.h>

#include "cugi-stream-private.h"
#include "cugi-test-utils.h"

#define N_PRODUCERS 8
#define N_PER_PRODUCER 2000

typedef struct
{
  GMainContext *main_context;   /* where completions must run */
  GMainLoop    *loop;           /* runs it until all arrived */
  GThread      *consumer;       /* the thread that runs the loop */
  guint         next[N_PRODUCERS];
  guint         n_run;
  guint         n_freed;
  GThread      *producers[N_PRODUCERS];
} Fixture;

typedef struct
{
  Fixture *fixture;
  guint    producer;
  guint    sequence;
} Item;

static void
item_run (gpointer data)
{
  Item *item = data;
  Fixture *fixture = item->fixture;

  /* In the consumer, never in the producer that posted it. */
  g_assert_true (g_thread_self () == fixture->consumer);
  g_assert_true (g_main_context_is_owner (fixture->main_context));
  for (guint i = 0; i < N_PRODUCERS; i++)
    g_assert_true (g_thread_self () != fixture->producers[i]);

  /* Exactly once and in order for each producer. */
  g_assert_cmpuint (item->sequence, ==, fixture->next[item->producer]);
  fixture->next[item->producer]++;
  if (++fixture->n_run == N_PRODUCERS * N_PER_PRODUCER)
    g_main_loop_quit (fixture->loop);
}

static void
item_free (gpointer data)
{
  Item *item = data;

  g_assert_true (g_thread_self () == item->fixture->consumer);
  item->fixture->n_freed++;
  g_free (item);
}

typedef struct
{
  Fixture *fixture;
  guint    producer;
} ProducerData;

static gpointer
produce (gpointer data)
{
  ProducerData *producer = data;

  for (guint i = 0; i < N_PER_PRODUCER; i++)
    {
      Item *item = g_new0 (Item, 1);

      item->fixture = producer->fixture;
      item->producer = producer->producer;
      item->sequence = i;
      cugi_completion_post (cugi_completion_new (producer->fixture->main_context,
                                                 item_run, item, item_free));
      if (i % 128 == 0)
        g_thread_yield ();
    }
  return NULL;
}

static gint n_stages[CUGI_COMPLETION_N_STAGES];

static void
count_stage (CugiCompletionStage stage)
{
  g_atomic_int_inc (&n_stages[stage]);
}

/* 8 threads post at once while the consumer runs its main context: every
 * completion arrives once, in its producer's order, in the consumer,
 * whichever way completions wake the context (@data, a
 * CugiCompletionDelivery), and the probe sees each one queued. */
static void
test_concurrent_producers (gconstpointer delivery)
{
  g_autoptr(GMainContext) main_context = g_main_context_new ();
  ProducerData data[N_PRODUCERS];
  Fixture fixture = { 0 };

  /* The context's source is made by the first completion posted for it. */
  cugi_completion_set_delivery (GPOINTER_TO_INT (delivery), 100);
  memset (n_stages, 0, sizeof n_stages);
  cugi_completion_set_probe (count_stage);
  g_main_context_push_thread_default (main_context);
  fixture.main_context = main_context;
  fixture.loop = g_main_loop_new (main_context, FALSE);
  fixture.consumer = g_thread_self ();

  for (guint i = 0; i < N_PRODUCERS; i++)
    {
      data[i].fixture = &fixture;
      data[i].producer = i;
      fixture.producers[i] = g_thread_new ("producer", produce, &data[i]);
    }

  g_main_loop_run (fixture.loop);

  for (guint i = 0; i < N_PRODUCERS; i++)
    {
      g_thread_join (fixture.producers[i]);
      fixture.producers[i] = NULL;
      g_assert_cmpuint (fixture.next[i], ==, N_PER_PRODUCER);
    }
  g_assert_cmpuint (fixture.n_freed, ==, N_PRODUCERS * N_PER_PRODUCER);

  /* Nothing more arrives (a last wake-up may find the queue empty). */
  while (g_main_context_iteration (main_context, FALSE))
    ;
  g_assert_cmpuint (fixture.n_run, ==, N_PRODUCERS * N_PER_PRODUCER);
  g_assert_cmpint (g_atomic_int_get (&n_stages[CUGI_COMPLETION_STAGE_QUEUED]), ==,
                   N_PRODUCERS * N_PER_PRODUCER);
  g_assert_cmpint (g_atomic_int_get (&n_stages[CUGI_COMPLETION_STAGE_DISPATCH]), >, 0);
  g_assert_cmpint (g_atomic_int_get (&n_stages[CUGI_COMPLETION_STAGE_HOST_FUNC]), ==, 0);

  cugi_completion_set_probe (NULL);
  cugi_completion_set_delivery (CUGI_COMPLETION_DELIVERY_COUNTER, 0);
  g_main_loop_unref (fixture.loop);
  g_main_context_pop_thread_default (main_context);
}

typedef struct
{
  GMainContext *main_context;
  GThread      *thread;
  GMainLoop    *loop;
  guint         n_run;
  guint         n_expected;
} Consumer;

static void
consumer_item_run (gpointer data)
{
  Consumer *consumer = data;

  g_assert_true (g_thread_self () == consumer->thread);
  g_assert_true (g_main_context_is_owner (consumer->main_context));
  if (++consumer->n_run == consumer->n_expected)
    g_main_loop_quit (consumer->loop);
}

static gpointer
consume (gpointer data)
{
  Consumer *consumer = data;

  g_main_context_push_thread_default (consumer->main_context);
  g_main_loop_run (consumer->loop);
  g_main_context_pop_thread_default (consumer->main_context);
  return NULL;
}

/* Each completion runs in the context it names, whichever thread posts it:
 * two consumers, each with its own context and loop, receive what the
 * main thread posts for them crosswise. */
static void
test_separate_contexts (void)
{
  Consumer consumers[2];
  GThread *threads[2];

  for (guint i = 0; i < 2; i++)
    {
      consumers[i].main_context = g_main_context_new ();
      consumers[i].loop = g_main_loop_new (consumers[i].main_context, FALSE);
      consumers[i].n_run = 0;
      consumers[i].n_expected = i == 0 ? 500 : 1000;
      consumers[i].thread = threads[i] = g_thread_new ("consumer", consume, &consumers[i]);
    }

  /* 500 for each in turn, then 500 more for the second. */
  for (guint n = 0; n < 1500; n++)
    {
      Consumer *consumer = &consumers[n < 1000 ? n % 2 : 1];

      cugi_completion_post (cugi_completion_new (consumer->main_context, consumer_item_run,
                                                 consumer, NULL));
    }

  for (guint i = 0; i < 2; i++)
    {
      g_thread_join (threads[i]);
      g_assert_cmpuint (consumers[i].n_run, ==, consumers[i].n_expected);
      g_main_loop_unref (consumers[i].loop);
      g_main_context_unref (consumers[i].main_context);
    }
}

static void
count (gpointer data)
{
  (*(guint *) data)++;
}

static void
fail_if_run (gpointer data)
{
  g_assert_not_reached ();
}

/* A completion whose marker never went in frees its data and runs nothing. */
static void
test_discard (void)
{
  g_autoptr(GMainContext) main_context = g_main_context_new ();
  guint n_run = 0;
  guint n_freed = 0;

  cugi_completion_discard (cugi_completion_new (main_context, count, &n_run, NULL));
  g_assert_false (g_main_context_iteration (main_context, FALSE));
  g_assert_cmpuint (n_run, ==, 0);

  /* With a notify: called at once, in this thread. */
  cugi_completion_discard (cugi_completion_new (main_context, fail_if_run, &n_freed, count));
  g_assert_cmpuint (n_freed, ==, 1);
}

/* Contexts come and go (a thread's private context ends with the thread):
 * the bridge forgets a context's source when the context goes, so a new
 * context, even at the same address, gets a working source of its own. */
static void
test_context_lifetime (void)
{
  for (guint i = 0; i < 50; i++)
    {
      GMainContext *main_context = g_main_context_new ();
      guint n_run = 0;

      cugi_completion_post (cugi_completion_new (main_context, count, &n_run, NULL));
      cugi_completion_post (cugi_completion_new (main_context, count, &n_run, NULL));
      while (n_run < 2)
        g_main_context_iteration (main_context, TRUE);
      g_assert_cmpuint (n_run, ==, 2);
      g_main_context_unref (main_context);
    }
}

typedef struct
{
  GMainContext *main_context;
  GPtrArray    *order;
} Nested;

static void
append_late (gpointer data)
{
  Nested *nested = data;

  g_ptr_array_add (nested->order, (gpointer) "late");
}

static gpointer
post_late (gpointer data)
{
  Nested *nested = data;

  g_usleep (10000);
  cugi_completion_post (cugi_completion_new (nested->main_context, append_late, nested, NULL));
  return NULL;
}

static void
run_nested_loop (gpointer data)
{
  Nested *nested = data;
  g_autoptr(GThread) thread = g_thread_new ("late", post_late, nested);

  g_ptr_array_add (nested->order, (gpointer) "outer");
  /* Waits, in a nested loop, for a completion posted after this one started:
   * it must get through although this one is still running. */
  while (nested->order->len < 3)
    g_main_context_iteration (nested->main_context, TRUE);
  g_thread_join (g_steal_pointer (&thread));
}

static void
append_next (gpointer data)
{
  Nested *nested = data;

  g_ptr_array_add (nested->order, (gpointer) "next");
}

/* A completion may run a nested main loop that waits for a later completion;
 * the completions queued behind it run in that nested loop, in order. */
static void
test_nested_loop (void)
{
  g_autoptr(GMainContext) main_context = g_main_context_new ();
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  Nested nested = { main_context, order };

  g_main_context_push_thread_default (main_context);
  cugi_completion_post (cugi_completion_new (main_context, run_nested_loop, &nested, NULL));
  cugi_completion_post (cugi_completion_new (main_context, append_next, &nested, NULL));
  while (order->len < 3)
    g_main_context_iteration (main_context, TRUE);

  g_assert_cmpuint (order->len, ==, 3);
  g_assert_cmpstr (order->pdata[0], ==, "outer");
  g_assert_cmpstr (order->pdata[1], ==, "next");
  g_assert_cmpstr (order->pdata[2], ==, "late");
  while (g_main_context_iteration (main_context, FALSE))
    ;
  g_assert_cmpuint (order->len, ==, 3);
  g_main_context_pop_thread_default (main_context);
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);

  g_test_add_data_func ("/completion-queue/concurrent-producers/ready-time",
                        GINT_TO_POINTER (CUGI_COMPLETION_DELIVERY_READY_TIME), test_concurrent_producers);
  g_test_add_data_func ("/completion-queue/concurrent-producers/eventfd",
                        GINT_TO_POINTER (CUGI_COMPLETION_DELIVERY_EVENTFD), test_concurrent_producers);
  g_test_add_data_func ("/completion-queue/concurrent-producers/spin",
                        GINT_TO_POINTER (CUGI_COMPLETION_DELIVERY_SPIN), test_concurrent_producers);
  g_test_add_func ("/completion-queue/separate-contexts", test_separate_contexts);
  g_test_add_func ("/completion-queue/discard", test_discard);
  g_test_add_func ("/completion-queue/context-lifetime", test_context_lifetime);
  g_test_add_func ("/completion-queue/nested-loop", test_nested_loop);

  return g_test_run ();
}
