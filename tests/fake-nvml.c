/* fake-nvml.c: a stand-in libnvidia-ml.so.1, so that device telemetry and
 * its monitor run without a GPU (CUGI_LIBNVML names it).
 *
 * It knows the devices of fake-cuda-devices.c by their PCI bus ids
 * (0000:1B:00.0 for device 0, then one bus further for each). Each reading
 * comes from an environment variable read on every call, so that a test
 * changes what the next poll sees: FAKE_NVML_TEMPERATURE, FAKE_NVML_POWER,
 * FAKE_NVML_SM_CLOCK, FAKE_NVML_MEMORY_CLOCK, FAKE_NVML_GPU_UTILIZATION,
 * FAKE_NVML_MEMORY_UTILIZATION; "unsupported" there makes the reading
 * NVML_ERROR_NOT_SUPPORTED, "lost" NVML_ERROR_GPU_IS_LOST. Device 0 has
 * FAKE_NVML_PROCESSES processes (3 unless set: pid 4000 + i using i + 1
 * MiB) and 4 NVLink links, the third one down; device 1 has no NVLink. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility ("default")))
#define HANDLE_BASE 0x1000
#define FIRST_BUS 0x1b
#define N_DEVICES 8
#define N_LINKS 4
#define DOWN_LINK 2

typedef enum
{
  SUCCESS = 0,
  ERROR_INVALID_ARGUMENT = 2,
  ERROR_NOT_SUPPORTED = 3,
  ERROR_NOT_FOUND = 6,
  ERROR_INSUFFICIENT_SIZE = 7,
  ERROR_GPU_IS_LOST = 15,
} Result;

typedef struct
{
  unsigned int       pid;
  unsigned long long used_memory;
  unsigned int       gpu_instance;
  unsigned int       compute_instance;
} ProcessInfo;

static int initialized;

/* The device index behind @handle, or -1. */
static int
index_of (void *handle)
{
  intptr_t index = (intptr_t) handle - HANDLE_BASE;

  return initialized && index >= 0 && index < N_DEVICES ? (int) index : -1;
}

static Result
reading (void *handle, const char *variable, unsigned int fallback, unsigned int *value)
{
  const char *text = getenv (variable);

  if (index_of (handle) < 0 || value == NULL)
    return ERROR_INVALID_ARGUMENT;
  if (text != NULL && strcmp (text, "unsupported") == 0)
    return ERROR_NOT_SUPPORTED;
  if (text != NULL && strcmp (text, "lost") == 0)
    return ERROR_GPU_IS_LOST;
  *value = text != NULL ? (unsigned int) strtoul (text, NULL, 10) : fallback;
  return SUCCESS;
}

EXPORT Result
nvmlInit_v2 (void)
{
  initialized = 1;
  return SUCCESS;
}

EXPORT const char *
nvmlErrorString (Result result)
{
  switch (result)
    {
    case SUCCESS:
      return "Success";
    case ERROR_INVALID_ARGUMENT:
      return "Invalid Argument";
    case ERROR_NOT_SUPPORTED:
      return "Not Supported";
    case ERROR_NOT_FOUND:
      return "Not Found";
    case ERROR_INSUFFICIENT_SIZE:
      return "Insufficient Size";
    case ERROR_GPU_IS_LOST:
      return "GPU is lost";
    default:
      return "Unknown Error";
    }
}

