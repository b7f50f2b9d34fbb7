/* cugi-mangle.c: the parameter types of a kernel, read from its
 * Itanium-mangled name.
 *
 * A C++ kernel (not extern "C") carries its parameter types in its symbol,
 * and cuFuncGetParamInfo() only knows sizes; reading the types lets a launch
 * tell a float from an int and a pointer from a 64-bit integer. This is a
 * reader for the part of the Itanium C++ ABI mangling that kernel signatures
 * use: builtin types, pointers, cv-qualifiers, named and nested types,
 * templates with type and literal arguments, argument packs, and
 * substitutions. Anything else makes it give up (the caller then checks
 * sizes only), never guess.
 *
 * Substitutions let a name of a few hundred bytes spell a type of
 * gigabytes (each step naming the previous type twice), and every prefix of
 * a nested name is spelled on its own, so the work is bounded by what is
 * spelled: past the caps of cugi-private.h the reader gives up as well.
 */
#include "config.h"

#include <string.h>

#include "cugi-launch-private.h"

/* Deep enough for real signatures, shallow enough that a hostile name cannot
 * exhaust the stack. */
#define MAX_DEPTH 64

typedef struct _Type Type;

/* A type read from the name: what a launch checks against, a spelling for
 * messages, and for argument packs (J...E) the types they hold. */
struct _Type
{
  CugiParamType param_type;
  char         *spelling;
  GPtrArray    *pack;   /* (element-type Type) (nullable) */
};

typedef struct
{
  const char *p;
  guint       depth;
  gsize       spelled;        /* bytes of all the spellings made so far */
  GPtrArray  *substitutions;  /* (element-type Type): S_, S0_, ... */
  GPtrArray  *template_args;  /* (element-type Type): T_, T0_, ...; NULL for literals */
} Reader;

static void
type_clear (gpointer data)
{
  Type *type = data;

  g_free (type->spelling);
  g_clear_pointer (&type->pack, g_ptr_array_unref);
}

/* Counts @spelling, about to be kept, against the caps: FALSE when it is
 * too long, or when the name has spelled too much in all. Every spelling
 * kept is counted, with its NUL, so that the reader's memory and time are
 * bounded whatever the name. */
static gboolean
charge (Reader     *reader,
        const char *spelling)
{
  gsize length = strlen (spelling);

  if (length > CUGI_MANGLE_MAX_SPELLING || length >= CUGI_MANGLE_MAX_SPELLED - reader->spelled)
    return FALSE;
  reader->spelled += length + 1;
  return TRUE;
}

/* @spelling: (transfer full) (nullable): NULL (where spelling it went past
 * the cap) makes the result NULL, as does a spelling past the caps. */
static Type *
type_new (Reader        *reader,
          CugiParamType  param_type,
          char          *spelling)
{
  Type *type;

  if (spelling == NULL || !charge (reader, spelling))
    {
      g_free (spelling);
      return NULL;
    }
  type = g_rc_box_new0 (Type);
  type->param_type = param_type;
  type->spelling = spelling;
  return type;
}

static Type *
type_ref (Type *type)
{
  return g_rc_box_acquire (type);
}

