/* test-mangle.c: parameter types read from Itanium-mangled kernel names,
 * without a GPU: names worked out by hand, and names NVRTC produces. */
#include "config.h"

#include "cugi-launch-private.h"
#include "cugi-test-utils.h"

typedef struct
{
  CugiParamType type;
  const char   *spelling;
} Expected;

#define END { CUGI_PARAM_TYPE_OTHER, NULL }

static void
assert_params (const char     *mangled,
               const Expected *expected)
{
  g_autoptr(GPtrArray) params = cugi_mangle_read_parameters (mangled);
  guint n = 0;

  if (params == NULL)
    g_error ("%s: not understood", mangled);
  while (expected[n].spelling != NULL)
    n++;
  if (params->len != n)
    g_error ("%s: %u parameters, expected %u", mangled, params->len, n);
  for (guint i = 0; i < n; i++)
    {
      const CugiMangledParam *param = g_ptr_array_index (params, i);

      if (g_strcmp0 (param->spelling, expected[i].spelling) != 0 || param->type != expected[i].type)
        g_error ("%s: parameter %u is %s (type %d), expected %s (type %d)", mangled, i,
                 param->spelling, param->type, expected[i].spelling, expected[i].type);
    }
}

/* Each name below is decoded by hand in the comment above it: S_ is the
 * first substitution candidate, S0_ the second, and so on. */
static void
test_hand_decoded (void)
{
  /* saxpy (float, const float *, float *, int): Kf is S_, PKf is S0_. */
  assert_params ("_Z5saxpyfPKfPfi", (const Expected[]) {
    { CUGI_PARAM_TYPE_FLOAT, "float" },
    { CUGI_PARAM_TYPE_POINTER, "const float *" },
    { CUGI_PARAM_TYPE_POINTER, "float *" },
    { CUGI_PARAM_TYPE_INT32, "int" },
    END });

  /* scale<float> (T *, T, int): "scale" is S_, T_ is S0_ (= float), PT_ is
   * S1_; the return type v comes first for a template; S0_ is float. */
  assert_params ("_Z5scaleIfEvPT_S0_i", (const Expected[]) {
    { CUGI_PARAM_TYPE_POINTER, "float *" },
    { CUGI_PARAM_TYPE_FLOAT, "float" },
    { CUGI_PARAM_TYPE_INT32, "int" },
    END });

  /* ns::k<256, float> (const T *, T *, P, size_t, long long, unsigned char):
   * ns is S_, ns::k S0_, T0_ (float) S1_, const float S2_, const float * S3_,
   * PS1_ is float *. */
  assert_params ("_ZN2ns1kILi256EfEEvPKT0_PS1_1Pmxh", (const Expected[]) {
    { CUGI_PARAM_TYPE_POINTER, "const float *" },
    { CUGI_PARAM_TYPE_POINTER, "float *" },
    { CUGI_PARAM_TYPE_OTHER, "P" },
    { CUGI_PARAM_TYPE_UINT64, "unsigned long" },
    { CUGI_PARAM_TYPE_INT64, "long long" },
    { CUGI_PARAM_TYPE_UINT8, "unsigned char" },
    END });

  /* var<int, float, double *> (Ts...): the pack T_ expands in place. */
  assert_params ("_Z3varIJifPdEEvDpT_", (const Expected[]) {
    { CUGI_PARAM_TYPE_INT32, "int" },
    { CUGI_PARAM_TYPE_FLOAT, "float" },
    { CUGI_PARAM_TYPE_POINTER, "double *" },
    END });

  /* f (ns::Vec<float>, ns::Vec<float>): ns S_, ns::Vec S0_, the whole type
   * S1_. */
  assert_params ("_Z1fN2ns3VecIfEES1_", (const Expected[]) {
    { CUGI_PARAM_TYPE_OTHER, "ns::Vec<float>" },
    { CUGI_PARAM_TYPE_OTHER, "ns::Vec<float>" },
    END });

  /* f (std::complex<float> *, short, unsigned short, signed char). */
  assert_params ("_Z1fPSt7complexIfEsta", (const Expected[]) {
    { CUGI_PARAM_TYPE_POINTER, "std::complex<float> *" },
    { CUGI_PARAM_TYPE_INT16, "short" },
    { CUGI_PARAM_TYPE_UINT16, "unsigned short" },
    { CUGI_PARAM_TYPE_INT8, "signed char" },
    END });

  /* f (const volatile int *, const int &, void (*)(int), Array<int, 4>,
   * a struct of the anonymous namespace, unsigned long long). */
  assert_params ("_Z1fPVKiRKiPFviE5ArrayIiLi4EEN12_GLOBAL__N_11SEy", (const Expected[]) {
    { CUGI_PARAM_TYPE_POINTER, "const volatile int *" },
    { CUGI_PARAM_TYPE_POINTER, "const int &" },
    { CUGI_PARAM_TYPE_POINTER, "void (int) *" },
    { CUGI_PARAM_TYPE_OTHER, "Array<int, 4>" },
    { CUGI_PARAM_TYPE_OTHER, "(anonymous namespace)::S" },
    { CUGI_PARAM_TYPE_UINT64, "unsigned long long" },
    END });

  /* f<true, 8u> (float * const *, bool): the literals spell as values. */
  assert_params ("_Z1fILb1ELj8EEvPKPfb", (const Expected[]) {
    { CUGI_PARAM_TYPE_POINTER, "float * const *" },
    { CUGI_PARAM_TYPE_BOOL, "bool" },
    END });

  /* A kernel without parameters. */
  assert_params ("_Z4tickv", (const Expected[]) { END });
}

