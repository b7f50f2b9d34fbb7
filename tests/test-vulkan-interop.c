/* test-vulkan-interop.c: Vulkan and cugi sharing memory and semaphores on the
 * GPU, headless: a Vulkan buffer and image exported as opaque file
 * descriptors, imported with CugiExternalMemory, written by kernels and read
 * back by Vulkan's copies into a host-visible buffer; binary and timeline
 * semaphores exported by Vulkan, signalled by each side and waited on by the
 * other; and cugi's dma-buf export imported by Vulkan
 * (VK_EXT_external_memory_dma_buf), and Vulkan's by cugi, where the drivers
 * allow (those cases skip with the drivers' words where they refuse).
 *
 * libvulkan.so.1 is loaded at run time, as cugi loads the driver: the test
 * links no Vulkan library, only its headers. Skips, with the reason, where
 * there is no GPU, no Vulkan loader or no Vulkan driver for the CUDA device
 * (VK_DRIVER_FILES or VK_ICD_FILENAMES names an ICD's JSON file where the
 * loader does not look; without either the test names the GPU machine's). */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <gmodule.h>
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "cugi-test-utils.h"

#define N_WORDS 4096
#define WIDTH 64
#define HEIGHT 32
/* Where the GPU machine keeps NVIDIA's Vulkan driver manifest. */
#define NVIDIA_ICD "/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json"
/* How long the host waits for a Vulkan semaphore before failing. */
#define TIMEOUT_NS (30 * G_GUINT64_CONSTANT (1000000000))

/* The Vulkan entry points the test calls, by level. */
#define INSTANCE_FUNCTIONS(X) \
  X (vkDestroyInstance) X (vkEnumeratePhysicalDevices) X (vkGetPhysicalDeviceProperties2) \
  X (vkGetPhysicalDeviceQueueFamilyProperties) X (vkGetPhysicalDeviceMemoryProperties) \
  X (vkEnumerateDeviceExtensionProperties) X (vkCreateDevice) X (vkGetDeviceProcAddr)
#define DEVICE_FUNCTIONS(X) \
  X (vkDestroyDevice) X (vkGetDeviceQueue) X (vkDeviceWaitIdle) X (vkQueueSubmit) \
  X (vkQueueWaitIdle) X (vkCreateBuffer) X (vkDestroyBuffer) X (vkCreateImage) \
  X (vkDestroyImage) X (vkGetBufferMemoryRequirements) X (vkGetImageMemoryRequirements) \
  X (vkAllocateMemory) X (vkFreeMemory) X (vkBindBufferMemory) X (vkBindImageMemory) \
  X (vkMapMemory) X (vkUnmapMemory) X (vkCreateCommandPool) X (vkDestroyCommandPool) \
  X (vkAllocateCommandBuffers) X (vkResetCommandBuffer) X (vkBeginCommandBuffer) \
  X (vkEndCommandBuffer) X (vkCmdPipelineBarrier) X (vkCmdCopyBuffer) \
  X (vkCmdCopyImageToBuffer) X (vkCmdFillBuffer) X (vkCreateSemaphore) \
  X (vkDestroySemaphore) X (vkGetSemaphoreCounterValue) X (vkWaitSemaphores) \
  X (vkGetMemoryFdKHR) X (vkGetMemoryFdPropertiesKHR) X (vkGetSemaphoreFdKHR)

#define DECLARE_FUNCTION(name) PFN_##name name;

typedef struct
{
  GModule *module;
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
  INSTANCE_FUNCTIONS (DECLARE_FUNCTION)
  DEVICE_FUNCTIONS (DECLARE_FUNCTION)
  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  guint32 queue_family;
  VkQueue queue;
  VkCommandPool pool;
  VkCommandBuffer commands;
  VkPhysicalDeviceMemoryProperties memory_properties;
  gboolean has_dma_buf;
} Vulkan;

static Vulkan vk;

static const char kernels_source[] =
  "extern \"C\" __global__ void pattern (unsigned int *words, unsigned int n, unsigned int seed)\n"
  "{\n"
  "  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    words[i] = i * 2654435761u + seed;\n"
  "}\n"
  "extern \"C\" __global__ void add_one (unsigned int *dst, const unsigned int *src, unsigned int n)\n"
  "{\n"
  "  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    dst[i] = src[i] + 1;\n"
  "}\n"
  "extern \"C\" __global__ void paint (cudaSurfaceObject_t surface, int width, int height)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x < width && y < height)\n"
  "    surf2Dwrite (make_uchar4 (x, y, x ^ y, 255), surface, x * 4, y);\n"
  "}\n";

static guint32
pattern_word (guint i,
              guint32 seed)
{
  return i * 2654435761u + seed;
}

