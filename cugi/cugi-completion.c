/* cugi-completion.c: the bridge from CUDA's host-function thread to GMainContexts
 *
 * A marker (cuLaunchHostFunc) carries a CugiCompletion. When the GPU reaches
 * the marker, CUDA calls cugi_completion_host_func() on a thread of its own.
 * That thread may call no CUDA API and must not block on anything a thread
 * calling CUDA could hold, so all it does is append the completion to the
 * queue of its GMainContext under that queue's own mutex and wake the context
 * with g_source_set_ready_time(), which is thread-safe. A CompletionSource
 * attached to the context drains the queue in its dispatch and runs each
 * completion there: signals and GTask returns happen in the thread that
 * iterates the context, never in CUDA's. No thread polls anything.
 *
 * There is one CompletionSource per GMainContext, made on first use and owned
 * by the context itself from then on, so it lives exactly as long as the
 * context: no churn of sources when work comes in bursts, and nothing left
 * behind when a thread's private context goes away. A global table maps each
 * context to its source without owning either; the source's finalize removes
 * the entry. Every queued or pending completion holds a reference on its
 * context, so a source is never finalized while a completion can still reach
 * it, and the entry is gone before the context's memory could be reused.
 */
#include "config.h"

#ifdef __linux__
#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>
#endif

#include "cugi-stream-private.h"

typedef struct _CompletionSource CompletionSource;

struct _CugiCompletion
{
  GList              link;          /* in its source's queue; data is self */
  CompletionSource  *source;        /* owned by main_context */
  GMainContext      *main_context;  /* a reference, so the source lives */
  CugiCompletionFunc func;
  gpointer           user_data;
  GDestroyNotify     notify;
  gpointer           keep_alive;    /* released by release_keep_alive */
  GDestroyNotify     release_keep_alive;
};

struct _CompletionSource
{
  GSource       parent;
  GMainContext *main_context;  /* unowned: it owns this source */
  GMutex        lock;          /* guards queue, and nothing else */
  GQueue        queue;         /* CugiCompletion, oldest first */
  gint          n_queued;      /* atomic: the queue's length, read without the lock */
  gint          n_in_flight;   /* atomic: made and neither run nor discarded */

  /* How completions wake the context: see CugiCompletionDelivery. Fixed
   * when the source is made. */
  CugiCompletionDelivery delivery;
  gint64        spin_ns;       /* SPIN: the longest spin before sleeping */
  int           wake_fd;       /* EVENTFD: the eventfd, -1 otherwise */
  gpointer      wake_tag;      /* EVENTFD: its tag in the source */
  gint          wake_armed;    /* EVENTFD, atomic: written since the last dispatch */
};

G_LOCK_DEFINE_STATIC (sources);
static GHashTable *sources;  /* GMainContext * -> CompletionSource *, both unowned */

/* For sources made from now on (cugi_completion_set_delivery()). */
static CugiCompletionDelivery next_delivery = CUGI_COMPLETION_DELIVERY_READY_TIME;
static gint64 next_spin_ns;
/* NULL but in benchmarks: told the stages of each completion. */
static CugiCompletionProbe probe;

static inline void
note_stage (CugiCompletionStage stage)
{
  CugiCompletionProbe notify = g_atomic_pointer_get (&probe);

  if (G_UNLIKELY (notify != NULL))
    notify (stage);
}

static void
completion_free (CugiCompletion *completion)
{
  g_atomic_int_add (&completion->source->n_in_flight, -1);
  if (completion->notify != NULL)
    completion->notify (completion->user_data);
  if (completion->release_keep_alive != NULL)
    completion->release_keep_alive (completion->keep_alive);
  g_main_context_unref (completion->main_context);
  g_free (completion);
}

/* Whether completions wait in the queue; @stage noted when they do. */
static gboolean
completion_source_has_queued (CompletionSource   *self,
                              CugiCompletionStage stage)
{
  if (g_atomic_int_get (&self->n_queued) == 0)
    return FALSE;
  note_stage (stage);
  return TRUE;
}

/* SPIN: before the context sleeps while completions are in flight, wait
 * for one for up to spin_ns, which saves the wake-up of a sleeping thread
 * when it comes. Other deliveries only look at the queue (and note it). */
