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
};

G_LOCK_DEFINE_STATIC (sources);
static GHashTable *sources;  /* GMainContext * -> CompletionSource *, both unowned */

static void
completion_free (CugiCompletion *completion)
{
  if (completion->notify != NULL)
    completion->notify (completion->user_data);
  if (completion->release_keep_alive != NULL)
    completion->release_keep_alive (completion->keep_alive);
  g_main_context_unref (completion->main_context);
  g_free (completion);
}

static gboolean
completion_source_dispatch (GSource    *source,
                            GSourceFunc callback,
                            gpointer    user_data)
{
  CompletionSource *self = (CompletionSource *) source;
  guint budget;

  /* Disarm before looking at the queue: a completion posted from here on
   * re-arms it, so none can be left behind. */
  g_source_set_ready_time (source, -1);

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
}

static GSourceFuncs completion_source_funcs = {
  .dispatch = completion_source_dispatch,
  .finalize = completion_source_finalize,
};

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
   * freed before this thread is done with the source. It takes the context's
   * lock, which GLib never holds while running anyone's code, and does
   * nothing when a wake-up is pending already. */
  g_mutex_lock (&source->lock);
  g_queue_push_tail_link (&source->queue, &completion->link);
  g_source_set_ready_time ((GSource *) source, 0);
  g_mutex_unlock (&source->lock);
}

void
cugi_completion_discard (CugiCompletion *completion)
{
  completion_free (completion);
}

void CUDA_CB
cugi_completion_host_func (void *completion)
{
  cugi_completion_post (completion);
}
