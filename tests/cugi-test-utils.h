/* cugi-test-utils.h: shared by cugi's C tests */
#pragma once

#include <cugi/cugi.h>

G_BEGIN_DECLS

/* GTest set-up for cugi's tests: g_test_init plus a fixed locale. */
void     cugi_test_init        (int *argc, char ***argv);

/* For tests that need a GPU: when none can be used, prints the reason as a
 * skipped TAP plan and exits 77, which meson counts as skipped. */
void     cugi_test_require_gpu (void);

/* For a single test case: TRUE if a GPU is usable, else marks the case
 * skipped with the reason and returns FALSE. */
gboolean cugi_test_have_gpu    (void);

G_END_DECLS
