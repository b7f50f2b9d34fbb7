/* test-mangle.c: parameter types read from Itanium-mangled kernel names,
 * without a GPU: names worked out by hand, and names NVRTC produces. */
#include "config.h"

#include "cugi-private.h"
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

/* Names as NVRTC lowers them, read back. */
static void
test_nvrtc_names (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiProgram) program = NULL;
  const char *options[] = { "-arch=compute_90", NULL };
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

  if (!cugi_ensure_nvrtc (&error))
    {
      g_test_skip (error->message);
      return;
    }
  program = cugi_program_new (nvrtc_source, "mangle.cu");
  for (gsize i = 0; i < G_N_ELEMENTS (kernels); i++)
    {
      cugi_program_add_name_expression (program, kernels[i].expression, &error);
      g_assert_no_error (error);
    }
  cugi_program_add_name_expression (program, "plain_c", &error);
  g_assert_no_error (error);
  cugi_program_compile (program, options, &error);
  g_assert_no_error (error);

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

int
main (int   argc,
      char *argv[])
{
  cugi_test_init (&argc, &argv);

  g_test_add_func ("/mangle/hand-decoded", test_hand_decoded);
  g_test_add_func ("/mangle/refused", test_refused);
  g_test_add_func ("/mangle/sizes", test_sizes);
  g_test_add_func ("/mangle/nvrtc-names", test_nvrtc_names);

  return g_test_run ();
}
