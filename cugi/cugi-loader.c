/* cugi-loader.c: finds libcuda and libnvrtc at run time.
 *
 * The only file that knows CUDA symbol names. Driver entry points are resolved
 * through cuGetProcAddress, asking for the versions of the cuda.h cugi was
 * built against, so each pointer has the ABI of the type it is stored as.
 */
/* dladdr(), which tells the file a symbol was loaded from. */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gmodule.h>

#include "cugi-loader.h"
#include "cugi-driver-abi.h"
#include "cugi-error.h"
#include "cugi-private.h"

/* The entry points that cugi-loader.h declares itself (cudaGL.h and
 * cudaEGL.h need GL's and EGL's headers), at the versions of their only
 * ABI so far. */
#define CUGI_ABI_VERSION_cuGraphicsGLRegisterBuffer 3000
#define CUGI_ABI_VERSION_cuGraphicsGLRegisterImage 3000
#define CUGI_ABI_VERSION_cuGraphicsEGLRegisterImage 7000
#define CUGI_ABI_VERSION_cuGraphicsResourceGetMappedEglFrame 7000

/* cuGetProcAddress_v2 and the versioned entry points appeared in CUDA 12.0. */
#define CUGI_MIN_DRIVER_VERSION 12000

CugiDriverTable cugi_cuda;
CugiNvrtcTable cugi_nvrtc;
CugiNvmlTable cugi_nvml;
CugiNcclTable cugi_nccl;

typedef struct
{
  gsize        once;
  gboolean     loaded;
  GError      *error;   /* why loading failed, copied to every caller */
  GModule     *module;
  char        *path;
  int          version;
} CugiLibrary;

static CugiLibrary driver_library;
static CugiLibrary nvrtc_library;
static CugiLibrary nvml_library;
static CugiLibrary nccl_library;
/* cugi_loader_get_nvrtc_identity() of the NVRTC loaded, set with it. */
static char *loaded_nvrtc_identity;

static GModule *
open_first (const char * const *candidates,
            char              **opened_path,
            GString            *tried)
{
  for (gsize i = 0; candidates[i] != NULL; i++)
    {
      /* LOCAL: cugi must not put CUDA's symbols in front of the application's. */
      GModule *module = g_module_open (candidates[i], G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);

      if (module != NULL)
        {
          *opened_path = g_strdup (candidates[i]);
          return module;
        }
      if (tried->len > 0)
        g_string_append (tried, "; ");
      g_string_append (tried, g_module_error ());
    }
  return NULL;
}

/* Whether the library the environment variable @variable names, where it
 * is set, can be handed to GModule; else why not, added to @tried. A value
 * with a slash is a path, which must be a regular file: GModule would try
 * anything else again with “.so” appended, and report that name instead of
 * the one given. A bare name is the dynamic linker's to find. */
static gboolean
check_override (const char *variable,
                GString    *tried)
{
  const char *value = g_getenv (variable);
  g_autoptr(GError) error = NULL;

  if (value != NULL && *value == '\0')
    g_string_append_printf (tried, _("%s is set but empty"), variable);
  else if (value != NULL && strchr (value, '/') != NULL && !cugi_check_regular_file (value, &error))
    g_string_append (tried, error->message);
  else
    return TRUE;
  return FALSE;
}