static void
type_unref (gpointer type)
{
  g_rc_box_release_full (type, type_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Type, type_unref)

static GPtrArray *
type_array_new (void)
{
  return g_ptr_array_new_with_free_func (type_unref);
}

/* Adds @type (nullable) to the substitution table: FALSE when it is NULL or
 * the table is full. */
static gboolean
remember (Reader *reader,
          Type   *type)
{
  if (type == NULL || reader->substitutions->len >= CUGI_MANGLE_MAX_SUBSTITUTIONS)
    return FALSE;
  g_ptr_array_add (reader->substitutions, type_ref (type));
  return TRUE;
}

/* @type: (transfer full) (nullable): a new candidate, returned once added
 * to the substitution table; else dropped, and NULL. */
static Type *
remember_new (Reader *reader,
              Type   *type)
{
  g_autoptr(Type) owned = type;

  return remember (reader, owned) ? g_steal_pointer (&owned) : NULL;
}

static gboolean
consume (Reader     *reader,
         const char *prefix)
{
  gsize len = strlen (prefix);

  if (strncmp (reader->p, prefix, len) != 0)
    return FALSE;
  reader->p += len;
  return TRUE;
}

/* <number> ::= [n] <decimal> */
static gboolean
read_number (Reader *reader,
             gint64 *value)
{
  gboolean negative = consume (reader, "n");
  gint64 result = 0;

  if (!g_ascii_isdigit (*reader->p))
    return FALSE;
  while (g_ascii_isdigit (*reader->p))
    {
      if (result > G_MAXINT64 / 10 - 10)
        return FALSE;
      result = result * 10 + (*reader->p++ - '0');
    }
  *value = negative ? -result : result;
  return TRUE;
}

/* <seq-id> ::= base-36 digits (0-9, A-Z) followed by '_'; S_ is 0, S0_ is 1. */
static gboolean
read_seq_id (Reader *reader,
             guint  *index)
{
  guint value = 0;
  gboolean any = FALSE;

  while (g_ascii_isdigit (*reader->p) || g_ascii_isupper (*reader->p))
    {
      char c = *reader->p++;
      value = value * 36 + (g_ascii_isdigit (c) ? c - '0' : c - 'A' + 10);
      if (value > 1u << 20)
        return FALSE;
      any = TRUE;
    }
  if (!consume (reader, "_"))
    return FALSE;
  *index = any ? value + 1 : 0;
  return TRUE;
}

/* <source-name> ::= <length> <identifier>. The identifier ends up in
 * messages (GError messages are UTF-8): one that is not valid UTF-8, or that
 * holds control characters, is not a C++ identifier and not read. */
static char *
read_source_name (Reader *reader)
{
  gint64 length;

  /* strnlen(): a name of many identifiers is read in linear time. */
  if (!read_number (reader, &length) || length <= 0 || strnlen (reader->p, length) < (gsize) length ||
      !g_utf8_validate_len (reader->p, length, NULL))
    return NULL;
  for (gint64 i = 0; i < length; i++)
    if (g_ascii_iscntrl (reader->p[i]))
      return NULL;
  reader->p += length;
  /* The anonymous namespace's name is an implementation detail. */
  if (length >= 10 && strncmp (reader->p - length, "_GLOBAL__N", 10) == 0)
    return g_strdup ("(anonymous namespace)");
  return g_strndup (reader->p - length, length);
}

typedef struct
{
  char          code;
  CugiParamType param_type;
  const char   *spelling;
} Builtin;

static const Builtin builtins[] = {
  { 'v', CUGI_PARAM_TYPE_OTHER, "void" },
  { 'b', CUGI_PARAM_TYPE_BOOL, "bool" },
  { 'c', CUGI_PARAM_TYPE_INT8, "char" },  /* signed on every CUDA host */
  { 'a', CUGI_PARAM_TYPE_INT8, "signed char" },
  { 'h', CUGI_PARAM_TYPE_UINT8, "unsigned char" },
  { 's', CUGI_PARAM_TYPE_INT16, "short" },
  { 't', CUGI_PARAM_TYPE_UINT16, "unsigned short" },
  { 'i', CUGI_PARAM_TYPE_INT32, "int" },
  { 'j', CUGI_PARAM_TYPE_UINT32, "unsigned int" },
  { 'l', CUGI_PARAM_TYPE_INT64, "long" },  /* LP64 */
  { 'm', CUGI_PARAM_TYPE_UINT64, "unsigned long" },
  { 'x', CUGI_PARAM_TYPE_INT64, "long long" },
  { 'y', CUGI_PARAM_TYPE_UINT64, "unsigned long long" },
  { 'n', CUGI_PARAM_TYPE_OTHER, "__int128" },
  { 'o', CUGI_PARAM_TYPE_OTHER, "unsigned __int128" },
  { 'f', CUGI_PARAM_TYPE_FLOAT, "float" },
  { 'd', CUGI_PARAM_TYPE_DOUBLE, "double" },
  { 'e', CUGI_PARAM_TYPE_OTHER, "long double" },
  { 'g', CUGI_PARAM_TYPE_OTHER, "__float128" },
  { 'w', CUGI_PARAM_TYPE_OTHER, "wchar_t" },
};

/* Builtins spelled with a D prefix. */
static const struct
{
  const char   *code;
  const char   *spelling;
} d_builtins[] = {
  { "DF16_", "_Float16" },
  { "DF16b", "std::bfloat16_t" },
  { "Dh", "half" },
  { "Dn", "decltype(nullptr)" },
  { "Ds", "char16_t" },
  { "Di", "char32_t" },
  { "Du", "char8_t" },
};

static Type *read_type (Reader *reader);
static Type *read_template_arg (Reader *reader);

/* Appends @text to @spelling: FALSE once @spelling is past the cap, so that
 * building a spelling from many parts stops there. */
static gboolean
spell (GString    *spelling,
       const char *text)
{
  g_string_append (spelling, text);
  return spelling->len <= CUGI_MANGLE_MAX_SPELLING;
}

/* "<A, B>", or NULL past the cap. */
static char *
spell_args (GPtrArray *args)
{
  g_autoptr(GString) spelling = g_string_new ("<");

  for (guint i = 0; i < args->len; i++)
    {
      Type *arg = g_ptr_array_index (args, i);
      if ((i > 0 && !spell (spelling, ", ")) || !spell (spelling, arg->spelling))
        return NULL;
    }
  if (!spell (spelling, ">"))
    return NULL;
  return g_string_free (g_steal_pointer (&spelling), FALSE);
}

/* <template-arg> ::= <type> | L <type> <value> E | J <template-arg>* E */
static Type *
read_template_arg_unguarded (Reader *reader)
{
  if (consume (reader, "L"))
    {
      g_autoptr(Type) type = NULL;
      gint64 value;
      char *spelling;

      /* A pointer or reference to an entity (L_Z...E) is not needed for kernels. */
      if (*reader->p == '_' || (type = read_type (reader)) == NULL ||
          !read_number (reader, &value) || !consume (reader, "E"))
        return NULL;
      if (type->param_type == CUGI_PARAM_TYPE_BOOL)
        spelling = g_strdup (value ? "true" : "false");
      else if (type->param_type == CUGI_PARAM_TYPE_INT32)
        spelling = g_strdup_printf ("%" G_GINT64_FORMAT, value);
      else
        spelling = g_strdup_printf ("(%s)%" G_GINT64_FORMAT, type->spelling, value);
      /* A value, not a type: T_ naming it cannot be a parameter type. */
      return type_new (reader, CUGI_PARAM_TYPE_OTHER, spelling);
    }
  if (consume (reader, "J"))
    {
      g_autoptr(GPtrArray) pack = type_array_new ();
      Type *type;

      while (!consume (reader, "E"))
        {
          Type *arg = read_template_arg (reader);
          if (arg == NULL)
            return NULL;
          g_ptr_array_add (pack, arg);
        }
      if ((type = type_new (reader, CUGI_PARAM_TYPE_OTHER, spell_args (pack))) != NULL)
        type->pack = g_steal_pointer (&pack);
      return type;
    }
  return read_type (reader);
}

static Type *
read_template_arg (Reader *reader)
{
  Type *arg;

  if (++reader->depth > MAX_DEPTH)
    return NULL;
  arg = read_template_arg_unguarded (reader);
  reader->depth--;
  return arg;
}

/* <template-args> ::= I <template-arg>+ E */
static gboolean
read_template_args (Reader     *reader,
                    GPtrArray **args,
                    char      **spelling)
{
  g_autoptr(GPtrArray) result = type_array_new ();

  if (!consume (reader, "I"))
    return FALSE;
  while (!consume (reader, "E"))
    {
      Type *arg = read_template_arg (reader);
      if (arg == NULL)
        return FALSE;
      g_ptr_array_add (result, arg);
    }
  if ((*spelling = spell_args (result)) == NULL)
    return FALSE;
  *args = g_steal_pointer (&result);
  return TRUE;
}

/* <substitution> ::= S_ | S <seq-id> _ | Sa | Sb | Ss | Si | So | Sd
 * (not St, which the callers handle as the std:: prefix) */
static Type *
read_substitution (Reader *reader)
{
  static const struct { char code; const char *spelling; } abbreviations[] = {
    { 'a', "std::allocator" },
    { 'b', "std::basic_string" },
    { 's', "std::string" },
    { 'i', "std::istream" },
    { 'o', "std::ostream" },
    { 'd', "std::iostream" },
  };
  guint index;

  if (!consume (reader, "S"))
    return NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (abbreviations); i++)
    if (*reader->p == abbreviations[i].code)
      {
        reader->p++;
        return type_new (reader, CUGI_PARAM_TYPE_OTHER, g_strdup (abbreviations[i].spelling));
      }
  if (!read_seq_id (reader, &index) || index >= reader->substitutions->len)
    return NULL;
  return type_ref (g_ptr_array_index (reader->substitutions, index));
}