/* What the reader does not understand, it refuses: the launch then checks
 * sizes only. It never guesses, and never reads past the end. */
static void
test_refused (void)
{
  const char *refused[] = {
    "saxpy",                   /* extern "C": no types in the name */
    "_Z",                      /* no name */
    "_Z3foo",                  /* no parameters */
    "_Z999foo",                /* a name longer than the string */
    "_Z5scaleIfEvPT_S9_i",     /* a substitution that does not exist */
    "_Z5scaleIfEvPT1_",        /* a template parameter that does not exist */
    "_Z1fIJifEEvDpPT_",        /* a pack expansion with a pattern */
    "_Z1fDv4_f",               /* vector types */
    "_Z1fPZ",                  /* an unknown type code */
    "_Z1fIiEvPT_E",            /* trailing garbage */
    "_Z1f3a\xff" "b",           /* an identifier that is not UTF-8, */
    "_Z1f3a\tb",                /* or holds a control character */
  };
  g_autoptr(GString) deep = g_string_new ("_Z1f");

  for (gsize i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(GPtrArray) params = cugi_mangle_read_parameters (refused[i]);
      if (params != NULL)
        g_error ("%s: read as %u parameters, expected a refusal", refused[i], params->len);
    }

  /* Deep nesting is refused before it can exhaust the stack. */
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, 'P');
  g_string_append_c (deep, 'i');
  g_assert_null (cugi_mangle_read_parameters (deep->str));
}

/* ---- names that would make the reader spell without bound -------------- */

/* Appends the seq-id of substitution candidate @index: S_, S0_, ..., S9_,
 * SA_, ..., SZ_, S10_, ... */
static void
append_substitution (GString *name,
                     guint    index)
{
  char digits[8];
  gsize n = 0;

  g_string_append_c (name, 'S');
  if (index > 0)
    {
      for (guint value = index - 1; n == 0 || value > 0; value /= 36)
        digits[n++] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[value % 36];
      while (n > 0)
        g_string_append_c (name, digits[--n]);
    }
  g_string_append_c (name, '_');
}

/* Checks what any name must give: the documented fallback (NULL), or
 * parameters whose spellings are within the caps. Returns the parameters. */
static GPtrArray *
read_bounded (const char *mangled)
{
  GPtrArray *params = cugi_mangle_read_parameters (mangled);
  gsize total = 0;

  for (guint i = 0; params != NULL && i < params->len; i++)
    {
      const CugiMangledParam *param = g_ptr_array_index (params, i);
      gsize length = strlen (param->spelling);

      g_assert_cmpuint (length, <=, CUGI_MANGLE_MAX_SPELLING);
      total += length;
    }
  g_assert_cmpuint (total, <=, CUGI_MANGLE_MAX_SPELLED);
  return params;
}