static gboolean
load_driver_once (CugiLibrary *lib)
{
  const char *override = g_getenv ("CUGI_LIBCUDA");
  const char *default_candidates[] = { "libcuda.so.1", "libcuda.so", NULL };
  const char *override_candidates[] = { override, NULL };
  g_autoptr(GString) tried = g_string_new (NULL);
  __typeof__ (cuGetProcAddress) *get_proc_address = NULL;
  __typeof__ (cuInit) *init = NULL;
  __typeof__ (cuDriverGetVersion) *driver_get_version = NULL;
  CUresult result;

  if (check_override ("CUGI_LIBCUDA", tried))
    lib->module = open_first (override ? override_candidates : default_candidates, &lib->path, tried);
  if (lib->module == NULL)
    {
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("No NVIDIA driver found: the CUDA driver library could not be loaded (%s). "
                     "Install the NVIDIA driver, or point CUGI_LIBCUDA at libcuda.so.1."),
                   tried->str);
      return FALSE;
    }

  if (!g_module_symbol (lib->module, "cuGetProcAddress_v2", (gpointer *) &get_proc_address) ||
      !g_module_symbol (lib->module, "cuInit", (gpointer *) &init) ||
      !g_module_symbol (lib->module, "cuDriverGetVersion", (gpointer *) &driver_get_version))
    {
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("%s is not a usable CUDA driver: it lacks cuGetProcAddress_v2 (CUDA 12.0 or newer is needed). "
                     "Update the NVIDIA driver."),
                   lib->path);
      return FALSE;
    }

  result = init (0);
  if (result == CUDA_ERROR_STUB_LIBRARY)
    {
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("%s is the CUDA toolkit's stub library, not a driver: install the NVIDIA driver, "
                     "and keep the toolkit's stubs directory off the library path."),
                   lib->path);
      return FALSE;
    }
  if (result == CUDA_ERROR_NO_DEVICE)
    {
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("The NVIDIA driver (%s) is installed but reports no CUDA device: check that a GPU is present, "
                     "visible to this process (CUDA_VISIBLE_DEVICES) and not in use by another driver."),
                   lib->path);
      return FALSE;
    }
  if (result != CUDA_SUCCESS)
    {
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("The NVIDIA driver (%s) failed to initialize with error %d: check the driver "
                     "installation (nvidia-smi) and permissions on /dev/nvidia*."),
                   lib->path, (int) result);
      return FALSE;
    }

  driver_get_version (&lib->version);
  if (lib->version < CUGI_MIN_DRIVER_VERSION)
    {
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("The NVIDIA driver supports CUDA %d.%d but cugi needs CUDA %d.%d or newer: "
                     "update the driver."),
                   lib->version / 1000, (lib->version % 1000) / 10,
                   CUGI_MIN_DRIVER_VERSION / 1000, (CUGI_MIN_DRIVER_VERSION % 1000) / 10);
      return FALSE;
    }

  /* Each entry point is asked for at the version whose ABI cuda.h declares
   * (the newest can differ: cuCtxGetDevice 13000 takes two arguments). */