/* Fails the test on a Vulkan error, naming the call. */
#define VK_CHECK(call) \
  G_STMT_START { \
    VkResult vk_check_result = (call); \
    if (vk_check_result != VK_SUCCESS) \
      g_error ("%s failed: VkResult %d", #call, vk_check_result); \
  } G_STMT_END

/* ---- setting Vulkan up ---------------------------------------------------- */

static gboolean
has_extension (const VkExtensionProperties *extensions,
               guint32                      n_extensions,
               const char                  *name)
{
  for (guint32 i = 0; i < n_extensions; i++)
    if (strcmp (extensions[i].extensionName, name) == 0)
      return TRUE;
  return FALSE;
}

static char *
format_uuid (const guint8 *b)
{
  return g_strdup_printf ("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                          b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                          b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* The Vulkan physical device that is the CUDA device: the same UUID. */
static VkPhysicalDevice
find_cuda_device (const char *cuda_uuid)
{
  g_autofree VkPhysicalDevice *devices = NULL;
  guint32 n_devices = 0;

  VK_CHECK (vk.vkEnumeratePhysicalDevices (vk.instance, &n_devices, NULL));
  devices = g_new0 (VkPhysicalDevice, MAX (n_devices, 1));
  VK_CHECK (vk.vkEnumeratePhysicalDevices (vk.instance, &n_devices, devices));
  for (guint32 i = 0; i < n_devices; i++)
    {
      VkPhysicalDeviceIDProperties ids = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES };
      VkPhysicalDeviceProperties2 properties = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                                 .pNext = &ids };
      g_autofree char *uuid = NULL;

      vk.vkGetPhysicalDeviceProperties2 (devices[i], &properties);
      uuid = format_uuid (ids.deviceUUID);
      g_printerr ("Vulkan device %u: %s (%s)\n", i, properties.properties.deviceName, uuid);
      if (g_strcmp0 (uuid, cuda_uuid) == 0)
        return devices[i];
    }
  return VK_NULL_HANDLE;
}

static void
create_device (void)
{
  const char *wanted[] = { VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                           VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME,
                           VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME };
  g_autofree VkExtensionProperties *extensions = NULL;
  g_autofree VkQueueFamilyProperties *families = NULL;
  guint32 n_extensions = 0, n_families = 0, n_enabled = 2;
  float priority = 1.0f;
  VkPhysicalDeviceVulkan12Features features12 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                                  .timelineSemaphore = VK_TRUE };
  VkDeviceQueueCreateInfo queue_info = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                         .queueCount = 1, .pQueuePriorities = &priority };
  VkDeviceCreateInfo device_info = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &features12,
                                     .queueCreateInfoCount = 1, .pQueueCreateInfos = &queue_info,
                                     .ppEnabledExtensionNames = wanted };
  VkCommandPoolCreateInfo pool_info = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT };
  VkCommandBufferAllocateInfo commands_info = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                                .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                                .commandBufferCount = 1 };

  VK_CHECK (vk.vkEnumerateDeviceExtensionProperties (vk.physical, NULL, &n_extensions, NULL));
  extensions = g_new0 (VkExtensionProperties, MAX (n_extensions, 1));
  VK_CHECK (vk.vkEnumerateDeviceExtensionProperties (vk.physical, NULL, &n_extensions, extensions));
  for (guint i = 0; i < 2; i++)
    if (!has_extension (extensions, n_extensions, wanted[i]))
      cugi_test_skip_all ("the Vulkan device of the CUDA device has no %s", wanted[i]);
  vk.has_dma_buf = has_extension (extensions, n_extensions, wanted[2]);
  if (vk.has_dma_buf)
    n_enabled++;
  device_info.enabledExtensionCount = n_enabled;

  vk.vkGetPhysicalDeviceQueueFamilyProperties (vk.physical, &n_families, NULL);
  families = g_new0 (VkQueueFamilyProperties, MAX (n_families, 1));
  vk.vkGetPhysicalDeviceQueueFamilyProperties (vk.physical, &n_families, families);
  vk.queue_family = G_MAXUINT32;
  for (guint32 i = 0; i < n_families && vk.queue_family == G_MAXUINT32; i++)
    if (families[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
      vk.queue_family = i;
  g_assert_cmpuint (vk.queue_family, !=, G_MAXUINT32);
  queue_info.queueFamilyIndex = vk.queue_family;
  VK_CHECK (vk.vkCreateDevice (vk.physical, &device_info, NULL, &vk.device));

#define LOAD_DEVICE_FUNCTION(name) \
  vk.name = (PFN_##name) vk.vkGetDeviceProcAddr (vk.device, #name); \
  g_assert_nonnull (vk.name);
  DEVICE_FUNCTIONS (LOAD_DEVICE_FUNCTION)
#undef LOAD_DEVICE_FUNCTION

  vk.vkGetDeviceQueue (vk.device, vk.queue_family, 0, &vk.queue);
  vk.vkGetPhysicalDeviceMemoryProperties (vk.physical, &vk.memory_properties);
  pool_info.queueFamilyIndex = vk.queue_family;
  VK_CHECK (vk.vkCreateCommandPool (vk.device, &pool_info, NULL, &vk.pool));
  commands_info.commandPool = vk.pool;
  VK_CHECK (vk.vkAllocateCommandBuffers (vk.device, &commands_info, &vk.commands));
}

/* Vulkan for the CUDA device, or a skip with the reason. */
static void
vulkan_setup (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) cuda = cugi_device_get_default (&error);
  PFN_vkCreateInstance create_instance;
  VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                            .pApplicationName = "test-vulkan-interop",
                            .apiVersion = VK_API_VERSION_1_2 };
  VkInstanceCreateInfo instance_info = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                         .pApplicationInfo = &app };
  VkResult result;

  g_assert_no_error (error);
  /* The GPU machine keeps NVIDIA's ICD where the loader does not look; a
   * choice in the environment wins. */
  if (g_getenv ("VK_DRIVER_FILES") == NULL && g_getenv ("VK_ICD_FILENAMES") == NULL &&
      g_file_test (NVIDIA_ICD, G_FILE_TEST_EXISTS))
    {
      g_setenv ("VK_DRIVER_FILES", NVIDIA_ICD, TRUE);
      g_setenv ("VK_ICD_FILENAMES", NVIDIA_ICD, TRUE);
    }
  vk.module = g_module_open ("libvulkan.so.1", G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (vk.module == NULL)
    cugi_test_skip_all ("no Vulkan loader: %s", g_module_error ());
  if (!g_module_symbol (vk.module, "vkGetInstanceProcAddr", (gpointer *) &vk.vkGetInstanceProcAddr))
    cugi_test_skip_all ("the Vulkan loader has no vkGetInstanceProcAddr: %s", g_module_error ());
  create_instance = (PFN_vkCreateInstance) vk.vkGetInstanceProcAddr (NULL, "vkCreateInstance");
  g_assert_nonnull (create_instance);
  result = create_instance (&instance_info, NULL, &vk.instance);
  if (result != VK_SUCCESS)
    cugi_test_skip_all ("no Vulkan 1.2 driver (vkCreateInstance: VkResult %d; "
                        "VK_ICD_FILENAMES or VK_DRIVER_FILES names an ICD's JSON file)", result);

#define LOAD_INSTANCE_FUNCTION(name) \
  vk.name = (PFN_##name) vk.vkGetInstanceProcAddr (vk.instance, #name); \
  g_assert_nonnull (vk.name);
  INSTANCE_FUNCTIONS (LOAD_INSTANCE_FUNCTION)
#undef LOAD_INSTANCE_FUNCTION

  vk.physical = find_cuda_device (cugi_device_get_uuid (cuda));
  if (vk.physical == VK_NULL_HANDLE)
    cugi_test_skip_all ("no Vulkan device is the CUDA device %s", cugi_device_get_uuid (cuda));
  create_device ();
}

static void
vulkan_teardown (void)
{
  vk.vkDestroyCommandPool (vk.device, vk.pool, NULL);
  vk.vkDestroyDevice (vk.device, NULL);
  vk.vkDestroyInstance (vk.instance, NULL);
  g_module_close (vk.module);
}

/* ---- Vulkan objects ------------------------------------------------------- */

static guint32
memory_type (guint32               type_bits,
             VkMemoryPropertyFlags wanted)
{
  for (guint32 i = 0; i < vk.memory_properties.memoryTypeCount; i++)
    if ((type_bits & (1u << i)) && (vk.memory_properties.memoryTypes[i].propertyFlags & wanted) == wanted)
      return i;
  g_error ("no Vulkan memory type of bits 0x%x with properties 0x%x", type_bits, wanted);
}

/* A VkBuffer with its own memory: host-visible (for reading back), or
 * device-local and exportable as @handle_type (0: not exported). */
typedef struct
{
  VkBuffer buffer;
  VkDeviceMemory memory;
  VkDeviceSize allocation_size;
} VulkanBuffer;

static void
vulkan_buffer_init (VulkanBuffer                       *self,
                    VkDeviceSize                        size,
                    VkExternalMemoryHandleTypeFlagBits  handle_type)
{
  VkExternalMemoryBufferCreateInfo external = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
                                                .handleTypes = handle_type };
  VkBufferCreateInfo info = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .pNext = handle_type ? &external : NULL, .size = size,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
  VkMemoryDedicatedAllocateInfo dedicated = { .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO };
  VkExportMemoryAllocateInfo export = { .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                        .pNext = &dedicated, .handleTypes = handle_type };
  VkMemoryAllocateInfo allocate = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                    .pNext = handle_type ? &export : NULL };
  VkMemoryRequirements requirements;

  VK_CHECK (vk.vkCreateBuffer (vk.device, &info, NULL, &self->buffer));
  vk.vkGetBufferMemoryRequirements (vk.device, self->buffer, &requirements);
  dedicated.buffer = self->buffer;
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = memory_type (requirements.memoryTypeBits,
                                          handle_type ? VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
                                                      : VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  VK_CHECK (vk.vkAllocateMemory (vk.device, &allocate, NULL, &self->memory));
  VK_CHECK (vk.vkBindBufferMemory (vk.device, self->buffer, self->memory, 0));
  self->allocation_size = requirements.size;
}

