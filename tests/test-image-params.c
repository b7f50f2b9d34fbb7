/* test-image-params.c: parameter counts read from CUBIN and PTX images, so
 * that cugi asks the driver about each parameter and never past the last
 * (compute-sanitizer reports every failing call). NVRTC makes the images; no
 * GPU is needed. */
#include "config.h"

#include <string.h>

#include "cugi-private.h"
#include "cugi-program-private.h"
#include "cugi-test-utils.h"

static const char kernels_source[] =
  "struct Big { char bytes[100]; };\n"
  "extern \"C\" __global__ void none () { }\n"
  "extern \"C\" __global__ void three (float *a, int n, double x) { if (n) a[0] = x; }\n"
  "extern \"C\" __global__ void big (Big b, char c, short s, float *p) { p[0] = b.bytes[3] + c + s; }\n"
  "template <typename T> __global__ void pair (T *p, T v) { p[0] = v; }\n";

typedef struct
{
  const char *symbol;
  gint        count;
} ExpectedCount;

static const ExpectedCount expected_counts[] = {
  { "none", 0 },
  { "three", 3 },
  { "big", 4 },
  { "_Z4pairIiEvPT_S0_", 2 },
};

static gint
lookup_count (GHashTable *counts,
              const char *symbol)
{
  gpointer count;

  if (!g_hash_table_lookup_extended (counts, symbol, NULL, &count))
    return -1;
  return GPOINTER_TO_INT (count);
}

/* Compiles kernels_source for sm_90 (CUBIN and PTX) or compute_90 (PTX). */
static CugiProgram *
compile_kernels (gboolean real_architecture)
{
  g_autoptr(CugiProgram) program = cugi_program_new (kernels_source, "kernels.cu");
  g_autoptr(GError) error = NULL;
  const char *options[] = { NULL, NULL };

  g_assert_true (cugi_program_add_name_expression (program, "pair<int>", &error));
  g_assert_no_error (error);
  if (real_architecture)
    g_assert_true (cugi_program_compile_for_arch (program, 9, 0, NULL, &error));
  else
    {
      options[0] = "--gpu-architecture=compute_90";
      g_assert_true (cugi_program_compile (program, options, &error));
    }
  g_assert_no_error (error);
  return g_steal_pointer (&program);
}

static void
assert_expected_counts (GBytes *image)
{
  g_autoptr(GHashTable) counts = NULL;

  g_assert_nonnull (image);
  counts = cugi_image_read_param_counts (g_bytes_get_data (image, NULL), g_bytes_get_size (image));
  g_assert_nonnull (counts);
  for (gsize i = 0; i < G_N_ELEMENTS (expected_counts); i++)
    g_assert_cmpint (lookup_count (counts, expected_counts[i].symbol), ==, expected_counts[i].count);
  g_assert_cmpuint (g_hash_table_size (counts), ==, G_N_ELEMENTS (expected_counts));
}

static void
test_cubin (void)
{
  g_autoptr(CugiProgram) program = compile_kernels (TRUE);
  g_autoptr(GBytes) cubin = cugi_program_get_cubin (program);

  assert_expected_counts (cubin);
}

static void
test_ptx (void)
{
  g_autoptr(CugiProgram) program = compile_kernels (FALSE);
  g_autoptr(GBytes) ptx = cugi_program_get_ptx (program);

  assert_expected_counts (ptx);
}

static GHashTable *
read_text (const char *text)
{
  return cugi_image_read_param_counts ((const guint8 *) text, strlen (text));
}

/* Hand-written PTX may comment inside a parameter list, and a name may
 * contain ".entry" without being one. */