/* <template-param> ::= T_ | T <number> _ */
static Type *
read_template_param (Reader *reader)
{
  gint64 index = 0;

  if (!consume (reader, "T"))
    return NULL;
  if (!consume (reader, "_"))
    {
      if (!read_number (reader, &index) || index < 0 || !consume (reader, "_"))
        return NULL;
      index++;
    }
  if (reader->template_args == NULL || index >= reader->template_args->len)
    return NULL;
  return type_ref (g_ptr_array_index (reader->template_args, index));
}

/* <unqualified-name> ::= <source-name> [<abi-tag>*]; operators, constructors
 * and lambdas do not name kernels or the types they take. */
static char *
read_unqualified_name (Reader *reader)
{
  g_autofree char *name = read_source_name (reader);

  if (name == NULL)
    return NULL;
  /* ABI tags (B <source-name>) change the symbol, not the type. */
  while (consume (reader, "B"))
    {
      g_autofree char *tag = read_source_name (reader);
      if (tag == NULL)
        return NULL;
    }
  return g_steal_pointer (&name);
}

/* A named type or a kernel's name. Every prefix of a nested name, and a
 * template's name before its arguments, is a substitution candidate; the
 * whole name is too when it names a type, which read_type() adds.
 * @template_args receives the arguments of the last component, if any. */