static void
vulkan_buffer_clear (VulkanBuffer *self)
{
  vk.vkDestroyBuffer (vk.device, self->buffer, NULL);
  vk.vkFreeMemory (vk.device, self->memory, NULL);
}

static gint
export_memory (VkDeviceMemory                     memory,
               VkExternalMemoryHandleTypeFlagBits handle_type)
{
  VkMemoryGetFdInfoKHR info = { .sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
                                .memory = memory, .handleType = handle_type };
  int fd = -1;

  VK_CHECK (vk.vkGetMemoryFdKHR (vk.device, &info, &fd));
  g_assert_cmpint (fd, >=, 0);
  return fd;
}

/* @buffer's memory imported into cugi as a CugiBuffer of @size bytes. cugi
 * imports a duplicate of the descriptor: the test closes its own. */
static CugiBuffer *
import_buffer (VulkanBuffer *buffer,
               gsize         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiExternalMemory) memory = NULL;
  int fd = export_memory (buffer->memory, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
  CugiBuffer *view;

  memory = cugi_external_memory_new_from_fd (NULL, CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD, fd,
                                             buffer->allocation_size,
                                             CUGI_EXTERNAL_MEMORY_FLAGS_DEDICATED, &error);
  g_assert_no_error (error);
  close (fd);
  view = cugi_external_memory_get_buffer (memory, 0, size, &error);
  g_assert_no_error (error);
  return view;
}

