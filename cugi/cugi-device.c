/* cugi-device.c: CUDA devices, one object per ordinal for the process */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"

/**
 * CugiDevice:
 *
 * A CUDA device (a GPU) as the driver numbers it, `cuda:0`, `cuda:1`, ...
 *
 * There is one #CugiDevice per ordinal for the life of the process: get it
 * with cugi_device_get(), cugi_device_get_default(),
 * cugi_device_get_by_alias() or cugi_device_list(). Its properties are read
 * once, when the object is made, and never change; cugi_device_get_attribute()
 * asks the driver for any `CUdevice_attribute`.
 *
 * Work on a device happens in a #CugiContext; cugi uses the device's primary
 * context (cugi_device_get_primary_context()) unless told otherwise, as the
 * CUDA runtime, PyTorch and CuPy do, so memory can be shared with them.
 *
 * The devices are those the driver shows this process: `CUDA_VISIBLE_DEVICES`
 * hides and renumbers them.
 *
 * Since: 0.1
 */

typedef struct
{
  const char        *property;
  CUdevice_attribute attribute;
  gboolean           is_boolean;
} AttributeProperty;

/* Properties read with cuDeviceGetAttribute, in the order of their ids. */
static const AttributeProperty attribute_properties[] = {
  /**
   * CugiDevice:compute-capability-major:
   *
   * The major number of the device's compute capability: 9 for an H100
   * (`sm_90`).
   *
   * Since: 0.1
   */
  { "compute-capability-major", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, FALSE },
  /**
   * CugiDevice:compute-capability-minor:
   *
   * The minor number of the device's compute capability: 0 for an H100
   * (`sm_90`).
   *
   * Since: 0.1
   */
  { "compute-capability-minor", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, FALSE },
  /**
   * CugiDevice:multiprocessor-count:
   *
   * The number of streaming multiprocessors (SMs).
   *
   * Since: 0.1
   */
  { "multiprocessor-count", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, FALSE },
  /**
   * CugiDevice:warp-size:
   *
   * The number of threads in a warp (32 on every NVIDIA GPU so far).
   *
   * Since: 0.1
   */
  { "warp-size", CU_DEVICE_ATTRIBUTE_WARP_SIZE, FALSE },
  /**
   * CugiDevice:max-threads-per-block:
   *
   * The most threads a block of a launch may have.
   *
   * Since: 0.1
   */
  { "max-threads-per-block", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, FALSE },
  /**
   * CugiDevice:max-threads-per-multiprocessor:
   *
   * The most threads resident on one multiprocessor at a time.
   *
   * Since: 0.1
   */
  { "max-threads-per-multiprocessor", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, FALSE },
  /**
   * CugiDevice:max-shared-memory-per-block:
   *
   * The shared memory in bytes a block may use without opting in.
   *
   * Since: 0.1
   */
  { "max-shared-memory-per-block", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, FALSE },
  /**
   * CugiDevice:max-shared-memory-per-block-optin:
   *
   * The shared memory in bytes a block may use when its kernel opts in to
   * more than #CugiDevice:max-shared-memory-per-block.
   *
   * Since: 0.1
   */
  { "max-shared-memory-per-block-optin", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, FALSE },
  /**
   * CugiDevice:max-registers-per-block:
   *
   * The number of 32-bit registers available to a block.
   *
   * Since: 0.1
   */
  { "max-registers-per-block", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, FALSE },
  /**
   * CugiDevice:l2-cache-size:
   *
   * The size of the L2 cache in bytes.
   *
   * Since: 0.1
   */
  { "l2-cache-size", CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, FALSE },
  /**
   * CugiDevice:clock-rate-khz:
   *
   * The typical clock frequency of the multiprocessors in kilohertz.
   *
   * Since: 0.1
   */
  { "clock-rate-khz", CU_DEVICE_ATTRIBUTE_CLOCK_RATE, FALSE },
  /**
   * CugiDevice:memory-clock-rate-khz:
   *
   * The peak clock frequency of the device memory in kilohertz.
   *
   * Since: 0.1
   */
  { "memory-clock-rate-khz", CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, FALSE },
  /**
   * CugiDevice:memory-bus-width:
   *
   * The width of the device memory bus in bits.
   *
   * Since: 0.1
   */
  { "memory-bus-width", CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, FALSE },
  /**
   * CugiDevice:async-engine-count:
   *
   * The number of copy engines, which copy memory while kernels run.
   *
   * Since: 0.1
   */
  { "async-engine-count", CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, FALSE },
  /**
   * CugiDevice:integrated:
   *
   * Whether the GPU is integrated with the host and shares its memory (a
   * Jetson, a Grace Hopper superchip's GPU is not).
   *
   * Since: 0.1
   */
  { "integrated", CU_DEVICE_ATTRIBUTE_INTEGRATED, TRUE },
  /**
   * CugiDevice:ecc-enabled:
   *
   * Whether error-correcting codes protect the device memory.
   *
   * Since: 0.1
   */
  { "ecc-enabled", CU_DEVICE_ATTRIBUTE_ECC_ENABLED, TRUE },
  /**
   * CugiDevice:managed-memory:
   *
   * Whether the device can allocate managed (unified) memory.
   *
   * Since: 0.1
   */
  { "managed-memory", CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, TRUE },
  /**
   * CugiDevice:concurrent-kernels:
   *
   * Whether the device can run several kernels at once.
   *
   * Since: 0.1
   */
  { "concurrent-kernels", CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, TRUE },
};

