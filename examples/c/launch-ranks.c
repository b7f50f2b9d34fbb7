/* launch-ranks.c: ranks as copies of the program, started with GSubprocess
 * and watched from the thread-default main context (launch-ranks.h). */
#include "launch-ranks.h"

#ifdef __linux__
#include <signal.h>
#include <sys/prctl.h>
#endif

typedef struct
{
  Ranks       *ranks;
  int          rank;
  GSubprocess *process;
  gboolean     running;
  gboolean     stopped;   /* force-exited after another rank failed */
  int          status;    /* the exit status, or 128 + the signal */
} Rank;

struct _Ranks
{
  GPtrArray    *ranks;     /* (element-type Rank) */
  int           running;
  int           first_failed;
  GCancellable *cancellable;
};

static void
rank_free (gpointer data)
{
  Rank *rank = data;

  g_clear_object (&rank->process);
  g_free (rank);
}

/* Stops the ranks still running: they would wait for the failed one. */
static void
stop_others (Ranks *ranks)
{
  g_cancellable_cancel (ranks->cancellable);
  for (guint i = 0; i < ranks->ranks->len; i++)
    {
      Rank *rank = ranks->ranks->pdata[i];

      if (rank->running && !rank->stopped)
        {
          rank->stopped = TRUE;
          g_subprocess_force_exit (rank->process);
        }
    }
}

static void
rank_exited (GObject      *source,
             GAsyncResult *result,
             gpointer      data)
{
  Rank *rank = data;
  Ranks *ranks = rank->ranks;
  g_autoptr(GError) error = NULL;

  rank->running = FALSE;
  ranks->running--;
  if (!g_subprocess_wait_finish (G_SUBPROCESS (source), result, &error))
    rank->status = 1;
  else if (g_subprocess_get_if_signaled (rank->process))
    rank->status = 128 + g_subprocess_get_term_sig (rank->process);
  else
    rank->status = g_subprocess_get_exit_status (rank->process);
  if (rank->status != 0 && rank->status != RANKS_EXIT_SKIPPED && !rank->stopped && ranks->first_failed < 0)
    {
      ranks->first_failed = rank->rank;
      stop_others (ranks);
    }
}

/* In the child, before it runs the program: a rank ends with its launcher
 * (which may be a rank itself, and fail), instead of waiting in NCCL for
 * ranks that will never come. */
static void
end_with_parent (gpointer data)
{
  (void) data;
#ifdef __linux__
  prctl (PR_SET_PDEATHSIG, SIGKILL);
#endif
}

/**
 * ranks_spawn:
 * @argv: the program and its arguments, run by every rank
 * @first_rank: the first rank to start (1 where this process is rank 0)
 * @n_ranks: the number of ranks in all
 * @environment: (nullable): NULL-terminated `NAME=VALUE` strings for every
 *   rank's environment, beside CUGI_RANK and CUGI_N_RANKS
 *
 * Starts ranks @first_rank to @n_ranks - 1, each running @argv with the
 * standard streams of this process, and watches them from the
 * thread-default main context.
 *
 * Returns: the ranks, or NULL with @error set when one could not start
 *   (those already started are stopped)
 */
Ranks *
ranks_spawn (const char * const *argv,
             int                 first_rank,
             int                 n_ranks,
             const char * const *environment,
             GError            **error)
{
  g_autoptr(Ranks) ranks = g_new0 (Ranks, 1);
  g_autofree char *n_ranks_text = g_strdup_printf ("%d", n_ranks);

  g_return_val_if_fail (argv != NULL && argv[0] != NULL, NULL);
  g_return_val_if_fail (first_rank >= 0 && first_rank <= n_ranks, NULL);

  ranks->ranks = g_ptr_array_new_with_free_func (rank_free);
  ranks->first_failed = -1;
  ranks->cancellable = g_cancellable_new ();
  for (int r = first_rank; r < n_ranks; r++)
    {
      g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
      g_autofree char *rank_text = g_strdup_printf ("%d", r);
      Rank *rank;

      for (const char * const *variable = environment; variable != NULL && *variable != NULL; variable++)
        {
          g_auto(GStrv) pair = g_strsplit (*variable, "=", 2);

          g_subprocess_launcher_setenv (launcher, pair[0], pair[1] != NULL ? pair[1] : "", TRUE);
        }
      g_subprocess_launcher_setenv (launcher, RANKS_RANK_VARIABLE, rank_text, TRUE);
      g_subprocess_launcher_setenv (launcher, RANKS_N_RANKS_VARIABLE, n_ranks_text, TRUE);
      g_subprocess_launcher_set_child_setup (launcher, end_with_parent, NULL, NULL);
      rank = g_new0 (Rank, 1);
      rank->ranks = ranks;
      rank->rank = r;
      rank->process = g_subprocess_launcher_spawnv (launcher, argv, error);
      if (rank->process == NULL)
        {
          g_prefix_error (error, "Rank %d could not start: ", r);
          rank_free (rank);
          return NULL;
        }
      rank->running = TRUE;
      ranks->running++;
      g_ptr_array_add (ranks->ranks, rank);
      g_subprocess_wait_async (rank->process, NULL, rank_exited, rank);
    }
  return g_steal_pointer (&ranks);
}