static void
begin_commands (void)
{
  VkCommandBufferBeginInfo begin = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                     .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };

  VK_CHECK (vk.vkResetCommandBuffer (vk.commands, 0));
  VK_CHECK (vk.vkBeginCommandBuffer (vk.commands, &begin));
}

/* Submits the recorded commands, waiting for @wait (at @wait_value for a
 * timeline) and signalling @signal (at @signal_value) where given. */
static void
submit_commands (VkSemaphore wait,
                 guint64     wait_value,
                 VkSemaphore signal,
                 guint64     signal_value)
{
  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkTimelineSemaphoreSubmitInfo values = { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                           .waitSemaphoreValueCount = wait ? 1 : 0,
                                           .pWaitSemaphoreValues = &wait_value,
                                           .signalSemaphoreValueCount = signal ? 1 : 0,
                                           .pSignalSemaphoreValues = &signal_value };
  VkSubmitInfo submit = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &values,
                          .waitSemaphoreCount = wait ? 1 : 0, .pWaitSemaphores = &wait,
                          .pWaitDstStageMask = &stage,
                          .commandBufferCount = 1, .pCommandBuffers = &vk.commands,
                          .signalSemaphoreCount = signal ? 1 : 0, .pSignalSemaphores = &signal };

  VK_CHECK (vk.vkEndCommandBuffer (vk.commands));
  VK_CHECK (vk.vkQueueSubmit (vk.queue, 1, &submit, VK_NULL_HANDLE));
}

/* Vulkan copies @src into the host-visible @dst, after what CUDA did to it. */
static void
record_copy (VulkanBuffer *src,
             VulkanBuffer *dst,
             VkDeviceSize  size)
{
  VkBufferCopy region = { .size = size };

  vk.vkCmdCopyBuffer (vk.commands, src->buffer, dst->buffer, 1, &region);
}

static void
assert_pattern (VulkanBuffer *host_visible,
                guint32       seed)
{
  guint32 *words = NULL;

  VK_CHECK (vk.vkMapMemory (vk.device, host_visible->memory, 0, VK_WHOLE_SIZE, 0, (void **) &words));
  for (guint i = 0; i < N_WORDS; i++)
    if (words[i] != pattern_word (i, seed))
      g_error ("word %u is 0x%08x, not 0x%08x", i, words[i], pattern_word (i, seed));
  vk.vkUnmapMemory (vk.device, host_visible->memory);
}

/* Vulkan copies @src into the host-visible @host, which must then hold the
 * pattern of @seed. */
static void
assert_copied_pattern (VulkanBuffer *src,
                       VulkanBuffer *host,
                       guint32       seed)
{
  begin_commands ();
  record_copy (src, host, N_WORDS * 4);
  submit_commands (VK_NULL_HANDLE, 0, VK_NULL_HANDLE, 0);
  VK_CHECK (vk.vkQueueWaitIdle (vk.queue));
  assert_pattern (host, seed);
}

static void
launch_pattern (CugiKernel *kernel,
                CugiBuffer *words,
                guint32     seed,
                CugiStream *stream)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (N_WORDS / 128, 128);

  cugi_launch_config_set_stream (config, stream);
  g_assert_true (cugi_kernel_launch_with (kernel, config, &error, CUGI_ARG_BUFFER, words,
                                          CUGI_ARG_UINT32, (guint32) N_WORDS,
                                          CUGI_ARG_UINT32, seed, CUGI_ARG_END));
  g_assert_no_error (error);
}

/* ---- the cases ------------------------------------------------------------ */

/* A kernel writes a Vulkan buffer; Vulkan copies it to the host. Vulkan fills
 * it; cugi downloads what Vulkan wrote. */