enum
{
  ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
  ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
  ATTRIBUTE_MULTIPROCESSOR_COUNT,
  ATTRIBUTE_WARP_SIZE,
  N_ATTRIBUTE_PROPERTIES = G_N_ELEMENTS (attribute_properties)
};

struct _CugiDevice
{
  GObject parent_instance;

  int          ordinal;        /* -1 unless made by cugi_device_get() */
  CUdevice     handle;
  char        *name;
  char        *alias;
  char        *uuid;
  char        *pci_bus_id;
  guint64      total_memory;
  int          attributes[N_ATTRIBUTE_PROPERTIES];

  GMutex       primary_lock;
  CugiContext *primary_context; /* made on first use, then kept */
};

G_DEFINE_FINAL_TYPE (CugiDevice, cugi_device, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_ORDINAL,
  PROP_NAME,
  PROP_ALIAS,
  PROP_UUID,
  PROP_PCI_BUS_ID,
  PROP_TOTAL_MEMORY,
  PROP_FIRST_ATTRIBUTE,
  N_PROPS = PROP_FIRST_ATTRIBUTE + N_ATTRIBUTE_PROPERTIES
};

static GParamSpec *properties[N_PROPS];

/* Every device made so far, by ordinal (NULL where none was asked for yet).
 * They live as long as the process, which makes the per-ordinal identity
 * cheap to keep. */
static GMutex devices_lock;
static GPtrArray *devices;

static void
cugi_device_finalize (GObject *object)
{
  CugiDevice *self = CUGI_DEVICE (object);

  g_clear_object (&self->primary_context);
  g_mutex_clear (&self->primary_lock);
  g_free (self->name);
  g_free (self->alias);
  g_free (self->uuid);
  g_free (self->pci_bus_id);

  G_OBJECT_CLASS (cugi_device_parent_class)->finalize (object);
}