/* Cancelled when a rank fails: what this process does as a rank itself
 * (connecting) should give up then. */
GCancellable *
ranks_get_cancellable (Ranks *ranks)
{
  return ranks->cancellable;
}

/**
 * ranks_wait:
 * @ranks: the ranks of ranks_spawn()
 * @own_status: the exit status of this process's own work (0 where it is
 *   not a rank)
 *
 * Runs the thread-default main context until every rank has exited (when
 * @own_status is a failure, the others are stopped first) and says which
 * ranks failed.
 *
 * Returns: the program's exit status: 1 when this process or a rank
 *   failed, else 77 when one skipped, else 0
 */
int
ranks_wait (Ranks *ranks,
            int    own_status)
{
  GMainContext *context = g_main_context_get_thread_default ();
  gboolean failed = own_status != 0 && own_status != RANKS_EXIT_SKIPPED;
  gboolean skipped = own_status == RANKS_EXIT_SKIPPED;

  if (failed)
    stop_others (ranks);
  while (ranks->running > 0)
    g_main_context_iteration (context, TRUE);
  for (guint i = 0; i < ranks->ranks->len; i++)
    {
      Rank *rank = ranks->ranks->pdata[i];

      if (rank->stopped && rank->status != 0)
        {
          g_printerr ("rank %d: stopped after %s failed\n", rank->rank,
                      ranks->first_failed >= 0 ? "another rank" : "this process");
          continue;
        }
      skipped |= rank->status == RANKS_EXIT_SKIPPED;
      if (rank->status == 0 || rank->status == RANKS_EXIT_SKIPPED)
        continue;
      failed = TRUE;
      if (rank->status > 128)
        g_printerr ("rank %d: killed by signal %d\n", rank->rank, rank->status - 128);
      else
        g_printerr ("rank %d: exited with status %d\n", rank->rank, rank->status);
    }
  return failed ? 1 : skipped ? RANKS_EXIT_SKIPPED : 0;
}

void
ranks_free (Ranks *ranks)
{
  if (ranks->ranks != NULL)
    {
      /* Their watches point here: wait for them to end. */
      if (ranks->running > 0)
        ranks_wait (ranks, 1);
      g_ptr_array_unref (ranks->ranks);
    }
  g_clear_object (&ranks->cancellable);
  g_free (ranks);
}

/**
 * ranks_find_own:
 * @rank: (out): this process's rank
 * @n_ranks: (out): the number of ranks
 *
 * Reads CUGI_RANK and CUGI_N_RANKS, which ranks_spawn() sets.
 *
 * Returns: TRUE when this process was started as a rank; FALSE when it
 *   was not (no CUGI_RANK), and FALSE with @error set when the two are
 *   not a rank among a number of ranks
 */
gboolean
ranks_find_own (int     *rank,
                int     *n_ranks,
                GError **error)
{
  const char *rank_text = g_getenv (RANKS_RANK_VARIABLE);
  const char *n_ranks_text = g_getenv (RANKS_N_RANKS_VARIABLE);
  guint64 r, n;

  if (rank_text == NULL)
    return FALSE;
  if (n_ranks_text == NULL || !g_ascii_string_to_unsigned (n_ranks_text, 10, 1, G_MAXINT, &n, NULL) ||
      !g_ascii_string_to_unsigned (rank_text, 10, 0, n - 1, &r, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "%s=%s and %s=%s are not a rank (from 0) below a number of ranks",
                   RANKS_RANK_VARIABLE, rank_text, RANKS_N_RANKS_VARIABLE,
                   n_ranks_text != NULL ? n_ranks_text : "(unset)");
      return FALSE;
    }
  *rank = (int) r;
  *n_ranks = (int) n;
  return TRUE;
}

/* The path of this program, for its ranks: /proc/self/exe's target where
 * it can be read (argv[0] may be a name found in PATH, or relative), else
 * @argv0. */
char *
ranks_get_program (const char *argv0)
{
  char *path = g_file_read_link ("/proc/self/exe", NULL);

  return path != NULL ? path : g_strdup (argv0);
}