static gboolean
completion_source_prepare (GSource *source,
                           gint    *timeout)
{
  CompletionSource *self = (CompletionSource *) source;
  gint64 deadline;

  *timeout = -1;
  if (completion_source_has_queued (self, CUGI_COMPLETION_STAGE_PREPARE))
    return TRUE;
  if (self->delivery != CUGI_COMPLETION_DELIVERY_SPIN || g_atomic_int_get (&self->n_in_flight) == 0)
    return FALSE;
  deadline = g_get_monotonic_time () + self->spin_ns / 1000;
  while (g_get_monotonic_time () < deadline)
    if (completion_source_has_queued (self, CUGI_COMPLETION_STAGE_PREPARE))
      return TRUE;
  return FALSE;
}

/* EVENTFD: a wake-up whose completions an earlier dispatch ran must still
 * be read, or the context would not sleep again. */
static gboolean
completion_source_check (GSource *source)
{
  CompletionSource *self = (CompletionSource *) source;

  return completion_source_has_queued (self, CUGI_COMPLETION_STAGE_CHECK) ||
         (self->wake_tag != NULL && (g_source_query_unix_fd (source, self->wake_tag) & G_IO_IN) != 0);
}

/* Tells the context that completions wait, from any thread. */
static void
completion_source_wake (CompletionSource *self)
{
#ifdef __linux__
  if (self->wake_fd >= 0)
    {
      static const guint64 one = 1;

      /* Once per dispatch: the dispatch re-arms it before draining. */
      if (g_atomic_int_compare_and_exchange (&self->wake_armed, FALSE, TRUE))
        while (write (self->wake_fd, &one, sizeof one) < 0 && errno == EINTR)
          ;
      return;
    }
#endif
  /* Takes the context's lock, which GLib never holds while running
   * anyone's code, and does nothing when a wake-up is pending already. */
  g_source_set_ready_time ((GSource *) self, 0);
}

/* Disarms the wake-up before the queue is looked at: a completion posted
 * from here on wakes the context again, so none can be left behind. */
static void
completion_source_disarm (CompletionSource *self)
{
#ifdef __linux__
  if (self->wake_fd >= 0)
    {
      guint64 count;

      g_atomic_int_set (&self->wake_armed, FALSE);
      while (read (self->wake_fd, &count, sizeof count) < 0 && errno == EINTR)
        ;
      return;
    }
#endif
  g_source_set_ready_time ((GSource *) self, -1);
}

static gboolean
completion_source_dispatch (GSource    *source,
                            GSourceFunc callback,
                            gpointer    user_data)
{
  CompletionSource *self = (CompletionSource *) source;
  guint budget;

  note_stage (CUGI_COMPLETION_STAGE_DISPATCH);
  completion_source_disarm (self);

  /* Run only what is queued now, so that a steady stream of completions
   * cannot keep this dispatch from returning to the main loop. */
  g_mutex_lock (&self->lock);
  budget = self->queue.length;
  g_mutex_unlock (&self->lock);

  /* One at a time rather than the whole batch: a completion's function may
   * run a nested main loop (the source can recurse), and the completions
   * after it must still run in order. */
  for (; budget > 0; budget--)
    {
      CugiCompletion *completion;
      GList *link;

      g_mutex_lock (&self->lock);
      link = g_queue_pop_head_link (&self->queue);
      if (link != NULL)
        g_atomic_int_add (&self->n_queued, -1);
      g_mutex_unlock (&self->lock);
      if (link == NULL)
        break;

      completion = link->data;
      completion->func (completion->user_data);
      completion_free (completion);
    }

  return G_SOURCE_CONTINUE;
}

static void
completion_source_finalize (GSource *source)
{
  CompletionSource *self = (CompletionSource *) source;

  G_LOCK (sources);
  if (g_hash_table_lookup (sources, self->main_context) == self)
    g_hash_table_remove (sources, self->main_context);
  G_UNLOCK (sources);

  /* Empty: each queued completion holds a reference on the context that owns
   * this source, so the context (and this source) cannot go before they ran. */
  g_mutex_clear (&self->lock);
#ifdef __linux__
  if (self->wake_fd >= 0)
    close (self->wake_fd);
#endif
}