#define RESOLVE_DRIVER(entry_point, required)                                                  \
  {                                                                                            \
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;               \
    G_STATIC_ASSERT (CUGI_ABI_VERSION_##entry_point != 0);                                     \
    if (get_proc_address (#entry_point, (void **) &cugi_cuda.entry_point,                       \
                          CUGI_ABI_VERSION_##entry_point,                                      \
                          CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS ||             \
        status != CU_GET_PROC_ADDRESS_SUCCESS)                                                 \
      cugi_cuda.entry_point = NULL;                                                            \
    if (cugi_cuda.entry_point == NULL && (required))                                           \
      {                                                                                        \
        g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,                        \
                     _("The NVIDIA driver (%s) lacks %s: update the driver."),                 \
                     lib->path, #entry_point);                                                 \
        return FALSE;                                                                          \
      }                                                                                        \
  }
  CUGI_DRIVER_ENTRY_POINTS (RESOLVE_DRIVER)
#undef RESOLVE_DRIVER

  return TRUE;
}

/* The toolkit's library directories, in the order they are searched: those
 * of the toolkit the environment names, then of the usual install location.
 * NULL-terminated; free with g_strfreev(). */
static GStrv
toolkit_library_dirs (void)
{
  const char *roots[] = { g_getenv ("CUDA_HOME"), g_getenv ("CUDA_PATH"), "/usr/local/cuda" };
  GPtrArray *dirs = g_ptr_array_new ();

  for (gsize r = 0; r < G_N_ELEMENTS (roots); r++)
    if (roots[r] != NULL && *roots[r] != '\0')
      g_ptr_array_add (dirs, g_build_filename (roots[r], "lib64", NULL));
  g_ptr_array_add (dirs, NULL);
  return (GStrv) g_ptr_array_free (dirs, FALSE);
}

char *
cugi_loader_find_toolkit_file (const char *file_name)
{
  g_auto(GStrv) dirs = toolkit_library_dirs ();

  for (gsize i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (dirs[i], file_name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&path);
    }
  return NULL;
}

/* NVRTC is found by soname first, then in the toolkit the environment or the
 * usual install location names, as the runtime's own users expect. */
static GPtrArray *
nvrtc_candidates (void)
{
  GPtrArray *candidates = g_ptr_array_new_with_free_func (g_free);
  const char *sonames[] = { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11", "libnvrtc.so" };
  g_auto(GStrv) dirs = toolkit_library_dirs ();
  const char *override = g_getenv ("CUGI_LIBNVRTC");

  if (override != NULL)
    {
      g_ptr_array_add (candidates, g_strdup (override));
      g_ptr_array_add (candidates, NULL);
      return candidates;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (sonames); i++)
    g_ptr_array_add (candidates, g_strdup (sonames[i]));
  for (gsize d = 0; dirs[d] != NULL; d++)
    for (gsize i = 0; i < G_N_ELEMENTS (sonames); i++)
      g_ptr_array_add (candidates, g_build_filename (dirs[d], sonames[i], NULL));
  g_ptr_array_add (candidates, NULL);
  return candidates;
}

/* ---- NVRTC's identity, without loading it -------------------------------- */

/* What tells one NVRTC from another: the file the path resolves to, its
 * size and modification time (a reinstall in place changes them), and the
 * version its name carries (libnvrtc.so.13.0.88: "13.0.88"). NULL when
 * @path is not a regular file. */
static char *
identify_file (const char *path)
{
  g_autofree char *resolved = realpath (path, NULL);
  const char *version;
  GStatBuf info;

  if (resolved == NULL || g_stat (resolved, &info) != 0 || !S_ISREG (info.st_mode))
    return NULL;
  version = strstr (strrchr (resolved, '/'), ".so.");
  return g_strdup_printf ("%s\nsize %" G_GINT64_FORMAT "\nmodified %" G_GINT64_FORMAT ".%09ld\nversion %s",
                          resolved, (gint64) info.st_size, (gint64) info.st_mtim.tv_sec,
                          (long) info.st_mtim.tv_nsec, version != NULL ? version + strlen (".so.") : "");
}

/* The file the dynamic linker took, asked of one of its symbols; its path
 * and version when that cannot be told. */
static char *
identify_loaded_nvrtc (CugiLibrary *lib)
{
  Dl_info info = { 0 };
  char *identity = NULL;

  if (dladdr ((void *) cugi_nvrtc.nvrtcVersion, &info) != 0 && info.dli_fname != NULL)
    identity = identify_file (info.dli_fname);
  if (identity == NULL)
    identity = g_strdup_printf ("%s\nversion %d", lib->path, lib->version);
  return identity;
}

/* The directories of the ld.so.conf file at @conf_path's lines, and of the
 * files its `include` lines name, nested at most a few deep. */
static void
add_ld_so_conf_dirs (GPtrArray  *dirs,
                     const char *conf_path,
                     guint       depth)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents (conf_path, &text, NULL, NULL))
    return;
  lines = g_strsplit (text, "\n", -1);
  for (gsize i = 0; lines[i] != NULL; i++)
    {
      char *comment = strchr (lines[i], '#');
      const char *line;
      glob_t matches = { 0 };

      if (comment != NULL)
        *comment = '\0';
      line = g_strstrip (lines[i]);
      if (g_str_has_prefix (line, "include") && g_ascii_isspace (line[strlen ("include")]))
        {
          g_autofree char *pattern = g_strstrip (g_strdup (line + strlen ("include")));

          if (depth < 4 && glob (pattern, 0, NULL, &matches) == 0)
            for (gsize m = 0; m < matches.gl_pathc; m++)
              add_ld_so_conf_dirs (dirs, matches.gl_pathv[m], depth + 1);
          globfree (&matches);
        }
      else if (g_path_is_absolute (line))
        g_ptr_array_add (dirs, g_strdup (line));
    }
}

