/* cugi-device-telemetry.c: a device's sensors and links, through NVML.
 *
 * NVML is loaded on the first telemetry call (cugi_loader_load_nvml()), not
 * with the driver: programs that never ask pay nothing for it, and a machine
 * without it fails only these calls. A CUDA device is found in NVML by its
 * PCI bus id, which both number alike whatever CUDA_VISIBLE_DEVICES hides.
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "cugi-context-private.h"
#include "cugi-private.h"

/* The NVML handle of a CugiDevice, found once: devices live as long as the
 * process, and so do NVML's handles. */
G_DEFINE_QUARK (cugi-nvml-device, cugi_nvml_device)

static CugiError
error_code_from_nvml (nvmlReturn_t result)
{
  switch (result)
    {
    case NVML_ERROR_NOT_SUPPORTED:
      return CUGI_ERROR_NOT_SUPPORTED;
    case NVML_ERROR_NOT_FOUND:
      return CUGI_ERROR_NOT_FOUND;
    case NVML_ERROR_INVALID_ARGUMENT:
      return CUGI_ERROR_INVALID_ARGUMENT;
    case NVML_ERROR_UNINITIALIZED:
    case NVML_ERROR_DRIVER_NOT_LOADED:
    case NVML_ERROR_GPU_IS_LOST:
      return CUGI_ERROR_NOT_AVAILABLE;
    default:
      return CUGI_ERROR_DRIVER;
    }
}

static gboolean
check_nvml (CugiDevice  *self,
            nvmlReturn_t result,
            const char  *operation,
            GError     **error)
{
  if (G_LIKELY (result == NVML_SUCCESS))
    return TRUE;
  /* TRANSLATORS: NVML's nvmlDeviceGetPowerUsage failed for cuda:0 (NVML's
   * library): NVML's own text for the error */
  g_set_error (error, CUGI_ERROR, error_code_from_nvml (result),
               _("NVML's %s failed for %s (%s): %s"), operation, cugi_device_get_alias (self),
               cugi_loader_get_nvml_path (), cugi_nvml.nvmlErrorString (result));
  return FALSE;
}

