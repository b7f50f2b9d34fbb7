/* launch-ranks.h: starting the ranks of a multi-process program as copies
 * of itself with GSubprocess, and reading a rank's place from its
 * environment. cugi starts no processes (docs/multi-gpu.md): this is the
 * program's part, shared by examples/c/data-parallel.c and
 * tests/benchmarks/bench-all-reduce.c.
 *
 *   g_autoptr(Ranks) ranks = ranks_spawn (argv, 0, n_ranks, environment, &error);
 *   return ranks_wait (ranks, 0);          (0, 77 where all skipped, else 1)
 *
 * Each rank gets CUGI_RANK and CUGI_N_RANKS, and the strings of
 * @environment, in its environment; ranks_find_own() reads them back.
 * When one rank fails, the others are stopped: NCCL would leave them
 * waiting for it forever. */
#pragma once

#include <gio/gio.h>

#define RANKS_RANK_VARIABLE "CUGI_RANK"
#define RANKS_N_RANKS_VARIABLE "CUGI_N_RANKS"

/* The exit status of a program or rank with nothing to do here (no GPU,
 * no NCCL): meson's "skipped". */
#define RANKS_EXIT_SKIPPED 77

typedef struct _Ranks Ranks;

Ranks        *ranks_spawn           (const char * const *argv,
                                     int                 first_rank,
                                     int                 n_ranks,
                                     const char * const *environment,
                                     GError            **error);
GCancellable *ranks_get_cancellable (Ranks              *ranks);
int           ranks_wait            (Ranks              *ranks,
                                     int                 own_status);
void          ranks_free            (Ranks              *ranks);

gboolean      ranks_find_own        (int                *rank,
                                     int                *n_ranks,
                                     GError            **error);
char         *ranks_get_program     (const char         *argv0);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Ranks, ranks_free)