static char *
read_name (Reader     *reader,
           GPtrArray **template_args)
{
  g_autoptr(GString) spelling = g_string_new (NULL);
  gboolean nested = consume (reader, "N");

  *template_args = NULL;
  if (nested)
    {
      /* cv- and ref-qualifiers of member functions: not for kernels. */
      while (*reader->p == 'K' || *reader->p == 'V' || *reader->p == 'r' ||
             *reader->p == 'R' || *reader->p == 'O')
        reader->p++;
    }
  else
    consume (reader, "L");  /* internal linkage */

  for (gboolean first = TRUE; ; first = FALSE)
    {
      g_autoptr(Type) component = NULL;

      if (first && consume (reader, "St"))
        {
          g_autofree char *name = read_unqualified_name (reader);
          if (name == NULL)
            return NULL;
          g_string_printf (spelling, "std::%s", name);
          component = type_new (reader, CUGI_PARAM_TYPE_OTHER, g_strdup (spelling->str));
          if (component == NULL ||
              (((nested && *reader->p != 'E') || *reader->p == 'I') && !remember (reader, component)))
            return NULL;
        }
      else if (first && *reader->p == 'S')
        {
          /* Already a candidate: not remembered again. */
          if ((component = read_substitution (reader)) == NULL)
            return NULL;
          g_string_assign (spelling, component->spelling);
        }
      else if (first && *reader->p == 'T')
        {
          if ((component = read_template_param (reader)) == NULL)
            return NULL;
          g_string_assign (spelling, component->spelling);
          if (!remember (reader, component))
            return NULL;
        }
      else
        {
          g_autofree char *name = read_unqualified_name (reader);
          if (name == NULL || (!first && !spell (spelling, "::")) || !spell (spelling, name))
            return NULL;
          component = type_new (reader, CUGI_PARAM_TYPE_OTHER, g_strdup (spelling->str));
          /* An unscoped name is a candidate only as a template's name. */
          if (component == NULL ||
              (((nested && *reader->p != 'E') || *reader->p == 'I') && !remember (reader, component)))
            return NULL;
        }

      if (*reader->p == 'I')
        {
          g_autofree char *args_spelling = NULL;

          g_clear_pointer (template_args, g_ptr_array_unref);
          if (!read_template_args (reader, template_args, &args_spelling) ||
              !spell (spelling, args_spelling))
            return NULL;
          if (nested && *reader->p != 'E')
            {
              g_autoptr(Type) with_args = type_new (reader, CUGI_PARAM_TYPE_OTHER, g_strdup (spelling->str));
              if (!remember (reader, with_args))
                return NULL;
            }
        }
      else if (!first)
        g_clear_pointer (template_args, g_ptr_array_unref);

      if (!nested || consume (reader, "E"))
        break;
      if (*reader->p == '\0')
        return NULL;
    }
  return g_string_free (g_steal_pointer (&spelling), FALSE);
}

