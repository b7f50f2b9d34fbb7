/* cugi-nvml.h: the part of NVML's C interface that cugi calls.
 *
 * Private. NVML (libnvidia-ml.so.1) comes with the driver, but its header
 * comes with neither the driver nor every CUDA toolkit (the toolkit cugi is
 * built with here has no nvml.h, Debian ships it apart), so cugi declares
 * the few types and entry points it uses itself, at the versions of their
 * current ABI (the _v2/_v3 symbols nvml.h maps the plain names to), and
 * builds without NVML's headers or library. Only cugi-loader.c resolves
 * these names (into cugi_nvml, cugi-loader.h).
 */
#pragma once

G_BEGIN_DECLS

typedef struct CugiNvmlDevice_st *nvmlDevice_t;

/* nvmlReturn_t: the codes cugi tells apart; any other is reported with
 * NVML's own text. */
typedef enum
{
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_UNKNOWN = 999,
} nvmlReturn_t;

/* nvmlTemperatureSensors_t */
#define NVML_TEMPERATURE_GPU 0
/* nvmlClockType_t */
#define NVML_CLOCK_GRAPHICS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_CLOCK_VIDEO 3
/* nvmlPcieUtilCounter_t */
#define NVML_PCIE_UTIL_TX_BYTES 0
#define NVML_PCIE_UTIL_RX_BYTES 1
/* nvmlEnableState_t */
#define NVML_FEATURE_ENABLED 1
/* The most NVLink links a device can have (NVML_NVLINK_MAX_LINKS, 18 since
 * Hopper): links are asked for up to the first one NVML refuses. */
#define CUGI_NVML_MAX_NVLINK_LINKS 18

typedef struct
{
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;

/* nvmlProcessInfo_t as nvmlDeviceGetComputeRunningProcesses_v3 fills it. */
typedef struct
{
  unsigned int       pid;
  unsigned long long usedGpuMemory;
  unsigned int       gpuInstanceId;
  unsigned int       computeInstanceId;
} nvmlProcessInfo_t;

nvmlReturn_t nvmlInit_v2 (void);
const char  *nvmlErrorString (nvmlReturn_t result);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2 (const char *pci_bus_id, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetTemperature (nvmlDevice_t device, int sensor, unsigned int *celsius);
nvmlReturn_t nvmlDeviceGetPowerUsage (nvmlDevice_t device, unsigned int *milliwatts);
nvmlReturn_t nvmlDeviceGetClockInfo (nvmlDevice_t device, int clock, unsigned int *mhz);
nvmlReturn_t nvmlDeviceGetUtilizationRates (nvmlDevice_t device, nvmlUtilization_t *utilization);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3 (nvmlDevice_t       device,
                                                      unsigned int      *count,
                                                      nvmlProcessInfo_t *processes);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration (nvmlDevice_t device, unsigned int *generation);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth (nvmlDevice_t device, unsigned int *width);
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration (nvmlDevice_t device, unsigned int *generation);
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth (nvmlDevice_t device, unsigned int *width);
nvmlReturn_t nvmlDeviceGetPcieThroughput (nvmlDevice_t device, int counter, unsigned int *kib_per_s);
nvmlReturn_t nvmlDeviceGetNvLinkState (nvmlDevice_t device, unsigned int link, int *active);

G_END_DECLS