EXPORT Result
nvmlDeviceGetHandleByPciBusId_v2 (const char *bus_id, void **handle)
{
  unsigned int domain, bus, device, function;

  if (!initialized || bus_id == NULL || handle == NULL ||
      sscanf (bus_id, "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4)
    return ERROR_INVALID_ARGUMENT;
  if (domain != 0 || bus < FIRST_BUS || bus >= FIRST_BUS + N_DEVICES || device != 0 || function != 0)
    return ERROR_NOT_FOUND;
  *handle = (void *) (intptr_t) (HANDLE_BASE + bus - FIRST_BUS);
  return SUCCESS;
}

EXPORT Result
nvmlDeviceGetTemperature (void *handle, int sensor, unsigned int *celsius)
{
  if (sensor != 0)
    return ERROR_INVALID_ARGUMENT;
  return reading (handle, "FAKE_NVML_TEMPERATURE", 41, celsius);
}

EXPORT Result
nvmlDeviceGetPowerUsage (void *handle, unsigned int *milliwatts)
{
  return reading (handle, "FAKE_NVML_POWER", 123456, milliwatts);
}

EXPORT Result
nvmlDeviceGetClockInfo (void *handle, int clock, unsigned int *mhz)
{
  switch (clock)
    {
    case 0: /* graphics: the SM clock, as on NVIDIA's compute GPUs */
    case 1:
      return reading (handle, "FAKE_NVML_SM_CLOCK", 1980, mhz);
    case 2:
      return reading (handle, "FAKE_NVML_MEMORY_CLOCK", 2619, mhz);
    case 3:
      return reading (handle, "FAKE_NVML_VIDEO_CLOCK", 1545, mhz);
    default:
      return ERROR_INVALID_ARGUMENT;
    }
}

EXPORT Result
nvmlDeviceGetUtilizationRates (void *handle, unsigned int *rates)
{
  Result result;

  if (rates == NULL)
    return ERROR_INVALID_ARGUMENT;
  result = reading (handle, "FAKE_NVML_GPU_UTILIZATION", 37, &rates[0]);
  if (result == SUCCESS)
    result = reading (handle, "FAKE_NVML_MEMORY_UTILIZATION", 12, &rates[1]);
  return result;
}

EXPORT Result
nvmlDeviceGetComputeRunningProcesses_v3 (void *handle, unsigned int *count, ProcessInfo *processes)
{
  unsigned int running = 0;
  Result result = reading (handle, "FAKE_NVML_PROCESSES", 3, &running);

  if (result != SUCCESS || count == NULL)
    return result != SUCCESS ? result : ERROR_INVALID_ARGUMENT;
  if (index_of (handle) != 0)
    running = 0;
  if (*count < running)
    {
      *count = running;
      return ERROR_INSUFFICIENT_SIZE;
    }
  for (unsigned int i = 0; i < running; i++)
    processes[i] = (ProcessInfo) { 4000 + i, (unsigned long long) (i + 1) << 20, 0, 0 };
  *count = running;
  return SUCCESS;
}

EXPORT Result
nvmlDeviceGetCurrPcieLinkGeneration (void *handle, unsigned int *generation)
{
  return reading (handle, "FAKE_NVML_PCIE_GENERATION", 4, generation);
}

EXPORT Result
nvmlDeviceGetCurrPcieLinkWidth (void *handle, unsigned int *width)
{
  return reading (handle, "FAKE_NVML_PCIE_WIDTH", 16, width);
}

EXPORT Result
nvmlDeviceGetMaxPcieLinkGeneration (void *handle, unsigned int *generation)
{
  return reading (handle, "FAKE_NVML_PCIE_MAX_GENERATION", 5, generation);
}

EXPORT Result
nvmlDeviceGetMaxPcieLinkWidth (void *handle, unsigned int *width)
{
  return reading (handle, "FAKE_NVML_PCIE_MAX_WIDTH", 16, width);
}

EXPORT Result
nvmlDeviceGetPcieThroughput (void *handle, int counter, unsigned int *kb_per_second)
{
  if (counter == 0)
    return reading (handle, "FAKE_NVML_PCIE_TX", 1200, kb_per_second);
  if (counter == 1)
    return reading (handle, "FAKE_NVML_PCIE_RX", 3400, kb_per_second);
  return ERROR_INVALID_ARGUMENT;
}

EXPORT Result
nvmlDeviceGetNvLinkState (void *handle, unsigned int link, int *active)
{
  int index = index_of (handle);

  if (index < 0 || active == NULL)
    return ERROR_INVALID_ARGUMENT;
  if (index != 0)
    return ERROR_NOT_SUPPORTED;
  if (link >= N_LINKS)
    return ERROR_INVALID_ARGUMENT;
  *active = link != DOWN_LINK;
  return SUCCESS;
}