static void
test_buffer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) pattern = cugi_test_kernel_new (kernels_source, "pattern");
  g_autoptr(CugiBuffer) words = NULL;
  g_autoptr(GBytes) back = NULL;
  VulkanBuffer shared, host;
  const guint32 *values;

  vulkan_buffer_init (&shared, N_WORDS * 4, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
  vulkan_buffer_init (&host, N_WORDS * 4, 0);
  words = import_buffer (&shared, N_WORDS * 4);
  g_assert_cmpuint (cugi_buffer_get_size (words), ==, N_WORDS * 4);

  launch_pattern (pattern, words, 0x1234, NULL);
  cugi_test_synchronize (NULL);
  assert_copied_pattern (&shared, &host, 0x1234);

  begin_commands ();
  vk.vkCmdFillBuffer (vk.commands, shared.buffer, 0, N_WORDS * 4, 0xc0ffee11);
  submit_commands (VK_NULL_HANDLE, 0, VK_NULL_HANDLE, 0);
  VK_CHECK (vk.vkQueueWaitIdle (vk.queue));
  back = cugi_buffer_download (words, 0, N_WORDS * 4, &error);
  g_assert_no_error (error);
  values = g_bytes_get_data (back, NULL);
  for (guint i = 0; i < N_WORDS; i++)
    g_assert_cmphex (values[i], ==, 0xc0ffee11);

  g_clear_object (&words);
  vulkan_buffer_clear (&shared);
  vulkan_buffer_clear (&host);
}

/* A VkImage (RGBA8, optimal tiling) as a CugiArray: a kernel paints it
 * through a surface; vkCmdCopyImageToBuffer brings it to the host. */
static void
test_image (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) paint = cugi_test_kernel_new (kernels_source, "paint");
  g_autoptr(CugiExternalMemory) memory = NULL;
  g_autoptr(CugiArray) pixels = NULL;
  g_autoptr(CugiSurface) surface = NULL;
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new_2d (WIDTH / 16, HEIGHT / 16, 16, 16);
  VkExternalMemoryImageCreateInfo external = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
                                               .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT };
  VkImageCreateInfo image_info = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .pNext = &external,
                                   .imageType = VK_IMAGE_TYPE_2D, .format = VK_FORMAT_R8G8B8A8_UINT,
                                   .extent = { WIDTH, HEIGHT, 1 }, .mipLevels = 1, .arrayLayers = 1,
                                   .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                                   .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_STORAGE_BIT |
                                            VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
                                   .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
                                   .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED };
  VkMemoryDedicatedAllocateInfo dedicated = { .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO };
  VkExportMemoryAllocateInfo export = { .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                        .pNext = &dedicated,
                                        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT };
  VkMemoryAllocateInfo allocate = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &export };
  VkImageMemoryBarrier barrier = { .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                                   .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                   .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                   .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
                                   .newLayout = VK_IMAGE_LAYOUT_GENERAL,
                                   .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
  VkBufferImageCopy region = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                               .imageExtent = { WIDTH, HEIGHT, 1 } };
  VkMemoryRequirements requirements;
  VkImage image;
  VkDeviceMemory image_memory;
  VulkanBuffer host;
  guint8 *texels = NULL;
  gboolean launched;
  int fd;

  VK_CHECK (vk.vkCreateImage (vk.device, &image_info, NULL, &image));
  vk.vkGetImageMemoryRequirements (vk.device, image, &requirements);
  dedicated.image = image;
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = memory_type (requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VK_CHECK (vk.vkAllocateMemory (vk.device, &allocate, NULL, &image_memory));
  VK_CHECK (vk.vkBindImageMemory (vk.device, image, image_memory, 0));
  vulkan_buffer_init (&host, WIDTH * HEIGHT * 4, 0);

  /* GENERAL before CUDA writes, so that no later transition discards them. */
  barrier.image = image;
  begin_commands ();
  vk.vkCmdPipelineBarrier (vk.commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                           0, 0, NULL, 0, NULL, 1, &barrier);
  submit_commands (VK_NULL_HANDLE, 0, VK_NULL_HANDLE, 0);
  VK_CHECK (vk.vkQueueWaitIdle (vk.queue));

  fd = export_memory (image_memory, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
  memory = cugi_external_memory_new_from_fd (NULL, CUGI_EXTERNAL_MEMORY_TYPE_OPAQUE_FD, fd, requirements.size,
                                             CUGI_EXTERNAL_MEMORY_FLAGS_DEDICATED, &error);
  g_assert_no_error (error);
  close (fd);
  pixels = cugi_external_memory_get_array (memory, 0, CUGI_ARRAY_FORMAT_UINT8, 4, WIDTH, HEIGHT, 0,
                                           CUGI_ARRAY_FLAGS_SURFACE_LDST | CUGI_ARRAY_FLAGS_COLOR_ATTACHMENT,
                                           &error);
  g_assert_no_error (error);
  surface = cugi_surface_new (pixels, &error);
  g_assert_no_error (error);
  launched = cugi_kernel_launch_with (paint, config, &error, CUGI_ARG_SURFACE, surface,
                                      CUGI_ARG_INT32, WIDTH, CUGI_ARG_INT32, HEIGHT, CUGI_ARG_END);
  g_assert_no_error (error);
  g_assert_true (launched);
  cugi_test_synchronize (NULL);

  /* Taken back from the external user (CUDA), in the same layout. */
  barrier.oldLayout = VK_IMAGE_LAYOUT_GENERAL;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  barrier.dstQueueFamilyIndex = vk.queue_family;
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  begin_commands ();
  vk.vkCmdPipelineBarrier (vk.commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                           0, 0, NULL, 0, NULL, 1, &barrier);
  vk.vkCmdCopyImageToBuffer (vk.commands, image, VK_IMAGE_LAYOUT_GENERAL, host.buffer, 1, &region);
  submit_commands (VK_NULL_HANDLE, 0, VK_NULL_HANDLE, 0);
  VK_CHECK (vk.vkQueueWaitIdle (vk.queue));

  VK_CHECK (vk.vkMapMemory (vk.device, host.memory, 0, VK_WHOLE_SIZE, 0, (void **) &texels));
  for (guint y = 0; y < HEIGHT; y++)
    for (guint x = 0; x < WIDTH; x++)
      {
        const guint8 *t = texels + (y * WIDTH + x) * 4;

        if (t[0] != x || t[1] != y || t[2] != (x ^ y) || t[3] != 255)
          g_error ("texel (%u, %u) is (%u, %u, %u, %u)", x, y, t[0], t[1], t[2], t[3]);
      }
  vk.vkUnmapMemory (vk.device, host.memory);

  g_clear_object (&surface);
  g_clear_object (&pixels);
  g_clear_object (&memory);
  vulkan_buffer_clear (&host);
  vk.vkDestroyImage (vk.device, image, NULL);
  vk.vkFreeMemory (vk.device, image_memory, NULL);
}

static VkSemaphore
semaphore_new (VkSemaphoreType type)
{
  VkSemaphoreTypeCreateInfo type_info = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                          .semaphoreType = type };
  VkExportSemaphoreCreateInfo export = { .sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
                                         .pNext = &type_info,
                                         .handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT };
  VkSemaphoreCreateInfo info = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &export };
  VkSemaphore semaphore;

  VK_CHECK (vk.vkCreateSemaphore (vk.device, &info, NULL, &semaphore));
  return semaphore;
}

