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
 *
 * CUDA's thread calls a host function some 35 to 50 us after the GPU got
 * there. The COUNTER delivery, the default where the driver has stream
 * memory operations, learns of it sooner: see "COUNTER" below.
 */
#include "config.h"

#include <string.h>

#ifdef __linux__
#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>
#endif

#include "cugi-stream-private.h"

typedef struct _CompletionSource CompletionSource;

typedef struct _Lane Lane;

struct _CugiCompletion
{
  GList              link;          /* in its source's queue, or in its lane's before; data is self */
  CompletionSource  *source;        /* owned by main_context */
  GMainContext      *main_context;  /* a reference, so the source lives */
  CugiCompletionFunc func;
  gpointer           user_data;
  GDestroyNotify     notify;
  gpointer           keep_alive;    /* released by release_keep_alive */
  GDestroyNotify     release_keep_alive;
  /* Those of the memory, atomic: whoever runs or discards the completion,
   * and under COUNTER its host function, which may run after that. */
  gint               holders;

  /* COUNTER: see "COUNTER" below. */
  Lane              *lane;          /* (nullable): a reference, until the host function ran */
  const guint32     *counter;       /* the lane's, when sequence is not 0 */
  guint32            sequence;      /* once the counter passed it, the GPU did too. 0: no counter */
  gboolean           posted;        /* under the lane's lock */
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

/* For sources made from now on (cugi_completion_set_delivery()), or
 * from CUGI_COMPLETION_DELIVERY when nobody chose before the first source. */
static CugiCompletionDelivery next_delivery = CUGI_COMPLETION_DELIVERY_COUNTER;
static gint64 next_spin_ns;
static gboolean delivery_chosen;
/* SPIN's spin when the environment chose it: bench-completion's. */
#define DEFAULT_SPIN_US 200

static const char *const delivery_names[CUGI_COMPLETION_N_DELIVERIES] = {
  [CUGI_COMPLETION_DELIVERY_READY_TIME] = "ready-time",
  [CUGI_COMPLETION_DELIVERY_EVENTFD] = "eventfd",
  [CUGI_COMPLETION_DELIVERY_SPIN] = "spin",
  [CUGI_COMPLETION_DELIVERY_COUNTER] = "counter",
};
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
completion_unhold (CugiCompletion *completion)
{
  if (g_atomic_int_dec_and_test (&completion->holders))
    g_free (completion);
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
  completion_unhold (completion);
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
 * from here on wakes the context again, so none can be left behind. The
 * eventfd is read before it is disarmed: the other way round, a producer
 * could write in between, the read swallow its wake-up and leave it armed
 * with nothing to read, and no later completion would wake the context. */
static void
completion_source_disarm (CompletionSource *self)
{
#ifdef __linux__
  if (self->wake_fd >= 0)
    {
      guint64 count;

      while (read (self->wake_fd, &count, sizeof count) < 0 && errno == EINTR)
        ;
      g_atomic_int_set (&self->wake_armed, FALSE);
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
  delivery_chosen = TRUE;
  G_UNLOCK (sources);
}

const char *
cugi_completion_delivery_get_name (CugiCompletionDelivery delivery)
{
  g_return_val_if_fail (delivery < CUGI_COMPLETION_N_DELIVERIES, NULL);

  return delivery_names[delivery];
}

/* CUGI_COMPLETION_DELIVERY, so that a run on a GPU can try a delivery
 * everywhere; called with the sources' lock held, once. */
static void
read_delivery_from_environment (void)
{
  const char *name = g_getenv ("CUGI_COMPLETION_DELIVERY");

  delivery_chosen = TRUE;
  if (name == NULL || *name == '\0')
    return;
  for (guint delivery = 0; delivery < CUGI_COMPLETION_N_DELIVERIES; delivery++)
    if (g_str_equal (name, delivery_names[delivery]))
      {
        next_delivery = delivery;
        next_spin_ns = (gint64) DEFAULT_SPIN_US * 1000;
        return;
      }
  g_warning ("CUGI_COMPLETION_DELIVERY=%s is none of ready-time, eventfd, spin and counter: using counter",
             name);
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
  if ((self->wake_fd < 0 && self->delivery == CUGI_COMPLETION_DELIVERY_EVENTFD) ||
      (self->delivery == CUGI_COMPLETION_DELIVERY_COUNTER && cugi_cuda.cuStreamWriteValue32 == NULL))
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
  if (!delivery_chosen)
    read_delivery_from_environment ();

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
  completion->holders = 1;
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


/* ---- COUNTER: the GPU writes a counter, a thread of cugi's reads it -------
 *
 * Under the COUNTER delivery each marker is two operations on the stream: a
 * cuStreamWriteValue32() of a sequence number to a counter in mapped pinned
 * memory, then the host function. A watcher thread, one per process, reads
 * the counters of the markers in flight: it spins for a while after a marker
 * is enqueued, then sleeps between looks for longer and longer, so that a
 * long kernel does not cost a core, and waits on a GCond when nothing is in
 * flight. It calls no CUDA API, only reads memory.
 *
 * The host function stays, and always runs: whichever of it and the watcher
 * sees a marker first posts its completion, under the lock of the marker's
 * lane, where the other finds it posted. Correctness never depends on the
 * watcher, and each completion is posted once. Its main context may run
 * and release it before the host function runs, which still reads it: its
 * memory has two holders then, and the last frees it.
 *
 * A lane holds the markers of one owner (a stream) in the order they were
 * enqueued, with one counter the stream writes in that order, so that the
 * counter passing a marker's number means the GPU got past all the markers
 * before it. The watcher posts a lane's markers from its head only; a host
 * function posts its own marker, whose predecessors on the stream ran their
 * host functions before. So completions reach their contexts in order.
 *
 * Counters are 64 bytes apart in pages of pinned memory allocated once per
 * context (and per reset of it) and freed with the context. A lane takes a
 * counter on its first marker and gives it back when the last of its
 * markers and its owner are gone; the GPU's writes have all landed by then,
 * since each comes before a host function on the stream. */

#define COUNTER_STRIDE 64
#define COUNTERS_PER_PAGE 64
/* The watcher spins this long after a marker is enqueued: the GPU is often
 * done with short work in that time. Then it sleeps from WATCH_MIN_SLEEP_US
 * to WATCH_MAX_SLEEP_US between looks, doubling each time. */
#define WATCH_SPIN_US 200
#define WATCH_MIN_SLEEP_US 20
#define WATCH_MAX_SLEEP_US 1000

typedef struct
{
  guint8      *host;        /* NULL once freed, with the context or by a reset */
  CUdeviceptr  device;
  guint64      used;        /* a bit per counter */
  CugiContext *context;     /* unowned: NULL once it is disposed */
  guint        generation;  /* the context's when allocated */
} CounterPage;

/* Guards the pages' fields and the list. Never held while calling CUDA:
 * a host function may wait for it, giving a counter back. */
G_LOCK_DEFINE_STATIC (pages);
static GPtrArray *pages;  /* CounterPage (each an atomic reference-counted box) */

struct _Lane
{
  GMutex       enqueue_lock;   /* held across the driver calls of a marker */
  /* The counter, under enqueue_lock. */
  CounterPage *page;           /* (nullable): a reference */
  guint        index;
  guint32      last_sequence;  /* the last written */
  gboolean     unsupported;    /* the driver refused: host functions only */

  GMutex       lock;           /* guards markers; never held while calling CUDA */
  GQueue       markers;        /* CugiCompletion, oldest first */
  gboolean     watched;        /* in watched_lanes: under watch_lock */
};

static GMutex watch_lock;      /* guards what follows and Lane.watched */
static gint watch_waiters;     /* threads waiting for watch_lock to enqueue a marker */
static GCond watch_wake;
static GPtrArray *watched_lanes;  /* (owned) the lanes with markers, since the watcher started */
static gint64 watch_spin_until;   /* monotonic us */

/* Called with the context current. */
static CounterPage *
counter_page_new (CugiContext *context,
                  guint        generation)
{
  g_autoptr(GError) error = NULL;
  CounterPage *page;
  void *host;
  CUdeviceptr device;

  if (!CUGI_CALL (cuMemHostAlloc, (&host, COUNTER_STRIDE * COUNTERS_PER_PAGE, CU_MEMHOSTALLOC_DEVICEMAP),
                  &error))
    goto failed;
  if (!CUGI_CALL (cuMemHostGetDevicePointer, (&device, host, 0), &error))
    {
      cugi_cuda.cuMemFreeHost (host);
      goto failed;
    }
  memset (host, 0, COUNTER_STRIDE * COUNTERS_PER_PAGE);
  page = g_atomic_rc_box_new0 (CounterPage);
  page->host = host;
  page->device = device;
  page->context = context;
  page->generation = generation;
  return page;

failed:
  g_debug ("Completions without counters in this context: %s", error->message);
  return NULL;
}

/* Its memory is freed with its context (counter_pages_forget()), not here:
 * a lane may outlive that, waiting for the host function of a marker. */
static void
counter_page_unref (gpointer page)
{
  g_atomic_rc_box_release (page);
}

/* Frees the pages of @object, a CugiContext being disposed, while its CUDA
 * context still exists: its streams, which hold it, and so every marker in
 * flight on them, are gone. */
static void
counter_pages_forget (gpointer data,
                      GObject *object)
{
  g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
  CugiContext *context = (CugiContext *) object;
  guint generation = cugi_context_get_generation (context);
  g_autoptr(GPtrArray) to_free = g_ptr_array_new ();

  G_LOCK (pages);
  for (guint i = pages->len; i-- > 0;)
    {
      CounterPage *page = g_ptr_array_index (pages, i);

      if (page->context != context)
        continue;
      if (page->generation == generation && page->host != NULL)
        g_ptr_array_add (to_free, page->host);
      page->host = NULL;
      page->context = NULL;
      g_ptr_array_remove_index_fast (pages, i);
    }
  G_UNLOCK (pages);

  if (cugi_context_enter (context, &scope, NULL))
    for (guint i = 0; i < to_free->len; i++)
      cugi_cuda.cuMemFreeHost (g_ptr_array_index (to_free, i));
}

/* A page of @context in @generation with a free counter, or NULL; pages of
 * the context's earlier generations are marked gone. *@known says whether
 * the context has pages at all. Called with the pages' lock held. */
static CounterPage *
counter_page_find (CugiContext *context,
                   guint        generation,
                   gboolean    *known)
{
  *known = FALSE;
  for (guint i = 0; i < pages->len; i++)
    {
      CounterPage *page = g_ptr_array_index (pages, i);

      if (page->context != context)
        continue;
      *known = TRUE;
      if (page->generation != generation)
        page->host = NULL;  /* the reset freed it */
      else if (page->used != G_MAXUINT64)
        return page;
    }
  return NULL;
}

/* A free counter of @context's (current) pages, allocating a page when all
 * are taken: the page, a new reference, or NULL where the device cannot map
 * pinned memory. */
static CounterPage *
counter_page_take (CugiContext *context,
                   guint       *index)
{
  guint generation = cugi_context_get_generation (context);
  CounterPage *page;
  CounterPage *made = NULL;
  gboolean known;

  /* A page is allocated outside the lock (see above); meanwhile another
   * thread may take the last free counter, or add a page. */
  for (;;)
    {
      G_LOCK (pages);
      if (pages == NULL)
        pages = g_ptr_array_new_with_free_func (counter_page_unref);
      page = counter_page_find (context, generation, &known);
      if (page == NULL && made != NULL)
        {
          if (!known)
            g_object_weak_ref (G_OBJECT (context), counter_pages_forget, NULL);
          page = made;
          g_ptr_array_add (pages, g_steal_pointer (&made));
        }
      if (page != NULL)
        {
          for (*index = 0; page->used & (G_GUINT64_CONSTANT (1) << *index); (*index)++)
            ;
          page->used |= G_GUINT64_CONSTANT (1) << *index;
          g_atomic_rc_box_acquire (page);
        }
      G_UNLOCK (pages);
      if (page != NULL)
        break;
      if ((made = counter_page_new (context, generation)) == NULL)
        return NULL;
    }

  if (made != NULL)
    {
      cugi_cuda.cuMemFreeHost (made->host);
      counter_page_unref (made);
    }
  return page;
}

static void
lane_release_counter (Lane *self)
{
  if (self->page == NULL)
    return;
  G_LOCK (pages);
  self->page->used &= ~(G_GUINT64_CONSTANT (1) << self->index);
  G_UNLOCK (pages);
  g_clear_pointer (&self->page, counter_page_unref);
}

static void
lane_clear (gpointer data)
{
  Lane *self = data;

  lane_release_counter (self);
  g_mutex_clear (&self->enqueue_lock);
  g_mutex_clear (&self->lock);
}

static Lane *
lane_ref (Lane *self)
{
  return g_atomic_rc_box_acquire (self);
}

static void
lane_unref (gpointer self)
{
  g_atomic_rc_box_release_full (self, lane_clear);
}

G_DEFINE_QUARK (cugi-completion-lane, lane)

/* The lane of @owner (borrowed: the owner keeps it), made on first use. */
static Lane *
lane_get (GObject *owner)
{
  Lane *self = g_object_get_qdata (owner, lane_quark ());

  if (self == NULL)
    {
      Lane *made = g_atomic_rc_box_new0 (Lane);

      g_mutex_init (&made->enqueue_lock);
      g_mutex_init (&made->lock);
      g_queue_init (&made->markers);
      if (g_object_replace_qdata (owner, lane_quark (), NULL, made, lane_unref, NULL))
        return made;
      /* Another thread made one meanwhile. */
      lane_unref (made);
      self = g_object_get_qdata (owner, lane_quark ());
    }
  return self;
}

static inline guint32 *
lane_counter (Lane *self)
{
  return (guint32 *) (self->page->host + (gsize) self->index * COUNTER_STRIDE);
}

/* Whether the lane has a counter in @context (current) now, taking one
 * after a reset of the context or on first use; called with enqueue_lock. */
static gboolean
lane_bind (Lane        *self,
           CugiContext *context)
{
  if (self->unsupported)
    return FALSE;
  if (self->page != NULL && self->page->generation == cugi_context_get_generation (context))
    return TRUE;

  lane_release_counter (self);
  self->page = counter_page_take (context, &self->index);
  if (self->page == NULL)
    {
      self->unsupported = TRUE;
      return FALSE;
    }
  /* A counter another lane had goes on from where it stands. */
  self->last_sequence = (guint32) g_atomic_int_get ((gint *) lane_counter (self));
  return TRUE;
}

/* Enqueues the write of the next sequence number on @handle and gives it
 * to @completion, unless the lane has no counter; called with enqueue_lock. */
static void
lane_write_counter (Lane           *self,
                    CugiCompletion *completion,
                    CugiContext    *context,
                    CUstream        handle)
{
  g_autoptr(GError) error = NULL;
  guint32 sequence;

  if (!lane_bind (self, context))
    return;
  /* 0 stands for "no counter". */
  sequence = self->last_sequence + 1 != 0 ? self->last_sequence + 1 : 1;
  /* The write's default fence makes the work before it visible to the
   * host before the counter is. */
  if (!CUGI_CALL (cuStreamWriteValue32, (handle, self->page->device + (gsize) self->index * COUNTER_STRIDE,
                                         sequence, CU_STREAM_WRITE_VALUE_DEFAULT), &error))
    {
      /* A driver or device without stream memory operations refuses the
       * first: the lane goes on with host functions only, as the staging
       * pipeline goes on without. */
      g_debug ("Completions without counters on this stream: %s", error->message);
      self->unsupported = TRUE;
      return;
    }
  self->last_sequence = sequence;
  completion->sequence = sequence;
  completion->counter = lane_counter (self);
}

static gboolean
counter_passed (const guint32 *counter,
                guint32        sequence)
{
  /* Compared cyclically, so that the counter may wrap around. */
  return (gint32) ((guint32) g_atomic_int_get ((const gint *) counter) - sequence) >= 0;
}

/* Called with the lane's lock held. */
static void
lane_post_locked (Lane           *self,
                  CugiCompletion *completion)
{
  g_queue_unlink (&self->markers, &completion->link);
  completion->posted = TRUE;
  note_stage (CUGI_COMPLETION_STAGE_HOST_FUNC);
  cugi_completion_post (completion);
}

/* What the host function of @completion, a marker of @lane, holds. */
static void
completion_drop_marker (CugiCompletion *completion,
                        Lane           *lane)
{
  lane_unref (lane);
  completion_unhold (completion);
}

void CUDA_CB
cugi_completion_host_func (void *data)
{
  CugiCompletion *completion = data;
  Lane *lane = completion->lane;

  if (lane == NULL)
    {
      note_stage (CUGI_COMPLETION_STAGE_HOST_FUNC);
      cugi_completion_post (completion);
      return;
    }
  /* Unless the watcher posted it. */
  g_mutex_lock (&lane->lock);
  if (!completion->posted)
    lane_post_locked (lane, completion);
  g_mutex_unlock (&lane->lock);
  completion_drop_marker (completion, lane);
}

/* Posts the markers at the head of @self whose counter passed them;
 * whether markers are left. */
static gboolean
lane_poll (Lane *self)
{
  CugiCompletion *head;

  g_mutex_lock (&self->lock);
  while ((head = g_queue_peek_head (&self->markers)) != NULL && head->sequence != 0 &&
         counter_passed (head->counter, head->sequence))
    lane_post_locked (self, head);
  g_mutex_unlock (&self->lock);

  return head != NULL;
}

static inline void
cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#elif defined(__aarch64__)
  __asm__ __volatile__ ("yield");
#endif
}

/* Looks at every watched lane once, and lets go of those left empty;
 * called with watch_lock held. */
static void
watch_lanes (void)
{
  for (guint i = watched_lanes->len; i-- > 0;)
    {
      Lane *lane = g_ptr_array_index (watched_lanes, i);

      if (!lane_poll (lane))
        {
          /* Under watch_lock, which a marker enqueued from now on takes to
           * be watched: none is missed. */
          lane->watched = FALSE;
          g_ptr_array_remove_index_fast (watched_lanes, i);
        }
    }
}

static gpointer
watch_counters (gpointer data)
{
  gint64 sleep_us = WATCH_MIN_SLEEP_US;

  g_mutex_lock (&watch_lock);
  for (;;)
    {
      gint64 now;

      while (watched_lanes->len == 0)
        g_cond_wait (&watch_wake, &watch_lock);
      watch_lanes ();
      now = g_get_monotonic_time ();
      if (now < watch_spin_until)
        {
          /* Let enqueuers in between looks: a mutex is not fair, and this
           * thread would take it back before a waiting one woke up, holding
           * up the launch enqueuing a marker for as long as it spins. */
          g_mutex_unlock (&watch_lock);
          do
            cpu_relax ();
          while (g_atomic_int_get (&watch_waiters) > 0);
          g_mutex_lock (&watch_lock);
          sleep_us = WATCH_MIN_SLEEP_US;
        }
      else if (watched_lanes->len > 0)
        {
          g_cond_wait_until (&watch_wake, &watch_lock, now + sleep_us);
          sleep_us = MIN (sleep_us * 2, WATCH_MAX_SLEEP_US);
        }
    }
  return NULL;
}

/* Has the watcher (started on first use) look at @lane, where a marker was
 * just enqueued, spinning for a while. */
static void
watch_lane (Lane *lane)
{
  g_atomic_int_inc (&watch_waiters);
  g_mutex_lock (&watch_lock);
  g_atomic_int_add (&watch_waiters, -1);
  if (watched_lanes == NULL)
    {
      watched_lanes = g_ptr_array_new_with_free_func (lane_unref);
      g_thread_unref (g_thread_new ("cugi-counters", watch_counters, NULL));
    }
  if (!lane->watched)
    {
      lane->watched = TRUE;
      g_ptr_array_add (watched_lanes, lane_ref (lane));
    }
  watch_spin_until = g_get_monotonic_time () + WATCH_SPIN_US;
  g_cond_signal (&watch_wake);
  g_mutex_unlock (&watch_lock);
}

/* The marker of @completion under COUNTER, on @owner's lane. */
static gboolean
enqueue_counter_marker (CugiCompletion *completion,
                        GObject        *owner,
                        CugiContext    *context,
                        CUstream        handle,
                        GError        **error)
{
  g_autoptr(GError) launch_error = NULL;
  Lane *lane = lane_get (owner);
  gboolean launched;
  gboolean posted;

  completion->lane = lane_ref (lane);
  completion->holders = 2;

  /* Held until the host function is enqueued too, so that the lane's
   * markers, their numbers and their host functions are in one order. */
  g_mutex_lock (&lane->enqueue_lock);
  lane_write_counter (lane, completion, context, handle);
  g_mutex_lock (&lane->lock);
  g_queue_push_tail_link (&lane->markers, &completion->link);
  g_mutex_unlock (&lane->lock);
  if (completion->sequence != 0)
    watch_lane (lane);
  launched = CUGI_CALL (cuLaunchHostFunc, (handle, cugi_completion_host_func, completion), &launch_error);
  g_mutex_unlock (&lane->enqueue_lock);
  if (launched)
    return TRUE;

  /* No host function will run, so its share is ours: unless the watcher
   * saw the counter already, the completion never runs. */
  g_mutex_lock (&lane->lock);
  posted = completion->posted;
  if (!posted)
    g_queue_unlink (&lane->markers, &completion->link);
  g_mutex_unlock (&lane->lock);
  if (!posted)
    {
      g_propagate_error (error, g_steal_pointer (&launch_error));
      cugi_completion_discard (completion);
    }
  completion_drop_marker (completion, lane);
  return posted;
}

gboolean
cugi_completion_enqueue (CugiCompletion *completion,
                         GObject        *owner,
                         CugiContext    *context,
                         CUstream        handle,
                         GError        **error)
{
  if (completion->source->delivery == CUGI_COMPLETION_DELIVERY_COUNTER)
    return enqueue_counter_marker (completion, owner, context, handle, error);

  if (CUGI_CALL (cuLaunchHostFunc, (handle, cugi_completion_host_func, completion), error))
    return TRUE;
  cugi_completion_discard (completion);
  return FALSE;
}