/* Where the dynamic linker looks for a bare name, in its order:
 * LD_LIBRARY_PATH, the directories its cache is built from, the defaults. */
static GPtrArray *
library_search_dirs (void)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  const char *defaults[] = { "/lib64", "/usr/lib64", "/lib", "/usr/lib" };
  const char *ld_library_path = g_getenv ("LD_LIBRARY_PATH");

  if (ld_library_path != NULL)
    {
      g_auto(GStrv) listed = g_strsplit_set (ld_library_path, ":;", -1);

      for (gsize i = 0; listed[i] != NULL; i++)
        if (*listed[i] != '\0')
          g_ptr_array_add (dirs, g_strdup (listed[i]));
    }
  add_ld_so_conf_dirs (dirs, "/etc/ld.so.conf", 0);
  for (gsize i = 0; i < G_N_ELEMENTS (defaults); i++)
    g_ptr_array_add (dirs, g_strdup (defaults[i]));
  return dirs;
}

/* The identity of the first candidate the dynamic linker would find: a name
 * with a slash is a path, a bare one is searched for. */
static char *
find_nvrtc_identity (void)
{
  g_autoptr(GPtrArray) candidates = nvrtc_candidates ();
  g_autoptr(GPtrArray) dirs = NULL;

  for (guint i = 0; i < candidates->len && candidates->pdata[i] != NULL; i++)
    {
      const char *candidate = candidates->pdata[i];
      char *identity = NULL;

      if (strchr (candidate, '/') != NULL)
        identity = identify_file (candidate);
      else
        {
          if (dirs == NULL)
            dirs = library_search_dirs ();
          for (guint d = 0; identity == NULL && d < dirs->len; d++)
            {
              g_autofree char *path = g_build_filename (dirs->pdata[d], candidate, NULL);

              identity = identify_file (path);
            }
        }
      if (identity != NULL)
        return identity;
    }
  return NULL;
}

static gboolean
load_nvrtc_once (CugiLibrary *lib)
{
  g_autoptr(GPtrArray) candidates = nvrtc_candidates ();
  g_autoptr(GString) tried = g_string_new (NULL);
  int major = 0, minor = 0;

  if (check_override ("CUGI_LIBNVRTC", tried))
    lib->module = open_first ((const char * const *) candidates->pdata, &lib->path, tried);
  if (lib->module == NULL)
    {
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("NVRTC, the CUDA runtime compiler, could not be loaded (%s). Install the CUDA toolkit "
                     "or its NVRTC package, or point CUGI_LIBNVRTC at libnvrtc.so."),
                   tried->str);
      return FALSE;
    }

#define RESOLVE_NVRTC(entry_point, required)                                                    \
  if (!g_module_symbol (lib->module, #entry_point, (gpointer *) &cugi_nvrtc.entry_point) &&     \
      (required))                                                                               \
    {                                                                                           \
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,                           \
                   _("%s is not a usable NVRTC: it lacks %s."), lib->path, #entry_point);       \
      return FALSE;                                                                             \
    }
  CUGI_NVRTC_ENTRY_POINTS (RESOLVE_NVRTC)
#undef RESOLVE_NVRTC

  cugi_nvrtc.nvrtcVersion (&major, &minor);
  lib->version = major * 1000 + minor * 10;
  /* Read without a lock by cugi_loader_get_nvrtc_identity(). */
  g_atomic_pointer_set (&loaded_nvrtc_identity, identify_loaded_nvrtc (lib));
  return TRUE;
}