static CugiExternalSemaphore *
import_semaphore (VkSemaphore               semaphore,
                  CugiExternalSemaphoreType type)
{
  g_autoptr(GError) error = NULL;
  VkSemaphoreGetFdInfoKHR info = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
                                   .semaphore = semaphore,
                                   .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT };
  CugiExternalSemaphore *imported;
  int fd = -1;

  VK_CHECK (vk.vkGetSemaphoreFdKHR (vk.device, &info, &fd));
  imported = cugi_external_semaphore_new_from_fd (NULL, type, fd, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_cmpint (cugi_external_semaphore_get_semaphore_type (imported), ==, type);
  return imported;
}

/* The buffers of a semaphore case: one Vulkan buffer shared with cugi, a
 * cugi buffer of cugi's own, a host-visible Vulkan buffer to read back. */
typedef struct
{
  VulkanBuffer shared;
  VulkanBuffer host;
  CugiBuffer *words;
  CugiBuffer *sums;
  CugiKernel *pattern;
  CugiKernel *add_one;
  CugiStream *stream;
} Exchange;

static void
exchange_init (Exchange *self)
{
  vulkan_buffer_init (&self->shared, N_WORDS * 4, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
  vulkan_buffer_init (&self->host, N_WORDS * 4, 0);
  self->words = import_buffer (&self->shared, N_WORDS * 4);
  self->sums = cugi_test_buffer_new (N_WORDS * 4);
  self->pattern = cugi_test_kernel_new (kernels_source, "pattern");
  self->add_one = cugi_test_kernel_new (kernels_source, "add_one");
  self->stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
}

static void
exchange_clear (Exchange *self)
{
  cugi_test_synchronize (self->stream);
  g_clear_object (&self->stream);
  g_clear_object (&self->pattern);
  g_clear_object (&self->add_one);
  g_clear_object (&self->sums);
  g_clear_object (&self->words);
  vulkan_buffer_clear (&self->shared);
  vulkan_buffer_clear (&self->host);
}

/* cugi adds one to what Vulkan filled the shared buffer with. */
static void
exchange_add_one (Exchange *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiLaunchConfig) config = cugi_launch_config_new (N_WORDS / 128, 128);

  cugi_launch_config_set_stream (config, self->stream);
  g_assert_true (cugi_kernel_launch_with (self->add_one, config, &error, CUGI_ARG_BUFFER, self->sums,
                                          CUGI_ARG_BUFFER, self->words,
                                          CUGI_ARG_UINT32, (guint32) N_WORDS, CUGI_ARG_END));
  g_assert_no_error (error);
}

static void
exchange_assert_sums (Exchange *self,
                      guint32   value)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) back = cugi_buffer_download (self->sums, 0, N_WORDS * 4, &error);
  const guint32 *values;

  g_assert_no_error (error);
  values = g_bytes_get_data (back, NULL);
  for (guint i = 0; i < N_WORDS; i++)
    g_assert_cmphex (values[i], ==, value);
}

/* Vulkan fills the shared buffer with @value, signalling @signal. */
static void
submit_fill (Exchange   *self,
             guint32     value,
             VkSemaphore signal,
             guint64     signal_value)
{
  begin_commands ();
  vk.vkCmdFillBuffer (vk.commands, self->shared.buffer, 0, N_WORDS * 4, value);
  submit_commands (VK_NULL_HANDLE, 0, signal, signal_value);
}

