/* cugi-init.c: library initialization and versions */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-private.h"

/* Whether the application bound cugi's text domain already, e.g. to a
 * locale tree of its own before loading cugi through GObject introspection.
 * bindtextdomain() without a directory returns the domain's directory: for a
 * domain nobody bound, the C library's default (glibc) or NULL (musl). */
static gboolean
text_domain_bound_elsewhere (void)
{
  const char *current = bindtextdomain (GETTEXT_PACKAGE, NULL);
  const char *unbound = bindtextdomain (GETTEXT_PACKAGE "-never-bound", NULL);

  return current != NULL && g_strcmp0 (current, unbound) != 0;
}

/* cugi's messages come from LOCALEDIR unless the application has bound the
 * domain itself. Runs when the library is loaded, so that even the first
 * message (a bad alias needs no driver) is looked up there; a later
 * bindtextdomain() by the application wins, as with any GNOME library. */
__attribute__ ((constructor)) static void
bind_translations (void)
{
  if (!text_domain_bound_elsewhere ())
    bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
}

gboolean
cugi_ensure_driver (GError **error)
{
  return cugi_loader_load_driver (error);
}

gboolean
cugi_ensure_nvrtc (GError **error)
{
  return cugi_loader_load_nvrtc (error);
}

/**
 * cugi_init:
 * @error: return location for a #GError
 *
 * Loads the CUDA driver (`libcuda.so.1`, or the file `CUGI_LIBCUDA` names)
 * and initializes it. Calling it is optional: every constructor does it
 * first. It is cheap after the first call, and a failure is reported the
 * same way each time.
 *
 * Without a usable driver this fails with %CUGI_ERROR_NOT_AVAILABLE, whose
 * message says whether the driver is missing, is the toolkit's stub library,
 * is too old, or sees no device, and what to do about it.
 *
 * Returns: %TRUE if the CUDA driver is ready
 *
 * Since: 0.1
 */
gboolean
cugi_init (GError **error)
{
  return cugi_ensure_driver (error);
}

/**
 * cugi_is_available:
 *
 * Whether a CUDA driver and at least one device can be used. Never fails:
 * call cugi_init() to learn why not.
 *
 * Returns: %TRUE if cugi can use a GPU
 *
 * Since: 0.1
 */
gboolean
cugi_is_available (void)
{
  return cugi_ensure_driver (NULL);
}

/**
 * cugi_get_driver_version:
 * @error: return location for a #GError
 *
 * The CUDA version the driver supports, as 1000 × major + 10 × minor
 * (13000 for CUDA 13.0), like `cuDriverGetVersion()`.
 *
 * Returns: the driver's CUDA version, or 0 with @error set
 *
 * Since: 0.1
 */
gint
cugi_get_driver_version (GError **error)
{
  if (!cugi_ensure_driver (error))
    return 0;
  return cugi_loader_get_driver_version ();
}

/**
 * cugi_get_nvrtc_version:
 * @error: return location for a #GError
 *
 * The version of the NVRTC library cugi compiles with, as 1000 × major +
 * 10 × minor. NVRTC is found independently of the driver, so this works on a
 * machine without a GPU.
 *
 * Returns: NVRTC's version, or 0 with @error set
 *
 * Since: 0.1
 */
gint
cugi_get_nvrtc_version (GError **error)
{
  if (!cugi_ensure_nvrtc (error))
    return 0;
  return cugi_loader_get_nvrtc_version ();
}

/**
 * cugi_get_version:
 *
 * Returns: cugi's own version, e.g. "0.1.0"
 *
 * Since: 0.1
 */
const gchar *
cugi_get_version (void)
{
  return CUGI_VERSION;
}

/**
 * cugi_get_major_version:
 *
 * The major version of the library the program runs with, which may differ
 * from %CUGI_MAJOR_VERSION, that of the headers it was compiled against.
 *
 * Returns: the major version, e.g. 1 in 1.2.3
 *
 * Since: 0.1
 */
guint
cugi_get_major_version (void)
{
  return CUGI_MAJOR_VERSION;
}

/**
 * cugi_get_minor_version:
 *
 * The minor version of the library the program runs with, which may differ
 * from %CUGI_MINOR_VERSION, that of the headers it was compiled against.
 *
 * Returns: the minor version, e.g. 2 in 1.2.3
 *
 * Since: 0.1
 */
guint
cugi_get_minor_version (void)
{
  return CUGI_MINOR_VERSION;
}

/**
 * cugi_get_micro_version:
 *
 * The micro version of the library the program runs with, which may differ
 * from %CUGI_MICRO_VERSION, that of the headers it was compiled against.
 *
 * Returns: the micro version, e.g. 3 in 1.2.3
 *
 * Since: 0.1
 */
guint
cugi_get_micro_version (void)
{
  return CUGI_MICRO_VERSION;
}

/**
 * cugi_check_version:
 * @required_major: the major version required
 * @required_minor: the minor version required
 * @required_micro: the micro version required
 *
 * Checks that the library the program runs with provides the API of version
 * @required_major.@required_minor.@required_micro: it has the same major
 * version (a new major version breaks the API) and is that version or a
 * later one. Pass %CUGI_MAJOR_VERSION, %CUGI_MINOR_VERSION and
 * %CUGI_MICRO_VERSION to check against the headers the program was compiled
 * with; %CUGI_CHECK_VERSION makes the check at compile time.
 *
 * Returns: (nullable): %NULL if the library is compatible, else a message
 *   saying why not, owned by cugi
 *
 * Since: 0.1
 */
const gchar *
cugi_check_version (guint required_major,
                    guint required_minor,
                    guint required_micro)
{
  if (required_major != CUGI_MAJOR_VERSION)
    return required_major > CUGI_MAJOR_VERSION
      ? _("cugi is too old: the major version is smaller than the one required")
      : _("cugi is too new: the major version is larger than the one required");
  if (required_minor > CUGI_MINOR_VERSION)
    return _("cugi is too old: the minor version is smaller than the one required");
  if (required_minor == CUGI_MINOR_VERSION && required_micro > CUGI_MICRO_VERSION)
    return _("cugi is too old: the micro version is smaller than the one required");
  return NULL;
}