#define NVML_CALL(self, entry_point, args, error) \
  check_nvml ((self), cugi_nvml.entry_point args, #entry_point, (error))

/* @self's handle in NVML, or NULL with @error set when NVML cannot be
 * loaded or does not know the device. */
static nvmlDevice_t
nvml_device (CugiDevice *self,
             GError    **error)
{
  nvmlDevice_t handle;

  if (!cugi_device_check (self, error) || !cugi_loader_load_nvml (error))
    return NULL;
  handle = g_object_get_qdata (G_OBJECT (self), cugi_nvml_device_quark ());
  if (handle != NULL)
    return handle;
  if (!NVML_CALL (self, nvmlDeviceGetHandleByPciBusId_v2, (cugi_device_get_pci_bus_id (self), &handle), error))
    return NULL;
  /* Two threads that raced here found the same handle. */
  g_object_set_qdata (G_OBJECT (self), cugi_nvml_device_quark (), handle);
  return handle;
}

/**
 * cugi_device_get_temperature:
 * @self: a #CugiDevice
 * @error: return location for a #GError
 *
 * Reads the temperature of the GPU die from NVML.
 *
 * Every telemetry call loads NVML (`libnvidia-ml.so.1`, which comes with
 * the NVIDIA driver; `CUGI_LIBNVML` names another) the first time: where it
 * is missing the call fails with %CUGI_ERROR_NOT_AVAILABLE, and a reading
 * the device does not offer with %CUGI_ERROR_NOT_SUPPORTED.
 * #CugiDeviceMonitor polls these readings in the main loop.
 *
 * Returns: the temperature in degrees Celsius, or 0 with @error set
 *
 * Since: 0.1
 */
guint
cugi_device_get_temperature (CugiDevice *self,
                             GError    **error)
{
  nvmlDevice_t handle;
  unsigned int celsius = 0;

  g_return_val_if_fail (CUGI_IS_DEVICE (self), 0);

  if ((handle = nvml_device (self, error)) == NULL ||
      !NVML_CALL (self, nvmlDeviceGetTemperature, (handle, NVML_TEMPERATURE_GPU, &celsius), error))
    return 0;
  return celsius;
}

/**
 * cugi_device_get_power_usage:
 * @self: a #CugiDevice
 * @error: return location for a #GError
 *
 * Reads the power the whole board draws now (averaged by the driver over
 * about a second), from NVML; see cugi_device_get_temperature() for when
 * NVML cannot be had.
 *
 * Returns: the power in milliwatts, or 0 with @error set
 *
 * Since: 0.1
 */
guint
cugi_device_get_power_usage (CugiDevice *self,
                             GError    **error)
{
  nvmlDevice_t handle;
  unsigned int milliwatts = 0;

  g_return_val_if_fail (CUGI_IS_DEVICE (self), 0);

  if ((handle = nvml_device (self, error)) == NULL ||
      !NVML_CALL (self, nvmlDeviceGetPowerUsage, (handle, &milliwatts), error))
    return 0;
  return milliwatts;
}

/**
 * cugi_device_get_clock:
 * @self: a #CugiDevice
 * @clock: which clock
 * @error: return location for a #GError
 *
 * Reads the current frequency of one of the device's clocks from NVML (the
 * #CugiDevice:clock-rate-khz property is the highest SM clock instead); a
 * value outside #CugiDeviceClock is a %CUGI_ERROR_INVALID_ARGUMENT error.
 *
 * Returns: the frequency in MHz, or 0 with @error set
 *
 * Since: 0.1
 */
guint
cugi_device_get_clock (CugiDevice     *self,
                       CugiDeviceClock clock,
                       GError        **error)
{
  static const int nvml_clocks[] = {
    [CUGI_DEVICE_CLOCK_GRAPHICS] = NVML_CLOCK_GRAPHICS,
    [CUGI_DEVICE_CLOCK_SM] = NVML_CLOCK_SM,
    [CUGI_DEVICE_CLOCK_MEMORY] = NVML_CLOCK_MEM,
    [CUGI_DEVICE_CLOCK_VIDEO] = NVML_CLOCK_VIDEO,
  };
  nvmlDevice_t handle;
  unsigned int mhz = 0;

  g_return_val_if_fail (CUGI_IS_DEVICE (self), 0);

  if (!cugi_check_enum_value (CUGI_TYPE_DEVICE_CLOCK, clock, error) ||
      (handle = nvml_device (self, error)) == NULL ||
      !NVML_CALL (self, nvmlDeviceGetClockInfo, (handle, nvml_clocks[clock], &mhz), error))
    return 0;
  return mhz;
}

/**
 * cugi_device_get_utilization:
 * @self: a #CugiDevice
 * @memory_percent: (out) (optional): the share of the last sample period in
 *   which device memory was read or written, in percent
 * @error: return location for a #GError
 *
 * Reads how busy the device was over NVML's last sample period (between a
 * sixth of a second and a second, depending on the device), by every
 * process together.
 *
 * Returns: the share of the period in which one or more kernels ran, in
 *   percent, or 0 with @error set
 *
 * Since: 0.1
 */
guint
cugi_device_get_utilization (CugiDevice *self,
                             guint      *memory_percent,
                             GError    **error)
{
  nvmlDevice_t handle;
  nvmlUtilization_t utilization = { 0 };

  g_return_val_if_fail (CUGI_IS_DEVICE (self), 0);

  if (memory_percent != NULL)
    *memory_percent = 0;
  if ((handle = nvml_device (self, error)) == NULL ||
      !NVML_CALL (self, nvmlDeviceGetUtilizationRates, (handle, &utilization), error))
    return 0;
  if (memory_percent != NULL)
    *memory_percent = utilization.memory;
  return utilization.gpu;
}

/**
 * cugi_device_get_process_memory:
 * @self: a #CugiDevice
 * @error: return location for a #GError
 *
 * Lists the processes that hold a CUDA context on the device, with the
 * device memory each uses, as a dictionary `a{ut}` from process id to bytes
 * (Python: `dev.get_process_memory().unpack()`). A process whose use NVML
 * cannot tell (in a container that hides other processes' ids, say) maps to
 * %G_MAXUINT64, as NVML reports it. Processes of other containers may be missing.
 *
 * Returns: (transfer full): a dictionary of type `a{ut}`, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
GVariant *
cugi_device_get_process_memory (CugiDevice *self,
                                GError    **error)
{
  nvmlDevice_t handle;
  g_autofree nvmlProcessInfo_t *processes = NULL;
  unsigned int count = 0;
  nvmlReturn_t result;
  GVariantBuilder builder;

  g_return_val_if_fail (CUGI_IS_DEVICE (self), NULL);

  if ((handle = nvml_device (self, error)) == NULL)
    return NULL;
  /* NVML says how many there are when the array is too small; processes
   * may start between two calls, hence the loop and the room to spare. */
  while ((result = cugi_nvml.nvmlDeviceGetComputeRunningProcesses_v3 (handle, &count, processes))
         == NVML_ERROR_INSUFFICIENT_SIZE)
    {
      count += 8;
      processes = g_renew (nvmlProcessInfo_t, processes, count);
    }
  if (!check_nvml (self, result, "nvmlDeviceGetComputeRunningProcesses_v3", error))
    return NULL;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a{ut}"));
  for (unsigned int i = 0; i < count; i++)
    g_variant_builder_add (&builder, "{ut}", processes[i].pid,
                           (guint64) processes[i].usedGpuMemory);
  return g_variant_ref_sink (g_variant_builder_end (&builder));
}