/* A binary semaphore each way: Vulkan's fill before cugi's kernel, cugi's
 * kernel before Vulkan's copy. */
static void
test_binary_semaphore (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiExternalSemaphore) semaphore = NULL;
  VkSemaphore vk_semaphore = semaphore_new (VK_SEMAPHORE_TYPE_BINARY);
  Exchange exchange;

  exchange_init (&exchange);
  semaphore = import_semaphore (vk_semaphore, CUGI_EXTERNAL_SEMAPHORE_TYPE_OPAQUE_FD);

  submit_fill (&exchange, 41, vk_semaphore, 0);
  g_assert_true (cugi_external_semaphore_wait (semaphore, 0, exchange.stream, &error));
  g_assert_no_error (error);
  exchange_add_one (&exchange);
  cugi_test_synchronize (exchange.stream);
  exchange_assert_sums (&exchange, 42);
  VK_CHECK (vk.vkQueueWaitIdle (vk.queue));

  launch_pattern (exchange.pattern, exchange.words, 0xb1, exchange.stream);
  g_assert_true (cugi_external_semaphore_signal (semaphore, 0, exchange.stream, &error));
  g_assert_no_error (error);
  begin_commands ();
  record_copy (&exchange.shared, &exchange.host, N_WORDS * 4);
  submit_commands (vk_semaphore, 0, VK_NULL_HANDLE, 0);
  VK_CHECK (vk.vkQueueWaitIdle (vk.queue));
  assert_pattern (&exchange.host, 0xb1);

  exchange_clear (&exchange);
  g_clear_object (&semaphore);
  vk.vkDestroySemaphore (vk.device, vk_semaphore, NULL);
}

static guint64
counter_value (VkSemaphore semaphore)
{
  guint64 value = 0;

  VK_CHECK (vk.vkGetSemaphoreCounterValue (vk.device, semaphore, &value));
  return value;
}

/* A timeline semaphore, each side waiting first: cugi's stream holds at a
 * value until Vulkan signals it, and Vulkan's queue until cugi does. */
static void
test_timeline_semaphore (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiExternalSemaphore) semaphore = NULL;
  VkSemaphore vk_semaphore = semaphore_new (VK_SEMAPHORE_TYPE_TIMELINE);
  VkSemaphoreWaitInfo wait_info = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                                    .semaphoreCount = 1, .pSemaphores = &vk_semaphore };
  guint64 done = 3;
  Exchange exchange;

  exchange_init (&exchange);
  semaphore = import_semaphore (vk_semaphore, CUGI_EXTERNAL_SEMAPHORE_TYPE_TIMELINE_FD);
  g_assert_cmpuint (counter_value (vk_semaphore), ==, 0);

  /* cugi waits for 1, which nobody has signalled: its stream holds. */
  g_assert_true (cugi_external_semaphore_wait (semaphore, 1, exchange.stream, &error));
  g_assert_no_error (error);
  exchange_add_one (&exchange);
  cugi_test_assert_query (exchange.stream, FALSE);
  submit_fill (&exchange, 99, vk_semaphore, 1);
  cugi_test_synchronize (exchange.stream);
  exchange_assert_sums (&exchange, 100);
  g_assert_cmpuint (counter_value (vk_semaphore), ==, 1);

  /* Vulkan waits for 2 before its copy: the queue holds until cugi's
   * kernel and signal. */
  begin_commands ();
  record_copy (&exchange.shared, &exchange.host, N_WORDS * 4);
  submit_commands (vk_semaphore, 2, vk_semaphore, done);
  g_assert_cmpuint (counter_value (vk_semaphore), ==, 1);
  launch_pattern (exchange.pattern, exchange.words, 0x71, exchange.stream);
  g_assert_true (cugi_external_semaphore_signal (semaphore, 2, exchange.stream, &error));
  g_assert_no_error (error);
  wait_info.pValues = &done;
  VK_CHECK (vk.vkWaitSemaphores (vk.device, &wait_info, TIMEOUT_NS));
  assert_pattern (&exchange.host, 0x71);
  g_assert_cmpuint (counter_value (vk_semaphore), ==, 3);

  exchange_clear (&exchange);
  g_clear_object (&semaphore);
  vk.vkDestroySemaphore (vk.device, vk_semaphore, NULL);
}

/* cugi's dma-buf export imported by Vulkan: Vulkan copies what cugi
 * uploaded. Skips with the drivers' words where one side refuses. */
