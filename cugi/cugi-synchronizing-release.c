/* cugi-synchronizing-release.c: frees that wait for the device, held back
 * while a copy's feeder thread has a stream waiting for it */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"

/* cuMemFree and its kin wait for the whole device to be idle, and hold a
 * lock of the driver's meanwhile that every enqueuing call takes. A copy
 * fed from a thread (cugi-staging-feed.c) has its caller's stream wait for
 * a gate that the thread opens only after more enqueuing calls: a free
 * between the two would wait for the gate for ever, and the thread for the
 * free (seen on an H200: a buffer finalized in the main loop while a 300
 * MiB upload was being fed). So while any gate is closed, cugi's own frees
 * are deferred, and run when the last gate opens; and no gate closes while
 * one of them runs. */

typedef struct
{
  CugiContext      *context;     /* (owned) */
  guint             generation;  /* the context's, when the release was asked for */
  CugiReleaseKind   kind;
  guint64           handle;
} DeferredRelease;

static GMutex release_lock;
static GCond release_cond;
static guint closed_gates;        /* feeds whose caller's stream waits for their thread */
static guint running_releases;    /* synchronizing releases in a call now */
static GArray *deferred_releases; /* (element-type DeferredRelease) */

static gboolean
call_release (CugiReleaseKind   kind,
              guint64           handle,
              GError          **error)
{
  switch (kind)
    {
    case CUGI_RELEASE_DEVICE_MEMORY:
      return CUGI_CALL (cuMemFree, ((CUdeviceptr) handle), error);
    case CUGI_RELEASE_IPC_MAPPING:
      return CUGI_CALL (cuIpcCloseMemHandle, ((CUdeviceptr) handle), error);
    case CUGI_RELEASE_HOST_MEMORY:
      return CUGI_CALL (cuMemFreeHost, ((void *) (guintptr) handle), error);
    case CUGI_RELEASE_HOST_REGISTRATION:
      return CUGI_CALL (cuMemHostUnregister, ((void *) (guintptr) handle), error);
    }
  g_assert_not_reached ();
}

static void
run_deferred (GArray *releases)
{
  for (guint i = 0; i < releases->len; i++)
    {
      DeferredRelease *release = &g_array_index (releases, DeferredRelease, i);
      g_auto (CugiContextScope) scope = CUGI_CONTEXT_SCOPE_INIT;
      g_autoptr(GError) error = NULL;

      /* A reset context took the memory with it. */
      if (cugi_context_get_generation (release->context) == release->generation &&
          (!cugi_context_enter (release->context, &scope, &error) ||
           !call_release (release->kind, release->handle, &error)))
        g_warning (_("Memory freed while a copy was being fed could not be released: %s"), error->message);
      g_object_unref (release->context);
    }
  g_array_unref (releases);
}

static void
release_done (void)
{
  g_mutex_lock (&release_lock);
  running_releases--;
  g_cond_broadcast (&release_cond);
  g_mutex_unlock (&release_lock);
}

gboolean
cugi_synchronizing_release (CugiContext      *context,
                            CugiReleaseKind   kind,
                            guint64           handle,
                            GError          **error)
{
  gboolean released;

  g_mutex_lock (&release_lock);
  if (closed_gates > 0)
    {
      DeferredRelease release = { g_object_ref (context), cugi_context_get_generation (context), kind, handle };

      if (deferred_releases == NULL)
        deferred_releases = g_array_new (FALSE, FALSE, sizeof (DeferredRelease));
      g_array_append_val (deferred_releases, release);
      g_mutex_unlock (&release_lock);
      return TRUE;
    }
  running_releases++;
  g_mutex_unlock (&release_lock);

  released = call_release (kind, handle, error);
  release_done ();
  return released;
}

void
cugi_synchronizing_release_close_gate (void)
{
  g_mutex_lock (&release_lock);
  while (running_releases > 0)
    g_cond_wait (&release_cond, &release_lock);
  closed_gates++;
  g_mutex_unlock (&release_lock);
}

void
cugi_synchronizing_release_open_gate (void)
{
  GArray *releases = NULL;

  g_mutex_lock (&release_lock);
  g_assert (closed_gates > 0);
  if (--closed_gates == 0 && deferred_releases != NULL)
    {
      releases = g_steal_pointer (&deferred_releases);
      running_releases++;
    }
  g_mutex_unlock (&release_lock);

  if (releases != NULL)
    {
      run_deferred (releases);
      release_done ();
    }
}