static void
cugi_device_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  CugiDevice *self = CUGI_DEVICE (object);

  switch (prop_id)
    {
    case PROP_ORDINAL:
      g_value_set_int (value, self->ordinal);
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_ALIAS:
      g_value_set_string (value, self->alias);
      break;
    case PROP_UUID:
      g_value_set_string (value, self->uuid);
      break;
    case PROP_PCI_BUS_ID:
      g_value_set_string (value, self->pci_bus_id);
      break;
    case PROP_TOTAL_MEMORY:
      g_value_set_uint64 (value, self->total_memory);
      break;
    default:
      if (prop_id >= PROP_FIRST_ATTRIBUTE && prop_id < N_PROPS)
        {
          guint index = prop_id - PROP_FIRST_ATTRIBUTE;

          if (attribute_properties[index].is_boolean)
            g_value_set_boolean (value, self->attributes[index] != 0);
          else
            g_value_set_int (value, self->attributes[index]);
          break;
        }
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_device_class_init (CugiDeviceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = cugi_device_finalize;
  object_class->get_property = cugi_device_get_property;

  /**
   * CugiDevice:ordinal:
   *
   * The device's number, as the driver counts devices from 0 (after
   * `CUDA_VISIBLE_DEVICES`).
   *
   * Since: 0.1
   */
  properties[PROP_ORDINAL] = g_param_spec_int ("ordinal", NULL, NULL, -1, G_MAXINT, -1, flags);
  /**
   * CugiDevice:name:
   *
   * The product name, e.g. "NVIDIA H100 80GB HBM3".
   *
   * Since: 0.1
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  /**
   * CugiDevice:alias:
   *
   * The device's alias, `cuda:N` with N its #CugiDevice:ordinal, as PyTorch
   * and Warp name devices; cugi_device_get_by_alias() takes it back.
   *
   * Since: 0.1
   */
  properties[PROP_ALIAS] = g_param_spec_string ("alias", NULL, NULL, NULL, flags);
  /**
   * CugiDevice:uuid:
   *
   * The device's UUID in its canonical form, 32 lowercase hexadecimal digits
   * grouped 8-4-4-4-12: what `nvidia-smi -L` shows after `GPU-`. Unlike the
   * ordinal it does not depend on `CUDA_VISIBLE_DEVICES`.
   *
   * Since: 0.1
   */
  properties[PROP_UUID] = g_param_spec_string ("uuid", NULL, NULL, NULL, flags);
  /**
   * CugiDevice:pci-bus-id:
   *
   * The device's PCI address, `domain:bus:device.function` in hexadecimal,
   * e.g. "0000:1B:00.0".
   *
   * Since: 0.1
   */
  properties[PROP_PCI_BUS_ID] = g_param_spec_string ("pci-bus-id", NULL, NULL, NULL, flags);
  /**
   * CugiDevice:total-memory:
   *
   * The size of the device memory in bytes.
   *
   * Since: 0.1
   */
  properties[PROP_TOTAL_MEMORY] = g_param_spec_uint64 ("total-memory", NULL, NULL,
                                                       0, G_MAXUINT64, 0, flags);

  for (guint i = 0; i < N_ATTRIBUTE_PROPERTIES; i++)
    {
      const char *name = attribute_properties[i].property;

      properties[PROP_FIRST_ATTRIBUTE + i] = attribute_properties[i].is_boolean
        ? g_param_spec_boolean (name, NULL, NULL, FALSE, flags)
        : g_param_spec_int (name, NULL, NULL, 0, G_MAXINT, 0, flags);
    }

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_device_init (CugiDevice *self)
{
  self->ordinal = -1;
  g_mutex_init (&self->primary_lock);
}

gboolean
cugi_device_check (CugiDevice *self,
                   GError    **error)
{
  if (G_LIKELY (self->ordinal >= 0))
    return TRUE;
  g_set_error_literal (error, CUGI_ERROR, CUGI_ERROR_INVALID_STATE,
                       _("this CugiDevice stands for no GPU: get devices with cugi_device_get()"));
  return FALSE;
}

gboolean
cugi_check_enum_value (GType    enum_type,
                       int      value,
                       GError **error)
{
  g_autoptr(GEnumClass) enum_class = g_type_class_ref (enum_type);

  if (g_enum_get_value (enum_class, value) != NULL)
    return TRUE;
  g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
               _("%d is not a value of %s"), value, g_type_name (enum_type));
  return FALSE;
}

static char *
format_uuid (const CUuuid *uuid)
{
  const guchar *b = (const guchar *) uuid->bytes;

  return g_strdup_printf ("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                          b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                          b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static CugiDevice *
device_new (int      ordinal,
            GError **error)
{
  g_autoptr(CugiDevice) self = g_object_new (CUGI_TYPE_DEVICE, NULL);
  char name[256] = "";
  char pci_bus_id[64] = "";
  CUuuid uuid;
  size_t total_memory = 0;

  if (!CUGI_CALL (cuDeviceGet, (&self->handle, ordinal), error) ||
      !CUGI_CALL (cuDeviceGetName, (name, sizeof name - 1, self->handle), error) ||
      !CUGI_CALL (cuDeviceGetUuid, (&uuid, self->handle), error) ||
      !CUGI_CALL (cuDeviceGetPCIBusId, (pci_bus_id, sizeof pci_bus_id - 1, self->handle), error) ||
      !CUGI_CALL (cuDeviceTotalMem, (&total_memory, self->handle), error))
    return NULL;

  for (guint i = 0; i < N_ATTRIBUTE_PROPERTIES; i++)
    if (!CUGI_CALL (cuDeviceGetAttribute,
                    (&self->attributes[i], attribute_properties[i].attribute, self->handle), error))
      return NULL;

  self->ordinal = ordinal;
  self->name = g_strdup (name);
  self->alias = g_strdup_printf ("cuda:%d", ordinal);
  self->uuid = format_uuid (&uuid);
  self->pci_bus_id = g_strdup (pci_bus_id);
  self->total_memory = total_memory;
  return g_steal_pointer (&self);
}

CUdevice
cugi_device_get_handle (CugiDevice *self)
{
  return self->handle;
}

/**
 * cugi_device_get_count:
 * @error: return location for a #GError
 *
 * The number of CUDA devices this process can use.
 *
 * Returns: the number of devices (at least 1), or 0 with @error set when no
 *   driver or device is usable
 *
 * Since: 0.1
 */
gint
cugi_device_get_count (GError **error)
{
  int count = 0;

  if (!cugi_ensure_driver (error) ||
      !CUGI_CALL (cuDeviceGetCount, (&count), error))
    return 0;
  return count;
}

/**
 * cugi_device_get:
 * @ordinal: the device's number, from 0 to cugi_device_get_count() - 1
 * @error: return location for a #GError
 *
 * The device numbered @ordinal. Every call for one ordinal returns the same
 * object. An ordinal the machine lacks is a %CUGI_ERROR_INVALID_ARGUMENT
 * error.
 *
 * Returns: (transfer full): the device, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiDevice *
cugi_device_get (gint     ordinal,
                 GError **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  CugiDevice *device;
  int count;

  count = cugi_device_get_count (error);
  if (count == 0)
    return NULL;
  if (ordinal < 0 || ordinal >= count)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   g_dngettext (GETTEXT_PACKAGE,
                                "no device %d: this machine has %d CUDA device",
                                "no device %d: this machine has %d CUDA devices", count),
                   ordinal, count);
      return NULL;
    }

  locker = g_mutex_locker_new (&devices_lock);
  if (devices == NULL)
    {
      devices = g_ptr_array_new ();
      g_ptr_array_set_size (devices, count);
    }
  device = g_ptr_array_index (devices, ordinal);
  if (device == NULL)
    {
      device = device_new (ordinal, error);
      if (device == NULL)
        return NULL;
      g_ptr_array_index (devices, ordinal) = device;
    }
  return g_object_ref (device);
}

/* A device ordinal written in decimal digits and nothing else: not even the
 * leading whitespace g_ascii_string_to_unsigned() skips. */
static gboolean
parse_ordinal (const char *text,
               guint64    *number)
{
  return g_ascii_isdigit (text[0]) &&
         g_ascii_string_to_unsigned (text, 10, 0, G_MAXINT, number, NULL);
}

gboolean
cugi_device_parse_alias (const char *alias,
                         int        *ordinal,
                         GError    **error)
{
  guint64 number = 0;

  if (g_strcmp0 (alias, "cuda") == 0)
    {
      *ordinal = -1;
      return TRUE;
    }
  if (alias == NULL || !g_str_has_prefix (alias, "cuda:") ||
      !parse_ordinal (alias + strlen ("cuda:"), &number))
    {
      /* Quoted as valid UTF-8, as every GError message must be. */
      g_autofree char *quoted = g_utf8_make_valid (alias != NULL ? alias : "(null)", -1);

      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("\"%s\" is not a device alias: use \"cuda\" for the default device or "
                     "\"cuda:N\" for device N"),
                   quoted);
      return FALSE;
    }
  *ordinal = (int) number;
  return TRUE;
}

/**
 * cugi_device_get_default:
 * @error: return location for a #GError
 *
 * The device cugi uses when none is given: the one the `CUGI_DEVICE`
 * environment variable names, as an ordinal ("1") or an alias ("cuda:1"),
 * else device 0. A value of `CUGI_DEVICE` that names no device is a
 * %CUGI_ERROR_INVALID_ARGUMENT error, not a silent fallback.
 *
 * Returns: (transfer full): the default device, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiDevice *
cugi_device_get_default (GError **error)
{
  const char *variable = g_getenv ("CUGI_DEVICE");
  g_autoptr(GError) local_error = NULL;
  CugiDevice *device;
  guint64 number;
  int ordinal = -1;

  if (variable == NULL || *variable == '\0')
    return cugi_device_get (0, error);

  if (parse_ordinal (variable, &number))
    ordinal = (int) number;
  else if (!cugi_device_parse_alias (variable, &ordinal, NULL))
    {
      g_autofree char *quoted = g_utf8_make_valid (variable, -1);

      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("CUGI_DEVICE=\"%s\" names no device: set it to an ordinal such as \"1\" "
                     "or an alias such as \"cuda:1\", or unset it for device 0"),
                   quoted);
      return NULL;
    }

  device = cugi_device_get (MAX (ordinal, 0), &local_error);
  if (device == NULL)
    {
      g_autofree char *quoted = g_utf8_make_valid (variable, -1);

      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  _("CUGI_DEVICE=\"%s\": "), quoted);
      return NULL;
    }
  return device;
}

/**
 * cugi_device_get_by_alias:
 * @alias: "cuda" for the default device (see cugi_device_get_default()) or
 *   "cuda:N" for device N
 * @error: return location for a #GError
 *
 * The device an alias names, as PyTorch and Warp spell devices. Anything else,
 * or a device the machine lacks, is a %CUGI_ERROR_INVALID_ARGUMENT error.
 *
 * Returns: (transfer full): the device, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiDevice *
cugi_device_get_by_alias (const gchar *alias,
                          GError     **error)
{
  int ordinal;

  g_return_val_if_fail (alias != NULL, NULL);

  if (!cugi_device_parse_alias (alias, &ordinal, error))
    return NULL;
  return ordinal < 0 ? cugi_device_get_default (error) : cugi_device_get (ordinal, error);
}

/**
 * cugi_device_list:
 * @error: return location for a #GError
 *
 * Every device this process can use, by ordinal.
 *
 * Returns: (transfer full) (element-type CugiDevice): the devices, or %NULL
 *   with @error set
 *
 * Since: 0.1
 */
GList *
cugi_device_list (GError **error)
{
  GList *list = NULL;
  int count = cugi_device_get_count (error);

  for (int ordinal = count - 1; ordinal >= 0; ordinal--)
    {
      CugiDevice *device = cugi_device_get (ordinal, error);

      if (device == NULL)
        {
          g_list_free_full (list, g_object_unref);
          return NULL;
        }
      list = g_list_prepend (list, device);
    }
  return list;
}

/**
 * cugi_device_get_ordinal: (get-property ordinal)
 * @self: a #CugiDevice
 *
 * Returns: the value of #CugiDevice:ordinal
 *
 * Since: 0.1
 */
gint
cugi_device_get_ordinal (CugiDevice *self)
{
  g_return_val_if_fail (CUGI_IS_DEVICE (self), -1);
  return self->ordinal;
}

/**
 * cugi_device_get_name: (get-property name)
 * @self: a #CugiDevice
 *
 * Returns: (nullable): the value of #CugiDevice:name
 *
 * Since: 0.1
 */
const gchar *
cugi_device_get_name (CugiDevice *self)
{
  g_return_val_if_fail (CUGI_IS_DEVICE (self), NULL);
  return self->name;
}

/**
 * cugi_device_get_alias: (get-property alias)
 * @self: a #CugiDevice
 *
 * Returns: (nullable): the value of #CugiDevice:alias
 *
 * Since: 0.1
 */
const gchar *
cugi_device_get_alias (CugiDevice *self)
{
  g_return_val_if_fail (CUGI_IS_DEVICE (self), NULL);
  return self->alias;
}

/**
 * cugi_device_get_uuid: (get-property uuid)
 * @self: a #CugiDevice
 *
 * Returns: (nullable): the value of #CugiDevice:uuid
 *
 * Since: 0.1
 */
const gchar *
cugi_device_get_uuid (CugiDevice *self)
{
  g_return_val_if_fail (CUGI_IS_DEVICE (self), NULL);
  return self->uuid;
}

/**
 * cugi_device_get_pci_bus_id: (get-property pci-bus-id)
 * @self: a #CugiDevice
 *
 * Returns: (nullable): the value of #CugiDevice:pci-bus-id
 *
 * Since: 0.1
 */
const gchar *
cugi_device_get_pci_bus_id (CugiDevice *self)
{
  g_return_val_if_fail (CUGI_IS_DEVICE (self), NULL);
  return self->pci_bus_id;
}

/**
 * cugi_device_get_compute_capability:
 * @self: a #CugiDevice
 * @major: (out) (optional): the major number
 * @minor: (out) (optional): the minor number
 *
 * The device's compute capability, #CugiDevice:compute-capability-major and
 * #CugiDevice:compute-capability-minor: (9, 0) for `sm_90`.
 *
 * Since: 0.1
 */
void
cugi_device_get_compute_capability (CugiDevice *self,
                                    gint       *major,
                                    gint       *minor)
{
  g_return_if_fail (CUGI_IS_DEVICE (self));
  if (major != NULL)
    *major = self->attributes[ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR];
  if (minor != NULL)
    *minor = self->attributes[ATTRIBUTE_COMPUTE_CAPABILITY_MINOR];
}

/**
 * cugi_device_get_total_memory: (get-property total-memory)
 * @self: a #CugiDevice
 *
 * Returns: the value of #CugiDevice:total-memory
 *
 * Since: 0.1
 */
guint64
cugi_device_get_total_memory (CugiDevice *self)
{
  g_return_val_if_fail (CUGI_IS_DEVICE (self), 0);
  return self->total_memory;
}

/**
 * cugi_device_get_multiprocessor_count: (get-property multiprocessor-count)
 * @self: a #CugiDevice
 *
 * Returns: the value of #CugiDevice:multiprocessor-count
 *
 * Since: 0.1
 */
gint
cugi_device_get_multiprocessor_count (CugiDevice *self)
{
  g_return_val_if_fail (CUGI_IS_DEVICE (self), 0);
  return self->attributes[ATTRIBUTE_MULTIPROCESSOR_COUNT];
}

/**
 * cugi_device_get_warp_size: (get-property warp-size)
 * @self: a #CugiDevice
 *
 * Returns: the value of #CugiDevice:warp-size
 *
 * Since: 0.1
 */
gint
cugi_device_get_warp_size (CugiDevice *self)
{
  g_return_val_if_fail (CUGI_IS_DEVICE (self), 0);
  return self->attributes[ATTRIBUTE_WARP_SIZE];
}

/**
 * cugi_device_get_attribute:
 * @self: a #CugiDevice
 * @attribute: what to ask
 * @error: return location for a #GError
 *
 * Asks the driver for one of the device's attributes. A value outside
 * #CugiDeviceAttribute is a %CUGI_ERROR_INVALID_ARGUMENT error.
 *
 * Returns: the attribute's value, or 0 with @error set
 *
 * Since: 0.1
 */
gint
cugi_device_get_attribute (CugiDevice         *self,
                           CugiDeviceAttribute attribute,
                           GError            **error)
{
  int value = 0;

  g_return_val_if_fail (CUGI_IS_DEVICE (self), 0);

  if (!cugi_device_check (self, error) ||
      !cugi_check_enum_value (CUGI_TYPE_DEVICE_ATTRIBUTE, attribute, error) ||
      !CUGI_CALL (cuDeviceGetAttribute, (&value, (CUdevice_attribute) attribute, self->handle), error))
    return 0;
  return value;
}

/**
 * cugi_device_can_access_peer:
 * @self: a #CugiDevice
 * @peer: another #CugiDevice
 * @error: return location for a #GError
 *
 * Whether contexts on @self can be given access to memory on @peer (see
 * cugi_context_enable_peer_access()). Peer access is one-way: ask both ways
 * round to learn about both directions.
 *
 * A device is not its own peer: for @peer equal to @self this returns %FALSE
 * without an error (its own memory needs no peer access).
 *
 * Returns: %TRUE if @self can access @peer's memory; %FALSE if not, or with
 *   @error set
 *
 * Since: 0.1
 */
gboolean
cugi_device_can_access_peer (CugiDevice *self,
                             CugiDevice *peer,
                             GError    **error)
{
  int can_access = 0;

  g_return_val_if_fail (CUGI_IS_DEVICE (self), FALSE);
  g_return_val_if_fail (CUGI_IS_DEVICE (peer), FALSE);

  if (!cugi_device_check (self, error) || !cugi_device_check (peer, error))
    return FALSE;
  if (peer->ordinal == self->ordinal)
    return FALSE;
  if (!CUGI_CALL (cuDeviceCanAccessPeer, (&can_access, self->handle, peer->handle), error))
    return FALSE;
  return can_access != 0;
}

CugiContext *
cugi_device_keep_primary_context (CugiDevice *self,
                                  CugiContext *(*make) (CugiDevice *device,
                                                        GError    **error),
                                  GError    **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->primary_lock);

  if (self->primary_context == NULL)
    {
      self->primary_context = make (self, error);
      if (self->primary_context == NULL)
        return NULL;
    }
  return g_object_ref (self->primary_context);
}