/* Reads @mangled, which takes one parameter: spelled @expected, or, where
 * that is NULL (too long to spell), refused. */
static void
assert_one_param (const char *mangled,
                  const char *expected)
{
  g_autoptr(GPtrArray) params = read_bounded (mangled);

  if (expected == NULL)
    {
      if (params != NULL)
        g_error ("%.60s...: read, expected a refusal", mangled);
      return;
    }
  if (params == NULL)
    g_error ("%s: not understood", mangled);
  g_assert_cmpuint (params->len, ==, 1);
  g_assert_cmpstr (((CugiMangledParam *) g_ptr_array_index (params, 0))->spelling, ==, expected);
}

/* The type D<levels> where D<0> is int and D<k> is P<D<k-1>, D<k-1>>, as
 * nested template typedefs give it: each level is written once and
 * substituted once, so the name grows by a few bytes a level while the
 * spelling doubles. "1P" is candidate S_, level k candidate k. */
static void
append_doubling_type (GString *name,
                      guint    levels)
{
  g_string_append (name, "1PI");
  for (guint k = 1; k < levels; k++)
    g_string_append (name, "S_I");
  g_string_append (name, "iiE");
  for (guint k = 2; k <= levels; k++)
    {
      append_substitution (name, k - 1);
      g_string_append_c (name, 'E');
    }
}

/* The spelling of the next level, or NULL past the cap. */
static char *
spell_next_level (const char *previous)
{
  if (strlen (previous) * 2 + strlen ("P<, >") > CUGI_MANGLE_MAX_SPELLING)
    return NULL;
  return g_strdup_printf ("P<%s, %s>", previous, previous);
}

static void
test_doubling_templates (void)
{
  g_autofree char *expected = g_strdup ("int");

  /* Level 30 is a name of 250 bytes spelling a type of 8 GiB. */
  for (guint levels = 1; levels <= 30; levels++)
    {
      g_autoptr(GString) name = g_string_new ("_Z1k");
      char *next = expected != NULL ? spell_next_level (expected) : NULL;

      g_free (expected);
      expected = next;
      append_doubling_type (name, levels);
      g_test_message ("%u levels: %s", levels, name->str);
      assert_one_param (name->str, expected);
    }
}

/* The same doubling without nesting: function type k takes function type
 * k - 1 twice, each a parameter of its own. */
static void
test_doubling_functions (void)
{
  g_autoptr(GString) name = g_string_new ("_Z1fFviiE");
  g_autoptr(GString) expected = g_string_new ("void (int, int)");
  gboolean readable = TRUE;

  for (guint k = 1; k <= 40; k++)
    {
      g_autoptr(GPtrArray) params = NULL;

      g_string_append (name, "Fv");
      append_substitution (name, k - 1);
      append_substitution (name, k - 1);
      g_string_append_c (name, 'E');
      if (readable && expected->len * 2 + strlen ("void (, )") <= CUGI_MANGLE_MAX_SPELLING)
        {
          g_autofree char *previous = g_strdup (expected->str);
          g_string_printf (expected, "void (%s, %s)", previous, previous);
        }
      else
        readable = FALSE;

      params = read_bounded (name->str);
      if (!readable)
        {
          g_assert_null (params);
          continue;
        }
      g_assert_nonnull (params);
      g_assert_cmpuint (params->len, ==, k + 1);
      g_assert_cmpstr (((CugiMangledParam *) g_ptr_array_index (params, k))->spelling, ==, expected->str);
    }
  g_assert_false (readable);
}

/* A nested name of 40000 components: each prefix is a substitution
 * candidate, so spelling every one is quadratic. As the kernel's name and as
 * a parameter's type. */
static void
test_long_nested_name (void)
{
  const struct { guint components; const char *spelling; } cases[] = {
    { 3, "a::a::a" },
    { 40000, NULL },  /* an 80 KB name */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GString) components = g_string_new (NULL);
      g_autofree char *as_kernel = NULL;
      g_autofree char *as_param = NULL;

      for (guint k = 0; k < cases[i].components; k++)
        g_string_append (components, "1a");
      as_kernel = g_strconcat ("_ZN", components->str, "Ei", NULL);
      as_param = g_strconcat ("_Z1fN", components->str, "E", NULL);

      assert_one_param (as_kernel, cases[i].spelling != NULL ? "int" : NULL);
      assert_one_param (as_param, cases[i].spelling);
    }
}