static char *
spell_pointer_to (const char *pointee)
{
  return g_str_has_suffix (pointee, "*") ? g_strconcat (pointee, "*", NULL)
                                         : g_strconcat (pointee, " *", NULL);
}

/* <CV-qualifiers> <type>: the qualified type is one candidate. */
static Type *
read_qualified_type (Reader *reader)
{
  gboolean is_restrict = consume (reader, "r");
  gboolean is_volatile = consume (reader, "V");
  gboolean is_const = consume (reader, "K");
  g_autoptr(Type) inner = read_type (reader);
  g_autoptr(GString) spelling = NULL;

  if (inner == NULL)
    return NULL;
  if (g_str_has_suffix (inner->spelling, "*"))
    {
      spelling = g_string_new (inner->spelling);
      if (is_const)
        g_string_append (spelling, " const");
      if (is_volatile)
        g_string_append (spelling, " volatile");
      if (is_restrict)
        g_string_append (spelling, " __restrict__");
    }
  else
    {
      spelling = g_string_new (NULL);
      if (is_const)
        g_string_append (spelling, "const ");
      if (is_volatile)
        g_string_append (spelling, "volatile ");
      g_string_append (spelling, inner->spelling);
    }
  /* Qualifiers do not change how a value is passed. */
  return remember_new (reader, type_new (reader, inner->param_type,
                                         g_string_free (g_steal_pointer (&spelling), FALSE)));
}

/* F [Y] <return type> <parameter types> E */
static Type *
read_function_type (Reader *reader)
{
  g_autoptr(Type) result = NULL;
  g_autoptr(GString) spelling = NULL;

  consume (reader, "Y");
  if ((result = read_type (reader)) == NULL)
    return NULL;
  spelling = g_string_new (result->spelling);
  g_string_append (spelling, " (");
  for (gboolean first = TRUE; !consume (reader, "E"); first = FALSE)
    {
      g_autoptr(Type) param = read_type (reader);
      if (param == NULL || (!first && !spell (spelling, ", ")) || !spell (spelling, param->spelling))
        return NULL;
    }
  g_string_append (spelling, ")");
  return remember_new (reader, type_new (reader, CUGI_PARAM_TYPE_OTHER,
                                         g_string_free (g_steal_pointer (&spelling), FALSE)));
}

/* A class type a launch checks by name: cuda.h's tensor-map descriptor
 * (struct CUtensorMap_st), or a kernel's own declaration of it, which
 * NVRTC needs without cuda.h. */