static void
test_dma_buf_into_vulkan (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) pattern = cugi_test_kernel_new (kernels_source, "pattern");
  g_autoptr(CugiBuffer) words = cugi_test_buffer_new (N_WORDS * 4);
  VkMemoryFdPropertiesKHR fd_properties = { .sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR };
  VkExternalMemoryBufferCreateInfo external = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
                                                .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT };
  VkBufferCreateInfo info = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .pNext = &external,
                              .size = N_WORDS * 4, .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                              .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
  VkImportMemoryFdInfoKHR import = { .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
                                     .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT };
  VkMemoryAllocateInfo allocate = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &import };
  VkMemoryRequirements requirements;
  VulkanBuffer imported, host;
  guint64 offset = 0, size = 0;
  VkResult result;
  int fd;

  if (!vk.has_dma_buf)
    {
      g_test_skip ("the Vulkan device has no " VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
      return;
    }
  fd = cugi_buffer_export_dma_buf (words, &offset, &size, &error);
  if (fd < 0)
    {
      g_autofree char *reason = g_strdup_printf ("no dma-buf export: %s", error->message);

      g_test_skip (reason);
      return;
    }
  g_assert_cmpuint (offset + N_WORDS * 4, <=, size);
  launch_pattern (pattern, words, 0xd1, NULL);
  cugi_test_synchronize (NULL);

  result = vk.vkGetMemoryFdPropertiesKHR (vk.device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, fd,
                                          &fd_properties);
  if (result != VK_SUCCESS || fd_properties.memoryTypeBits == 0)
    {
      g_autofree char *reason = g_strdup_printf ("Vulkan takes no CUDA dma-buf (vkGetMemoryFdPropertiesKHR: "
                                                 "VkResult %d, memory types 0x%x)",
                                                 result, fd_properties.memoryTypeBits);

      close (fd);
      g_test_skip (reason);
      return;
    }
  VK_CHECK (vk.vkCreateBuffer (vk.device, &info, NULL, &imported.buffer));
  vk.vkGetBufferMemoryRequirements (vk.device, imported.buffer, &requirements);
  import.fd = fd;
  allocate.allocationSize = size;
  allocate.memoryTypeIndex = memory_type (fd_properties.memoryTypeBits & requirements.memoryTypeBits, 0);
  /* On success Vulkan owns the descriptor. */
  result = vk.vkAllocateMemory (vk.device, &allocate, NULL, &imported.memory);
  if (result != VK_SUCCESS)
    {
      g_autofree char *reason = g_strdup_printf ("Vulkan does not import CUDA's dma-buf "
                                                 "(vkAllocateMemory: VkResult %d)", result);

      close (fd);
      vk.vkDestroyBuffer (vk.device, imported.buffer, NULL);
      g_test_skip (reason);
      return;
    }
  VK_CHECK (vk.vkBindBufferMemory (vk.device, imported.buffer, imported.memory, offset));
  vulkan_buffer_init (&host, N_WORDS * 4, 0);
  assert_copied_pattern (&imported, &host, 0xd1);

  vulkan_buffer_clear (&host);
  vulkan_buffer_clear (&imported);
}

/* Vulkan's dma-buf export imported by cugi (DMA_BUF): a kernel writes it,
 * Vulkan reads it. Skips with the drivers' words where one side refuses. */
static void
test_dma_buf_from_vulkan (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiKernel) pattern = cugi_test_kernel_new (kernels_source, "pattern");
  g_autoptr(CugiExternalMemory) memory = NULL;
  g_autoptr(CugiBuffer) words = NULL;
  VulkanBuffer shared, host;
  int fd;

  if (!vk.has_dma_buf)
    {
      g_test_skip ("the Vulkan device has no " VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
      return;
    }
  vulkan_buffer_init (&shared, N_WORDS * 4, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT);
  vulkan_buffer_init (&host, N_WORDS * 4, 0);
  fd = export_memory (shared.memory, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT);
  memory = cugi_external_memory_new_from_fd (NULL, CUGI_EXTERNAL_MEMORY_TYPE_DMA_BUF, fd,
                                             shared.allocation_size, CUGI_EXTERNAL_MEMORY_FLAGS_NONE, &error);
  close (fd);
  if (memory == NULL)
    {
      g_autofree char *reason = g_strdup_printf ("the CUDA driver does not import Vulkan's dma-buf: %s",
                                                 error->message);

      g_test_skip (reason);
    }
  else
    {
      words = cugi_external_memory_get_buffer (memory, 0, N_WORDS * 4, &error);
      g_assert_no_error (error);
      launch_pattern (pattern, words, 0xd2, NULL);
      cugi_test_synchronize (NULL);
      assert_copied_pattern (&shared, &host, 0xd2);
      g_clear_object (&words);
      g_clear_object (&memory);
    }
  vulkan_buffer_clear (&shared);
  vulkan_buffer_clear (&host);
}

int
main (int    argc,
      char **argv)
{
  int status;

  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();
  vulkan_setup ();
  g_test_add_func ("/vulkan/buffer", test_buffer);
  g_test_add_func ("/vulkan/image", test_image);
  g_test_add_func ("/vulkan/binary-semaphore", test_binary_semaphore);
  g_test_add_func ("/vulkan/timeline-semaphore", test_timeline_semaphore);
  g_test_add_func ("/vulkan/dma-buf-into-vulkan", test_dma_buf_into_vulkan);
  g_test_add_func ("/vulkan/dma-buf-from-vulkan", test_dma_buf_from_vulkan);
  status = g_test_run ();
  VK_CHECK (vk.vkDeviceWaitIdle (vk.device));
  vulkan_teardown ();
  return status;
}