static GSourceFuncs completion_source_funcs = {
  .prepare = completion_source_prepare,
  .check = completion_source_check,
  .dispatch = completion_source_dispatch,
  .finalize = completion_source_finalize,
};

void
cugi_completion_set_delivery (CugiCompletionDelivery delivery,
                              guint                  spin_us)
{
  G_LOCK (sources);
  next_delivery = delivery;
  next_spin_ns = (gint64) spin_us * 1000;
  G_UNLOCK (sources);
}

void
cugi_completion_set_probe (CugiCompletionProbe stage_probe)
{
  g_atomic_pointer_set (&probe, stage_probe);
}

/* Called with the sources' lock held. */
static void
completion_source_set_delivery (CompletionSource *self)
{
  self->delivery = next_delivery;
  self->spin_ns = next_spin_ns;
  self->wake_fd = -1;
#ifdef __linux__
  if (self->delivery == CUGI_COMPLETION_DELIVERY_EVENTFD)
    {
      self->wake_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
      if (self->wake_fd >= 0)
        self->wake_tag = g_source_add_unix_fd ((GSource *) self, self->wake_fd, G_IO_IN);
    }
#endif
  if (self->wake_fd < 0 && self->delivery == CUGI_COMPLETION_DELIVERY_EVENTFD)
    self->delivery = CUGI_COMPLETION_DELIVERY_READY_TIME;
}

/* The source of @main_context, made and attached on first use (borrowed:
 * the context owns it, and the caller holds a reference on the context). */
static CompletionSource *
completion_source_get (GMainContext *main_context)
{
  CompletionSource *self;

  G_LOCK (sources);
  if (sources == NULL)
    sources = g_hash_table_new (NULL, NULL);

  self = g_hash_table_lookup (sources, main_context);
  if (self == NULL)
    {
      GSource *source = g_source_new (&completion_source_funcs, sizeof (CompletionSource));

      self = (CompletionSource *) source;
      self->main_context = main_context;
      g_mutex_init (&self->lock);
      g_queue_init (&self->queue);
      completion_source_set_delivery (self);
      g_source_set_static_name (source, "[cugi] GPU completions");
      g_source_set_can_recurse (source, TRUE);
      g_source_attach (source, main_context);
      g_hash_table_insert (sources, main_context, self);
      g_source_unref (source);
    }
  G_UNLOCK (sources);

  return self;
}

CugiCompletion *
cugi_completion_new (GMainContext      *main_context,
                     CugiCompletionFunc func,
                     gpointer           user_data,
                     GDestroyNotify     notify)
{
  CugiCompletion *completion;

  g_return_val_if_fail (main_context != NULL, NULL);
  g_return_val_if_fail (func != NULL, NULL);

  completion = g_new0 (CugiCompletion, 1);
  completion->link.data = completion;
  completion->main_context = g_main_context_ref (main_context);
  completion->source = completion_source_get (main_context);
  g_atomic_int_inc (&completion->source->n_in_flight);
  completion->func = func;
  completion->user_data = user_data;
  completion->notify = notify;

  return completion;
}

void
cugi_completion_keep_alive (CugiCompletion *completion,
                            gpointer        object,
                            GDestroyNotify  release)
{
  completion->keep_alive = object;
  completion->release_keep_alive = release;
}

void
cugi_completion_post (CugiCompletion *completion)
{
  CompletionSource *source = completion->source;

  /* The wake-up comes after the push, so the dispatch it triggers finds the
   * completion, and under the queue's lock, so the completion (whose
   * reference keeps the context and this source alive) cannot be run and
   * freed before this thread is done with the source. */
  g_mutex_lock (&source->lock);
  g_queue_push_tail_link (&source->queue, &completion->link);
  g_atomic_int_inc (&source->n_queued);
  completion_source_wake (source);
  g_mutex_unlock (&source->lock);
  note_stage (CUGI_COMPLETION_STAGE_QUEUED);
}

void
cugi_completion_discard (CugiCompletion *completion)
{
  completion_free (completion);
}

void CUDA_CB
cugi_completion_host_func (void *completion)
{
  note_stage (CUGI_COMPLETION_STAGE_HOST_FUNC);
  cugi_completion_post (completion);
}