/* The spellings of all parameters together are bounded too: one long type
 * substituted many times. */
static void
test_many_long_params (void)
{
  const struct { guint copies; gboolean readable; } cases[] = {
    { 20, TRUE },     /* 20 spellings of 8 KiB */
    { 400, FALSE },   /* 400 of them: 3 MiB */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GString) name = g_string_new ("_Z1f");
      g_autoptr(GPtrArray) params = NULL;

      append_doubling_type (name, 10);
      for (guint k = 1; k < cases[i].copies; k++)
        append_substitution (name, 10);
      params = read_bounded (name->str);
      if (!cases[i].readable)
        {
          g_assert_null (params);
          continue;
        }
      g_assert_nonnull (params);
      g_assert_cmpuint (params->len, ==, cases[i].copies);
    }
}

/* Each pointer type is a substitution candidate: a name making more than
 * the cap is refused. */
static void
test_many_substitutions (void)
{
  const guint counts[] = { 100, CUGI_MANGLE_MAX_SUBSTITUTIONS + 1 };

  for (gsize i = 0; i < G_N_ELEMENTS (counts); i++)
    {
      g_autoptr(GString) name = g_string_new ("_Z1f");
      g_autoptr(GPtrArray) params = NULL;

      for (guint k = 0; k < counts[i]; k++)
        g_string_append (name, "Pi");
      params = read_bounded (name->str);
      if (counts[i] > CUGI_MANGLE_MAX_SUBSTITUTIONS)
        g_assert_null (params);
      else
        g_assert_cmpuint (params->len, ==, counts[i]);
    }
}

/* Deep but small: P<P<...<int>...>> 30 levels down, 30 pointers. */
static void
test_deep_small (void)
{
  g_autoptr(GString) nested = g_string_new ("_Z1k1PI");
  g_autoptr(GString) pointers = g_string_new ("_Z1f");
  g_autoptr(GString) expected = g_string_new ("int");

  for (guint k = 1; k < 30; k++)
    g_string_append (nested, "S_I");
  g_string_append (nested, "i");
  for (guint k = 0; k < 30; k++)
    {
      g_string_append_c (nested, 'E');
      g_string_prepend (expected, "P<");
      g_string_append_c (expected, '>');
    }
  assert_one_param (nested->str, expected->str);

  g_string_assign (expected, "int ");
  for (guint k = 0; k < 30; k++)
    {
      g_string_append_c (pointers, 'P');
      g_string_append_c (expected, '*');
    }
  g_string_append_c (pointers, 'i');
  assert_one_param (pointers->str, expected->str);
}

static void
test_sizes (void)
{
  g_assert_cmpuint (cugi_param_type_get_size (CUGI_PARAM_TYPE_POINTER), ==, sizeof (CUdeviceptr));
  g_assert_cmpuint (cugi_param_type_get_size (CUGI_PARAM_TYPE_INT32), ==, sizeof (gint32));
  g_assert_cmpuint (cugi_param_type_get_size (CUGI_PARAM_TYPE_UINT64), ==, sizeof (guint64));
  g_assert_cmpuint (cugi_param_type_get_size (CUGI_PARAM_TYPE_DOUBLE), ==, sizeof (gdouble));
  g_assert_cmpuint (cugi_param_type_get_size (CUGI_PARAM_TYPE_UINT16), ==, sizeof (guint16));
  g_assert_cmpuint (cugi_param_type_get_size (CUGI_PARAM_TYPE_BOOL), ==, 1);
  g_assert_cmpuint (cugi_param_type_get_size (CUGI_PARAM_TYPE_OTHER), ==, 0);
}