static CugiParamType
named_type (const char *name)
{
  if (g_strcmp0 (name, "CUtensorMap") == 0 || g_strcmp0 (name, "CUtensorMap_st") == 0)
    return CUGI_PARAM_TYPE_TENSOR_MAP;
  return CUGI_PARAM_TYPE_OTHER;
}

static Type *
read_type_unguarded (Reader *reader)
{
  const char c = *reader->p;

  for (gsize i = 0; i < G_N_ELEMENTS (builtins); i++)
    if (c == builtins[i].code)
      {
        reader->p++;
        return type_new (reader, builtins[i].param_type, g_strdup (builtins[i].spelling));
      }
  for (gsize i = 0; i < G_N_ELEMENTS (d_builtins); i++)
    if (consume (reader, d_builtins[i].code))
      return type_new (reader, CUGI_PARAM_TYPE_OTHER, g_strdup (d_builtins[i].spelling));

  if (c == 'r' || c == 'V' || c == 'K')
    return read_qualified_type (reader);

  if (consume (reader, "P"))
    {
      g_autoptr(Type) pointee = read_type (reader);
      if (pointee == NULL)
        return NULL;
      return remember_new (reader, type_new (reader, CUGI_PARAM_TYPE_POINTER, spell_pointer_to (pointee->spelling)));
    }

  if (c == 'R' || c == 'O')
    {
      g_autoptr(Type) referee = NULL;
      reader->p++;
      if ((referee = read_type (reader)) == NULL)
        return NULL;
      /* A reference is passed as a pointer. */
      return remember_new (reader, type_new (reader, CUGI_PARAM_TYPE_POINTER,
                                             g_strconcat (referee->spelling, c == 'R' ? " &" : " &&", NULL)));
    }

  if (consume (reader, "A"))
    {
      gint64 length;
      g_autoptr(Type) element = NULL;
      if (!read_number (reader, &length) || !consume (reader, "_") ||
          (element = read_type (reader)) == NULL)
        return NULL;
      return remember_new (reader, type_new (reader, CUGI_PARAM_TYPE_OTHER,
                                             g_strdup_printf ("%s[%" G_GINT64_FORMAT "]", element->spelling, length)));
    }

  if (consume (reader, "F"))
    return read_function_type (reader);

  if (consume (reader, "Dp"))
    {
      /* A pack expansion: only a whole pack (Dp T_) is understood. */
      g_autoptr(Type) pattern = read_type (reader);
      if (pattern == NULL || pattern->pack == NULL)
        return NULL;
      return remember_new (reader, g_steal_pointer (&pattern));
    }

  if (consume (reader, "u"))
    return remember_new (reader, type_new (reader, CUGI_PARAM_TYPE_OTHER, read_source_name (reader)));

  if (c == 'T')
    {
      g_autoptr(Type) param = read_template_param (reader);
      if (!remember (reader, param))
        return NULL;
      if (*reader->p == 'I')
        return NULL;  /* template template parameters: not for kernels */
      return g_steal_pointer (&param);
    }

  if (c == 'S' && reader->p[1] != 't')
    {
      g_autoptr(Type) substituted = read_substitution (reader);
      g_autoptr(GPtrArray) args = NULL;
      g_autofree char *args_spelling = NULL;

      if (substituted == NULL || *reader->p != 'I')
        return g_steal_pointer (&substituted);
      /* A template named by a substitution, then its arguments. */
      if (!read_template_args (reader, &args, &args_spelling))
        return NULL;
      return remember_new (reader, type_new (reader, CUGI_PARAM_TYPE_OTHER,
                                             g_strconcat (substituted->spelling, args_spelling, NULL)));
    }

  if (c == 'N' || c == 'S' || g_ascii_isdigit (c))
    {
      g_autoptr(GPtrArray) args = NULL;
      char *name = read_name (reader, &args);
      return remember_new (reader, type_new (reader, named_type (name), name));
    }

  return NULL;
}

static Type *
read_type (Reader *reader)
{
  Type *type;

  if (++reader->depth > MAX_DEPTH)
    return NULL;
  type = read_type_unguarded (reader);
  reader->depth--;
  return type;
}