static void
test_ptx_comments (void)
{
  g_autoptr(GHashTable) counts = read_text (
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    "// .entry commented (.param .u32 a)\n"
    "/* .entry also_commented (.param .u32 a) */\n"
    ".visible .entry spaced ( /* a, b ) */ .param .u32 spaced_a, // ), c\n"
    "    .param .align 8 .b8 spaced_b[16] )\n{\n ret;\n}\n"
    ".visible .entry bare()\n{\n ret;\n}\n"
    ".extern .entry declared;\n"
    ".file 1 \"/tmp/.entry quoted(.param .u32 a)\"\n"
    ".visible .func (.param .b32 r) not_an_entry (.param .b32 x)\n{\n ret;\n}\n");

  g_assert_nonnull (counts);
  g_assert_cmpint (lookup_count (counts, "spaced"), ==, 2);
  g_assert_cmpint (lookup_count (counts, "bare"), ==, 0);
  g_assert_cmpint (lookup_count (counts, "declared"), ==, -1);
  g_assert_cmpint (lookup_count (counts, "not_an_entry"), ==, -1);
  g_assert_cmpint (lookup_count (counts, "quoted"), ==, -1);
  g_assert_cmpint (lookup_count (counts, "commented"), ==, -1);
  g_assert_cmpint (lookup_count (counts, "also_commented"), ==, -1);
}

/* Formats this does not read: the caller falls back to asking the driver. */
static void
test_unknown_formats (void)
{
  static const guint8 fatbin[] = { 0x50, 0xed, 0x55, 0xba, 1, 0, 0x10, 0 };
  static const guint8 elf32[] = { 0x7f, 'E', 'L', 'F', 1, 1, 1, 0 };
  g_autoptr(GHashTable) from_fatbin = cugi_image_read_param_counts (fatbin, sizeof fatbin);
  g_autoptr(GHashTable) from_elf32 = cugi_image_read_param_counts (elf32, sizeof elf32);
  g_autoptr(GHashTable) from_text = read_text ("no version line .entry k(.param .u32 a)");
  g_autoptr(GHashTable) from_nothing = cugi_image_read_param_counts ((const guint8 *) "", 0);

  g_assert_null (from_fatbin);
  g_assert_null (from_elf32);
  g_assert_null (from_text);
  g_assert_null (from_nothing);
}

/* Every count read from a damaged image is either absent or the true one:
 * truncated at every length and with each byte of the section headers and
 * .nv.info sections flipped (the sanitizer build checks the reads). */
static void
test_damaged_cubin (void)
{
  g_autoptr(CugiProgram) program = compile_kernels (TRUE);
  g_autoptr(GBytes) cubin = cugi_program_get_cubin (program);
  gsize size = 0;
  const guint8 *data = g_bytes_get_data (cubin, &size);
  g_autofree guint8 *copy = g_memdup2 (data, size);
  guint n_checked = 0;

  for (gsize length = 0; length < size; length += 7)
    {
      g_autoptr(GHashTable) counts = cugi_image_read_param_counts (data, length);

      for (gsize i = 0; counts != NULL && i < G_N_ELEMENTS (expected_counts); i++)
        {
          gint count = lookup_count (counts, expected_counts[i].symbol);
          g_assert_true (count == -1 || count == expected_counts[i].count);
        }
      n_checked++;
    }
  for (gsize position = 0; position < size; position++)
    {
      g_autoptr(GHashTable) counts = NULL;

      copy[position] ^= 0xff;
      counts = cugi_image_read_param_counts (copy, size);
      copy[position] = data[position];
      /* A flipped byte may change a count's value (an ordinal), never make a
       * table that claims more than the section can hold: 12 bytes each. */
      for (gsize i = 0; counts != NULL && i < G_N_ELEMENTS (expected_counts); i++)
        g_assert_cmpint (lookup_count (counts, expected_counts[i].symbol), <=, (gint) (size / 12));
      n_checked++;
    }
  g_assert_cmpuint (n_checked, >, size);
}

int
main (int argc, char *argv[])
{
  cugi_test_init (&argc, &argv);
  g_setenv ("CUGI_DISABLE_CACHE", "1", TRUE);

  g_test_add_func ("/image-params/cubin", test_cubin);
  g_test_add_func ("/image-params/ptx", test_ptx);
  g_test_add_func ("/image-params/ptx-comments", test_ptx_comments);
  g_test_add_func ("/image-params/unknown-formats", test_unknown_formats);
  g_test_add_func ("/image-params/damaged-cubin", test_damaged_cubin);

  return g_test_run ();
}