static const char nvrtc_source[] =
  "struct Params { float scale; int count; };\n"
  "namespace ops {\n"
  "template <typename T, int N>\n"
  "__global__ void tile (const T *in, T *out, Params p, size_t n) {}\n"
  "}\n"
  "template <typename T>\n"
  "__global__ void axpy (T a, const T *x, T *__restrict__ y, unsigned int n) {}\n"
  "template <typename... Ts>\n"
  "__global__ void pack (Ts... values) {}\n"
  "__global__ void plain (double *d, long long n, bool flag, unsigned short s, char c) {}\n"
  "extern \"C\" __global__ void plain_c (float *x) {}\n"
  "template <typename T, int N> struct Vec { T v[N]; };\n"
  "template <typename T> __global__ void pairs (Vec<T, 2> *a, Vec<T, 2> *b, Vec<T, 3> c) {}\n"
  "template <typename T, typename U>\n"
  "__global__ void mixed (T *t, U *u, T t2, U u2, const T *ct, const U *cu) {}\n"
  "template <typename T> __global__ void indirect (T **pp, T *const *cpp, volatile T *vp) {}\n"
  "__global__ void vectors (float2 f, const char *s, unsigned long long u, signed char c) {}\n";

/* @source compiled with NVRTC for @expressions (NULL-terminated), or NULL,
 * the test skipped, without NVRTC. */
static CugiProgram *
compile_with_names (const char        *source,
                    const char *const *expressions)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiProgram) program = NULL;
  const char *options[] = { "-arch=compute_90", NULL };

  if (!cugi_ensure_nvrtc (&error))
    {
      g_test_skip (error->message);
      return NULL;
    }
  program = cugi_program_new (source, "mangle.cu");
  for (gsize i = 0; expressions[i] != NULL; i++)
    {
      cugi_program_add_name_expression (program, expressions[i], &error);
      g_assert_no_error (error);
    }
  cugi_program_compile (program, options, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&program);
}

/* Names as NVRTC lowers them, read back. */
static void
test_nvrtc_names (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiProgram) program = NULL;
  g_autoptr(GPtrArray) expressions = g_ptr_array_new ();
  const struct
  {
    const char *expression;
    Expected    expected[7];
  } kernels[] = {
    { "ops::tile<float, 128>", {
      { CUGI_PARAM_TYPE_POINTER, "const float *" },
      { CUGI_PARAM_TYPE_POINTER, "float *" },
      { CUGI_PARAM_TYPE_OTHER, "Params" },
      { CUGI_PARAM_TYPE_UINT64, "unsigned long" },
      END } },
    { "axpy<double>", {
      { CUGI_PARAM_TYPE_DOUBLE, "double" },
      { CUGI_PARAM_TYPE_POINTER, "const double *" },
      { CUGI_PARAM_TYPE_POINTER, "double *" },
      { CUGI_PARAM_TYPE_UINT32, "unsigned int" },
      END } },
    { "pack<int, float, double *>", {
      { CUGI_PARAM_TYPE_INT32, "int" },
      { CUGI_PARAM_TYPE_FLOAT, "float" },
      { CUGI_PARAM_TYPE_POINTER, "double *" },
      END } },
    { "plain", {
      { CUGI_PARAM_TYPE_POINTER, "double *" },
      { CUGI_PARAM_TYPE_INT64, "long long" },
      { CUGI_PARAM_TYPE_BOOL, "bool" },
      { CUGI_PARAM_TYPE_UINT16, "unsigned short" },
      { CUGI_PARAM_TYPE_INT8, "char" },
      END } },
    { "pairs<int>", {
      { CUGI_PARAM_TYPE_POINTER, "Vec<int, 2> *" },
      { CUGI_PARAM_TYPE_POINTER, "Vec<int, 2> *" },
      { CUGI_PARAM_TYPE_OTHER, "Vec<int, 3>" },
      END } },
    { "mixed<float, double>", {
      { CUGI_PARAM_TYPE_POINTER, "float *" },
      { CUGI_PARAM_TYPE_POINTER, "double *" },
      { CUGI_PARAM_TYPE_FLOAT, "float" },
      { CUGI_PARAM_TYPE_DOUBLE, "double" },
      { CUGI_PARAM_TYPE_POINTER, "const float *" },
      { CUGI_PARAM_TYPE_POINTER, "const double *" },
      END } },
    { "indirect<unsigned int>", {
      { CUGI_PARAM_TYPE_POINTER, "unsigned int **" },
      { CUGI_PARAM_TYPE_POINTER, "unsigned int * const *" },
      { CUGI_PARAM_TYPE_POINTER, "volatile unsigned int *" },
      END } },
    { "vectors", {
      { CUGI_PARAM_TYPE_OTHER, "float2" },
      { CUGI_PARAM_TYPE_POINTER, "const char *" },
      { CUGI_PARAM_TYPE_UINT64, "unsigned long long" },
      { CUGI_PARAM_TYPE_INT8, "signed char" },
      END } },
  };
  const char *lowered;

  for (gsize i = 0; i < G_N_ELEMENTS (kernels); i++)
    g_ptr_array_add (expressions, (gpointer) kernels[i].expression);
  g_ptr_array_add (expressions, "plain_c");
  g_ptr_array_add (expressions, NULL);
  if ((program = compile_with_names (nvrtc_source, (const char *const *) expressions->pdata)) == NULL)
    return;

  for (gsize i = 0; i < G_N_ELEMENTS (kernels); i++)
    {
      lowered = cugi_program_get_lowered_name (program, kernels[i].expression, &error);
      g_assert_no_error (error);
      g_test_message ("%s is %s", kernels[i].expression, lowered);
      g_assert_true (g_str_has_prefix (lowered, "_Z"));
      assert_params (lowered, kernels[i].expected);
    }

  /* extern "C": the lowered name is the plain name, which tells nothing. */
  lowered = cugi_program_get_lowered_name (program, "plain_c", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (lowered, ==, "plain_c");
  g_assert_null (cugi_mangle_read_parameters (lowered));
}