/**
 * cugi_device_get_pcie_link:
 * @self: a #CugiDevice
 * @width: (out) (optional): the number of lanes the link uses now
 * @max_generation: (out) (optional): the highest generation the device and
 *   the system together support
 * @max_width: (out) (optional): the most lanes they support
 * @error: return location for a #GError
 *
 * Reads the device's PCI Express link from NVML. An idle GPU may lower its
 * link's generation to save power and raise it again under load.
 *
 * Returns: the PCIe generation the link runs at now (5 for PCIe 5.0), or 0
 *   with @error set
 *
 * Since: 0.1
 */
guint
cugi_device_get_pcie_link (CugiDevice *self,
                           guint      *width,
                           guint      *max_generation,
                           guint      *max_width,
                           GError    **error)
{
  nvmlDevice_t handle;
  unsigned int generation = 0, current_width = 0, highest_generation = 0, widest = 0;

  g_return_val_if_fail (CUGI_IS_DEVICE (self), 0);

  if ((handle = nvml_device (self, error)) == NULL ||
      !NVML_CALL (self, nvmlDeviceGetCurrPcieLinkGeneration, (handle, &generation), error) ||
      !NVML_CALL (self, nvmlDeviceGetCurrPcieLinkWidth, (handle, &current_width), error) ||
      !NVML_CALL (self, nvmlDeviceGetMaxPcieLinkGeneration, (handle, &highest_generation), error) ||
      !NVML_CALL (self, nvmlDeviceGetMaxPcieLinkWidth, (handle, &widest), error))
    generation = current_width = highest_generation = widest = 0;
  if (width != NULL)
    *width = current_width;
  if (max_generation != NULL)
    *max_generation = highest_generation;
  if (max_width != NULL)
    *max_width = widest;
  return generation;
}

/**
 * cugi_device_get_pcie_throughput:
 * @self: a #CugiDevice
 * @receive_kb_per_second: (out) (optional): the rate at which the device
 *   received data over PCIe, in kilobytes per second
 * @error: return location for a #GError
 *
 * Reads the device's PCIe traffic from NVML, as NVML samples it (over about
 * 20 milliseconds, which this call waits for).
 *
 * Returns: the rate at which the device sent data over PCIe, in kilobytes
 *   per second, or 0 with @error set
 *
 * Since: 0.1
 */
guint
cugi_device_get_pcie_throughput (CugiDevice *self,
                                 guint      *receive_kb_per_second,
                                 GError    **error)
{
  nvmlDevice_t handle;
  unsigned int transmit = 0, receive = 0;

  g_return_val_if_fail (CUGI_IS_DEVICE (self), 0);

  if ((handle = nvml_device (self, error)) == NULL ||
      !NVML_CALL (self, nvmlDeviceGetPcieThroughput, (handle, NVML_PCIE_UTIL_TX_BYTES, &transmit), error) ||
      !NVML_CALL (self, nvmlDeviceGetPcieThroughput, (handle, NVML_PCIE_UTIL_RX_BYTES, &receive), error))
    transmit = receive = 0;
  if (receive_kb_per_second != NULL)
    *receive_kb_per_second = receive;
  return transmit;
}

/**
 * cugi_device_get_nvlink_states:
 * @self: a #CugiDevice
 * @n_links: (out): the number of links
 * @error: return location for a #GError
 *
 * Reads from NVML which of the device's NVLink links are active, by link
 * number. Links NVML does not report (absent, or not offered on this
 * device) are %FALSE; a device without NVLink has no links: %NULL and 0
 * without an error.
 *
 * Returns: (array length=n_links) (transfer full) (nullable): whether each
 *   link is active, or %NULL with @error set
 *
 * Since: 0.1
 */
gboolean *
cugi_device_get_nvlink_states (CugiDevice *self,
                               guint      *n_links,
                               GError    **error)
{
  nvmlDevice_t handle;
  gboolean active[CUGI_NVML_MAX_NVLINK_LINKS] = { 0 };
  guint count = 0;

  g_return_val_if_fail (CUGI_IS_DEVICE (self), NULL);
  g_return_val_if_fail (n_links != NULL, NULL);

  *n_links = 0;
  if ((handle = nvml_device (self, error)) == NULL)
    return NULL;
  for (guint link = 0; link < CUGI_NVML_MAX_NVLINK_LINKS; link++)
    {
      int state = 0;
      nvmlReturn_t result = cugi_nvml.nvmlDeviceGetNvLinkState (handle, link, &state);

      /* Refused: past the device's last link, or a link it does not offer. */
      if (result == NVML_ERROR_NOT_SUPPORTED || result == NVML_ERROR_INVALID_ARGUMENT)
        continue;
      if (!check_nvml (self, result, "nvmlDeviceGetNvLinkState", error))
        return NULL;
      active[link] = state == NVML_FEATURE_ENABLED;
      count = link + 1;
    }
  *n_links = count;
  return count > 0 ? g_memdup2 (active, count * sizeof active[0]) : NULL;
}