static gboolean
load_nvml_once (CugiLibrary *lib)
{
  const char *override = g_getenv ("CUGI_LIBNVML");
  const char *candidates[] = { override != NULL ? override : "libnvidia-ml.so.1", NULL };
  g_autoptr(GString) tried = g_string_new (NULL);
  nvmlReturn_t result;

  if (check_override ("CUGI_LIBNVML", tried))
    lib->module = open_first (candidates, &lib->path, tried);
  if (lib->module == NULL)
    {
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("NVML, the NVIDIA management library that device telemetry needs, could not be "
                     "loaded (%s). It comes with the NVIDIA driver as libnvidia-ml.so.1: install the "
                     "driver's NVML package, or point CUGI_LIBNVML at libnvidia-ml.so.1."),
                   tried->str);
      return FALSE;
    }

#define RESOLVE_NVML(entry_point, required)                                                     \
  if (!g_module_symbol (lib->module, #entry_point, (gpointer *) &cugi_nvml.entry_point) &&      \
      (required))                                                                               \
    {                                                                                           \
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,                           \
                   _("%s is not a usable NVML: it lacks %s. Update the NVIDIA driver."),        \
                   lib->path, #entry_point);                                                    \
      return FALSE;                                                                             \
    }
  CUGI_NVML_ENTRY_POINTS (RESOLVE_NVML)
#undef RESOLVE_NVML

  result = cugi_nvml.nvmlInit_v2 ();
  if (result != NVML_SUCCESS)
    {
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("NVML (%s) failed to initialize: %s (%d). Check the NVIDIA driver with nvidia-smi."),
                   lib->path, cugi_nvml.nvmlErrorString (result), (int) result);
      return FALSE;
    }
  return TRUE;
}

/* NCCL_VERSION (2, 18, 0): the config layout of cugi-nccl.h. */
#define CUGI_MIN_NCCL_VERSION 21800

static gboolean
load_nccl_once (CugiLibrary *lib)
{
  const char *override = g_getenv ("CUGI_LIBNCCL");
  const char *candidates[] = { override != NULL ? override : "libnccl.so.2", NULL };
  g_autoptr(GString) tried = g_string_new (NULL);

  if (check_override ("CUGI_LIBNCCL", tried))
    lib->module = open_first (candidates, &lib->path, tried);
  if (lib->module == NULL)
    {
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("NCCL, the NVIDIA collective communications library that communicators need, could "
                     "not be loaded (%s). Install NCCL (libnccl2), or point CUGI_LIBNCCL at libnccl.so.2."),
                   tried->str);
      return FALSE;
    }

#define RESOLVE_NCCL(entry_point, required)                                                     \
  if (!g_module_symbol (lib->module, #entry_point, (gpointer *) &cugi_nccl.entry_point) &&      \
      (required))                                                                               \
    {                                                                                           \
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,                           \
                   _("%s is not a usable NCCL: it lacks %s. Install NCCL 2.18 or later."),      \
                   lib->path, #entry_point);                                                    \
      return FALSE;                                                                             \
    }
  CUGI_NCCL_ENTRY_POINTS (RESOLVE_NCCL)
#undef RESOLVE_NCCL

  if (cugi_nccl.ncclGetVersion (&lib->version) != ncclSuccess || lib->version < CUGI_MIN_NCCL_VERSION)
    {
      g_set_error (&lib->error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE,
                   _("%s is NCCL %d.%d; cugi needs NCCL 2.18 or later."),
                   lib->path, lib->version / 10000, lib->version / 100 % 100);
      return FALSE;
    }
  /* What NCCL's header gives from 2.28 on is used only where the library
   * says it is that new, so that the version alone decides which way
   * cugi takes. */
  if (lib->version < CUGI_NCCL_VERSION_ALL_TO_ALL)
    {
      cugi_nccl.ncclAlltoAll = NULL;
      cugi_nccl.ncclGather = NULL;
      cugi_nccl.ncclScatter = NULL;
    }
  return TRUE;
}