/* The doubling from a few lines of CUDA: nested template typedefs give a
 * kernel a name of 250 bytes spelling a parameter of 512 MiB. The name is
 * refused, and the kernel's launches check sizes only. */
static const char doubling_source[] =
  "template <typename A, typename B> struct P {};\n"
  "template <int N> struct D { typedef P<typename D<N - 1>::T, typename D<N - 1>::T> T; };\n"
  "template <> struct D<0> { typedef int T; };\n"
  "__global__ void k (D<26>::T *p, float x) {}\n";

static void
test_nvrtc_doubling (void)
{
  const char *expressions[] = { "k", NULL };
  const gsize sizes[] = { sizeof (CUdeviceptr), sizeof (float) };
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiProgram) program = NULL;
  CugiKernelSignature *signature;
  const char *lowered;

  if ((program = compile_with_names (doubling_source, expressions)) == NULL)
    return;
  lowered = cugi_program_get_lowered_name (program, "k", &error);
  g_assert_no_error (error);
  g_test_message ("k is %s", lowered);
  g_assert_null (read_bounded (lowered));

  /* Sizes only: from the driver's sizes, the kernel's parameters are known
   * but not their types. */
  signature = cugi_kernel_signature_new ("k", lowered, sizes, G_N_ELEMENTS (sizes));
  g_assert_cmpint (signature->n_params, ==, 2);
  g_assert_false (signature->have_types);
  for (gint i = 0; i < signature->n_params; i++)
    {
      g_assert_cmpuint (signature->params[i].size, ==, sizes[i]);
      g_assert_null (signature->params[i].spelling);
    }
  cugi_kernel_signature_free (signature);

  /* Without sizes, nothing is known. */
  signature = cugi_kernel_signature_new ("k", lowered, NULL, -1);
  g_assert_cmpint (signature->n_params, ==, -1);
  cugi_kernel_signature_free (signature);
}

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);

  g_test_add_func ("/mangle/hand-decoded", test_hand_decoded);
  g_test_add_func ("/mangle/refused", test_refused);
  g_test_add_func ("/mangle/doubling-templates", test_doubling_templates);
  g_test_add_func ("/mangle/doubling-functions", test_doubling_functions);
  g_test_add_func ("/mangle/long-nested-name", test_long_nested_name);
  g_test_add_func ("/mangle/many-long-params", test_many_long_params);
  g_test_add_func ("/mangle/many-substitutions", test_many_substitutions);
  g_test_add_func ("/mangle/deep-small", test_deep_small);
  g_test_add_func ("/mangle/sizes", test_sizes);
  g_test_add_func ("/mangle/nvrtc-names", test_nvrtc_names);
  g_test_add_func ("/mangle/nvrtc-doubling", test_nvrtc_doubling);

  return g_test_run ();
}