static void
mangled_param_free (gpointer data)
{
  CugiMangledParam *param = data;

  g_free (param->spelling);
  g_free (param);
}

/* FALSE when the copy of the spelling would pass the caps. */
static gboolean
add_param (Reader     *reader,
           GPtrArray  *params,
           const Type *type)
{
  CugiMangledParam *param;

  if (!charge (reader, type->spelling))
    return FALSE;
  param = g_new (CugiMangledParam, 1);
  param->type = type->param_type;
  param->spelling = g_strdup (type->spelling);
  g_ptr_array_add (params, param);
  return TRUE;
}

/* cugi_mangle_read_parameters():
 * @mangled_name: a symbol name
 *
 * Reads the parameter types of a function from its Itanium-mangled name.
 *
 * Returns: (transfer full) (element-type CugiMangledParam) (nullable): the
 *   parameters in order, or %NULL when @mangled_name is not a mangled
 *   function name (an extern "C" kernel), uses something this reader does
 *   not understand, or would spell more than the caps allow
 *   (%CUGI_MANGLE_MAX_SPELLING and the others in cugi-private.h)
 */
GPtrArray *
cugi_mangle_read_parameters (const char *mangled_name)
{
  g_autoptr(GPtrArray) substitutions = type_array_new ();
  g_autoptr(GPtrArray) function_template_args = NULL;
  g_autoptr(GPtrArray) params = g_ptr_array_new_with_free_func (mangled_param_free);
  g_autofree char *name = NULL;
  Reader reader = { mangled_name, 0, 0, substitutions, NULL };

  g_return_val_if_fail (mangled_name != NULL, NULL);

  if (!consume (&reader, "_Z"))
    return NULL;
  if ((name = read_name (&reader, &function_template_args)) == NULL)
    return NULL;
  reader.template_args = function_template_args;

  /* A function template's mangled name holds its return type first. */
  if (function_template_args != NULL)
    {
      g_autoptr(Type) return_type = read_type (&reader);
      if (return_type == NULL)
        return NULL;
    }

  /* No parameter list at all: not a function's name. */
  if (*reader.p == '\0')
    return NULL;
  if (strcmp (reader.p, "v") == 0)
    return g_steal_pointer (&params);

  while (*reader.p != '\0')
    {
      g_autoptr(Type) type = read_type (&reader);

      if (type == NULL)
        return NULL;
      if (type->pack != NULL)
        {
          for (guint i = 0; i < type->pack->len; i++)
            if (!add_param (&reader, params, g_ptr_array_index (type->pack, i)))
              return NULL;
        }
      else if (!add_param (&reader, params, type))
        return NULL;
    }
  return g_steal_pointer (&params);
}

/* cugi_param_type_get_size():
 * @type: a parameter type
 *
 * Returns: the size in bytes of a parameter of @type, or 0 when the type
 *   alone does not tell (%CUGI_PARAM_TYPE_OTHER)
 */
gsize
cugi_param_type_get_size (CugiParamType type)
{
  switch (type)
    {
    case CUGI_PARAM_TYPE_BOOL:
    case CUGI_PARAM_TYPE_INT8:
    case CUGI_PARAM_TYPE_UINT8:
      return 1;
    case CUGI_PARAM_TYPE_INT16:
    case CUGI_PARAM_TYPE_UINT16:
      return 2;
    case CUGI_PARAM_TYPE_INT32:
    case CUGI_PARAM_TYPE_UINT32:
    case CUGI_PARAM_TYPE_FLOAT:
      return 4;
    case CUGI_PARAM_TYPE_INT64:
    case CUGI_PARAM_TYPE_UINT64:
    case CUGI_PARAM_TYPE_DOUBLE:
    case CUGI_PARAM_TYPE_POINTER:
      return 8;
    case CUGI_PARAM_TYPE_TENSOR_MAP:
      return sizeof (CUtensorMap);
    case CUGI_PARAM_TYPE_OTHER:
    default:
      return 0;
    }
}
