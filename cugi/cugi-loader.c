/* cugi-loader.c: finds libcuda and libnvrtc at run time.
 *
 * The only file that knows CUDA symbol names. Driver entry points are resolved
 * through cuGetProcAddress, asking for the versions of the cuda.h cugi was
 * built against, so each pointer has the ABI of the type it is stored as.
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <gmodule.h>

#include "cugi-loader.h"
#include "cugi-driver-abi.h"
#include "cugi-error.h"

/* cuGetProcAddress_v2 and the versioned entry points appeared in CUDA 12.0. */
#define CUGI_MIN_DRIVER_VERSION 12000

CugiDriverTable cugi_cuda;
CugiNvrtcTable cugi_nvrtc;

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

/* NVRTC is found by soname first, then in the toolkit the environment or the
 * usual install location names, as the runtime's own users expect. */
static GPtrArray *
nvrtc_candidates (void)
{
  GPtrArray *candidates = g_ptr_array_new_with_free_func (g_free);
  const char *sonames[] = { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11", "libnvrtc.so" };
  const char *roots[] = { g_getenv ("CUDA_HOME"), g_getenv ("CUDA_PATH"), "/usr/local/cuda" };
  const char *override = g_getenv ("CUGI_LIBNVRTC");

  if (override != NULL)
    {
      g_ptr_array_add (candidates, g_strdup (override));
      g_ptr_array_add (candidates, NULL);
      return candidates;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (sonames); i++)
    g_ptr_array_add (candidates, g_strdup (sonames[i]));
  for (gsize r = 0; r < G_N_ELEMENTS (roots); r++)
    {
      if (roots[r] == NULL || *roots[r] == '\0')
        continue;
      for (gsize i = 0; i < G_N_ELEMENTS (sonames); i++)
        g_ptr_array_add (candidates, g_build_filename (roots[r], "lib64", sonames[i], NULL));
    }
  g_ptr_array_add (candidates, NULL);
  return candidates;
}

static gboolean
load_nvrtc_once (CugiLibrary *lib)
{
  g_autoptr(GPtrArray) candidates = nvrtc_candidates ();
  g_autoptr(GString) tried = g_string_new (NULL);
  int major = 0, minor = 0;

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