static gboolean
load_library (CugiLibrary *lib,
              gboolean   (*load_once) (CugiLibrary *),
              GError     **error)
{
  if (g_once_init_enter (&lib->once))
    {
      lib->loaded = load_once (lib);
      if (!lib->loaded && lib->module != NULL)
        {
          g_module_close (lib->module);
          lib->module = NULL;
        }
      g_once_init_leave (&lib->once, 1);
    }
  if (!lib->loaded)
    {
      if (error != NULL)
        *error = g_error_copy (lib->error);
      return FALSE;
    }
  return TRUE;
}

/**
 * cugi_loader_load_driver:
 *
 * Loads and initializes the CUDA driver once per process; later calls return
 * the first outcome (a failure too: the driver cannot appear mid-process).
 */
gboolean
cugi_loader_load_driver (GError **error)
{
  return load_library (&driver_library, load_driver_once, error);
}

gboolean
cugi_loader_load_nvrtc (GError **error)
{
  return load_library (&nvrtc_library, load_nvrtc_once, error);
}

/* NVML is never shut down: the telemetry of devices that live as long as the
 * process may be asked for at any time, as the driver is never unloaded. */
gboolean
cugi_loader_load_nvml (GError **error)
{
  return load_library (&nvml_library, load_nvml_once, error);
}

/* NCCL, once loaded, stays: communicators are made until the process ends. */
gboolean
cugi_loader_load_nccl (GError **error)
{
  return load_library (&nccl_library, load_nccl_once, error);
}

/**
 * cugi_loader_get_nvrtc_identity:
 *
 * What tells the NVRTC cugi compiles with from any other: once loaded, the
 * file the dynamic linker took; before, the file it would take, found as it
 * would without loading it (100 MB, tens of milliseconds), so that a cached
 * compile needs no NVRTC. When no file is found the library is loaded,
 * failing as cugi_loader_load_nvrtc() does. The first identity found is kept
 * for the process until NVRTC is loaded.
 */
const char *
cugi_loader_get_nvrtc_identity (GError **error)
{
  static gsize searched;
  static char *found_identity;
  const char *loaded_identity = g_atomic_pointer_get (&loaded_nvrtc_identity);

  if (loaded_identity != NULL)
    return loaded_identity;
  if (g_once_init_enter (&searched))
    {
      found_identity = find_nvrtc_identity ();
      g_once_init_leave (&searched, 1);
    }
  if (found_identity != NULL)
    return found_identity;
  if (!cugi_loader_load_nvrtc (error))
    return NULL;
  return loaded_nvrtc_identity;
}

int
cugi_loader_get_driver_version (void)
{
  return driver_library.loaded ? driver_library.version : 0;
}

int
cugi_loader_get_nvrtc_version (void)
{
  return nvrtc_library.loaded ? nvrtc_library.version : 0;
}

const char *
cugi_loader_get_driver_path (void)
{
  return driver_library.loaded ? driver_library.path : NULL;
}

const char *
cugi_loader_get_nvrtc_path (void)
{
  return nvrtc_library.loaded ? nvrtc_library.path : NULL;
}

const char *
cugi_loader_get_nvml_path (void)
{
  return nvml_library.loaded ? nvml_library.path : NULL;
}

const char *
cugi_loader_get_nccl_path (void)
{
  return nccl_library.loaded ? nccl_library.path : NULL;
}

int
cugi_loader_get_nccl_version (void)
{
  return nccl_library.loaded ? nccl_library.version : 0;
}

gboolean
cugi_loader_require (gboolean     present,
                     const char  *entry_point,
                     GError     **error)
{
  if (present)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED,
               _("The NVIDIA driver (%s) lacks %s: update the driver."),
               driver_library.path, entry_point);
  return FALSE;
}

const char *
cugi_loader_result_name (CUresult result)
{
  const char *name = NULL;

  if (!driver_library.loaded || cugi_cuda.cuGetErrorName (result, &name) != CUDA_SUCCESS)
    return NULL;
  return name;
}

const char *
cugi_loader_result_string (CUresult result)
{
  const char *text = NULL;

  if (!driver_library.loaded || cugi_cuda.cuGetErrorString (result, &text) != CUDA_SUCCESS)
    return NULL;
  return text;
}
