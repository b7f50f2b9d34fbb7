/* test-device.c: devices, aliases, CUGI_DEVICE and cugi-info, on a GPU */
#include "config.h"

#include "cugi-private.h"
#include <unistd.h>

#include "cugi-test-utils.h"

static CugiDevice *
get_device (int ordinal)
{
  g_autoptr(GError) error = NULL;
  CugiDevice *device = cugi_device_get (ordinal, &error);

  g_assert_no_error (error);
  g_assert_true (CUGI_IS_DEVICE (device));
  return device;
}

static int
get_count (void)
{
  g_autoptr(GError) error = NULL;
  int count = cugi_device_get_count (&error);

  g_assert_no_error (error);
  return count;
}

static void
test_count_and_list (void)
{
  g_autoptr(GError) error = NULL;
  int count = get_count ();
  GList *list;
  int ordinal = 0;

  g_assert_cmpint (count, >=, 1);
  list = cugi_device_list (&error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_length (list), ==, count);
  for (GList *l = list; l != NULL; l = l->next, ordinal++)
    {
      g_autoptr(CugiDevice) device = get_device (ordinal);

      g_assert_true (l->data == device);
      g_assert_cmpint (cugi_device_get_ordinal (l->data), ==, ordinal);
    }
  g_list_free_full (list, g_object_unref);
}

static void
test_same_object (void)
{
  g_autoptr(CugiDevice) first = get_device (0);
  g_autoptr(CugiDevice) second = get_device (0);

  g_assert_true (first == second);
}

static gpointer
get_device_in_thread (gpointer data)
{
  return get_device (0);
}

/* Threads racing for the first device all get the one object. */
static void
test_same_object_across_threads (void)
{
  g_autoptr(CugiDevice) device = get_device (0);
  GThread *threads[4];

  for (gsize i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("get-device", get_device_in_thread, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_autoptr(CugiDevice) other = g_thread_join (threads[i]);

      g_assert_true (other == device);
    }
}

static void
test_properties_match_attributes (void)
{
  const struct { const char *property; CugiDeviceAttribute attribute; } checks[] = {
    { "compute-capability-major", CUGI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR },
    { "compute-capability-minor", CUGI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR },
    { "multiprocessor-count", CUGI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT },
    { "warp-size", CUGI_DEVICE_ATTRIBUTE_WARP_SIZE },
    { "max-threads-per-block", CUGI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK },
    { "max-threads-per-multiprocessor", CUGI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR },
    { "max-shared-memory-per-block", CUGI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK },
    { "max-shared-memory-per-block-optin", CUGI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN },
    { "max-registers-per-block", CUGI_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK },
    { "l2-cache-size", CUGI_DEVICE_ATTRIBUTE_L2_CACHE_SIZE },
    { "clock-rate-khz", CUGI_DEVICE_ATTRIBUTE_CLOCK_RATE },
    { "memory-clock-rate-khz", CUGI_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE },
    { "memory-bus-width", CUGI_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH },
    { "async-engine-count", CUGI_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT },
  };
  g_autoptr(CugiDevice) device = get_device (0);
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *alias = NULL;
  guint64 total_memory = 0;
  int ordinal = -1, major = -1, minor = -1;
  gboolean integrated = TRUE;

  for (gsize i = 0; i < G_N_ELEMENTS (checks); i++)
    {
      int value = -1;
      int attribute;

      g_object_get (device, checks[i].property, &value, NULL);
      attribute = cugi_device_get_attribute (device, checks[i].attribute, &error);
      g_assert_no_error (error);
      g_test_message ("%s = %d", checks[i].property, value);
      g_assert_cmpint (value, ==, attribute);
    }

  g_object_get (device, "ordinal", &ordinal, "name", &name, "alias", &alias,
                "total-memory", &total_memory, "integrated", &integrated, NULL);
  g_assert_cmpint (ordinal, ==, 0);
  g_assert_cmpstr (alias, ==, "cuda:0");
  g_assert_cmpstr (alias, ==, cugi_device_get_alias (device));
  g_assert_cmpstr (name, ==, cugi_device_get_name (device));
  g_assert_cmpuint (strlen (name), >, 0);
  g_assert_cmpuint (total_memory, >, 0);
  g_assert_cmpuint (total_memory, ==, cugi_device_get_total_memory (device));
  g_assert_cmpint (integrated, ==,
                   cugi_device_get_attribute (device, CUGI_DEVICE_ATTRIBUTE_INTEGRATED, NULL) != 0);

  cugi_device_get_compute_capability (device, &major, &minor);
  g_assert_cmpint (major, >=, 7);
  g_assert_cmpint (minor, >=, 0);
  g_assert_cmpint (major, ==, cugi_device_get_attribute (device, CUGI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, NULL));
  g_assert_cmpint (cugi_device_get_warp_size (device), ==, 32);
  g_assert_cmpint (cugi_device_get_multiprocessor_count (device), >, 0);

  /* Read-only: setting one is a programmer error GObject reports. */
  g_assert_true ((g_object_class_find_property (G_OBJECT_GET_CLASS (device), "name")->flags & G_PARAM_WRITABLE) == 0);

  /* A value no driver knows is an error, not garbage. */
  g_assert_cmpint (cugi_device_get_attribute (device, (CugiDeviceAttribute) 100000, &error), ==, 0);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
}

static void
test_uuid (void)
{
  g_autoptr(CugiDevice) device = get_device (0);
  const char *uuid = cugi_device_get_uuid (device);

  g_test_message ("uuid %s", uuid);
  g_assert_true (g_regex_match_simple ("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
                                       uuid, 0, 0));
  g_assert_cmpstr (uuid, !=, "00000000-0000-0000-0000-000000000000");
}

static void
test_pci_bus_id (void)
{
  int count = get_count ();

  for (int ordinal = 0; ordinal < count; ordinal++)
    {
      g_autoptr(CugiDevice) device = get_device (ordinal);
      const char *pci_bus_id = cugi_device_get_pci_bus_id (device);

      g_test_message ("pci bus id %s", pci_bus_id);
      g_assert_true (g_regex_match_simple ("^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]$",
                                           pci_bus_id, G_REGEX_CASELESS, 0));
      /* Two devices are never at one address. */
      for (int other = 0; other < ordinal; other++)
        {
          g_autoptr(CugiDevice) other_device = get_device (other);

          g_assert_cmpstr (cugi_device_get_pci_bus_id (other_device), !=, pci_bus_id);
          g_assert_cmpstr (cugi_device_get_uuid (other_device), !=, cugi_device_get_uuid (device));
        }
    }
}

static void
test_aliases (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = get_device (0);
  g_autoptr(CugiDevice) by_alias = cugi_device_get_by_alias ("cuda:0", &error);
  g_autoptr(CugiDevice) by_default_alias = NULL;
  g_autoptr(CugiDevice) by_own_alias = NULL;
  const char *bad[] = { "", "cuda:", "cuda:-1", "cuda:1x", "gpu:0", "cuda:99999999999" };

  g_assert_no_error (error);
  g_assert_true (by_alias == device);

  /* main() unset CUGI_DEVICE: "cuda" is device 0. */
  by_default_alias = cugi_device_get_by_alias ("cuda", &error);
  g_assert_no_error (error);
  g_assert_true (by_default_alias == device);

  by_own_alias = cugi_device_get_by_alias (cugi_device_get_alias (device), &error);
  g_assert_no_error (error);
  g_assert_true (by_own_alias == device);

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_null (cugi_device_get_by_alias (bad[i], &error));
      cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
    }

  /* Well formed, but no such device. */
  g_assert_cmpint (get_count (), <, 99);
  g_assert_null (cugi_device_get_by_alias ("cuda:99", &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "no device 99"));
}

static void
test_out_of_range (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = g_strdup_printf ("no device 99: this machine has %d", get_count ());

  g_assert_null (cugi_device_get (99, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, expected));
  g_clear_error (&error);

  g_assert_null (cugi_device_get (get_count (), &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  g_assert_null (cugi_device_get (-1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);

  /* The library is still usable. */
  g_autoptr(CugiDevice) device = get_device (0);
  g_assert_cmpint (cugi_device_get_ordinal (device), ==, 0);
}

/* The default device, with CUGI_DEVICE set to @value. */
static CugiDevice *
get_default_for (const char *value,
                 GError    **error)
{
  g_setenv ("CUGI_DEVICE", value, TRUE);
  return cugi_device_get_default (error);
}

/* CUGI_DEVICE picks the default device; a bad value is an error naming it.
 * In a subprocess, which may change its environment. */
static void
test_default_from_environment (void)
{
  const char *good[] = { "cuda:0", "0", "cuda" };
  const char *bad[] = { "cuda:99", "99", "gpu", "cuda:x", "-1" };
  g_autoptr(CugiDevice) device0 = NULL;

  if (!cugi_test_in_subprocess (0))
    return;

  device0 = get_device (0);
  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CugiDevice) device = get_default_for (good[i], &error);
      g_autoptr(CugiDevice) by_alias = NULL;

      g_assert_no_error (error);
      g_assert_true (device == device0);
      by_alias = cugi_device_get_by_alias ("cuda", &error);
      g_assert_no_error (error);
      g_assert_true (by_alias == device0);
    }

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CugiDevice) device = get_default_for (bad[i], &error);
      g_autoptr(CugiContext) context = NULL;

      g_assert_null (device);
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
      g_test_message ("CUGI_DEVICE=%s: %s", bad[i], error->message);
      g_assert_nonnull (strstr (error->message, "CUGI_DEVICE"));
      g_assert_nonnull (strstr (error->message, bad[i]));
      g_clear_error (&error);

      /* Everything that falls back on the default says so too. */
      context = cugi_context_get_default (&error);
      g_assert_null (context);
      g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, "CUGI_DEVICE"));
    }
}

static void
test_memory_info (void)
{
  g_autoptr(CugiDevice) device = get_device (0);
  g_autoptr(GError) error = NULL;
  guint64 free_bytes, total_bytes = 0;

  free_bytes = cugi_device_get_memory_info (device, &total_bytes, &error);
  g_assert_no_error (error);
  g_test_message ("free %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT, free_bytes, total_bytes);
  g_assert_cmpuint (total_bytes, >, 0);
  g_assert_cmpuint (free_bytes, >, 0);
  g_assert_cmpuint (free_bytes, <=, total_bytes);
  g_assert_cmpuint (total_bytes, <=, cugi_device_get_total_memory (device));

  /* The total may be left out. */
  g_assert_cmpuint (cugi_device_get_memory_info (device, NULL, &error), >, 0);
  g_assert_no_error (error);
}

static void
test_peer (void)
{
  g_autoptr(CugiDevice) device = get_device (0);
  g_autoptr(GError) error = NULL;
  int count = get_count ();

  /* A device is not its own peer: FALSE, and no error. */
  g_assert_false (cugi_device_can_access_peer (device, device, &error));
  g_assert_no_error (error);

  for (int ordinal = 1; ordinal < count; ordinal++)
    {
      g_autoptr(CugiDevice) peer = get_device (ordinal);
      gboolean there = cugi_device_can_access_peer (device, peer, &error);

      g_assert_no_error (error);
      g_test_message ("cuda:0 -> cuda:%d: %s", ordinal, there ? "yes" : "no");
    }
}

static void
test_primary_context (void)
{
  g_autoptr(CugiDevice) device = get_device (0);
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) first = cugi_device_get_primary_context (device, &error);
  g_autoptr(CugiContext) second = NULL;

  g_assert_no_error (error);
  second = cugi_device_get_primary_context (device, &error);
  g_assert_no_error (error);
  g_assert_true (first == second);
  g_assert_true (cugi_context_get_is_primary (first));
  g_assert_true (cugi_context_get_device (first) == device);
}

static void
assert_names_device (const char *out,
                     CugiDevice *device,
                     gboolean    json)
{
  g_autofree char *alias = json ? g_strdup_printf ("\"alias\": \"%s\"", cugi_device_get_alias (device))
                                : g_strdup_printf ("(%s)", cugi_device_get_alias (device));
  g_autofree char *uuid = g_strdup_printf (json ? "\"uuid\": \"%s\"" : " %s\n", cugi_device_get_uuid (device));
  /* JSON escapes quotes and backslashes as C does (names are ASCII). */
  g_autofree char *name = json ? g_strescape (cugi_device_get_name (device), NULL)
                               : g_strdup (cugi_device_get_name (device));

  g_assert_nonnull (strstr (out, alias));
  g_assert_nonnull (strstr (out, uuid));
  g_assert_nonnull (strstr (out, name));
}

/* Runs cugi-info with @arguments: it succeeds and names every device. */
static void
run_report (const char * const *arguments,
            gboolean            json,
            CugiTestRun        *run)
{
  int count = get_count ();

  cugi_test_run_cugi_info (NULL, arguments, run);
  cugi_test_run_assert_exit (run, 0);
  for (int ordinal = 0; ordinal < count; ordinal++)
    {
      g_autoptr(CugiDevice) device = get_device (ordinal);

      assert_names_device (run->out, device, json);
    }
}

/* cugi-info reports every device, in text and JSON. */
static void
test_cugi_info (void)
{
  const char *text_args[] = { NULL };
  const char *json_args[] = { "--json", NULL };
  const char *one_args[] = { "--json", "--device", "0", NULL };
  const char *bad_args[] = { "--device", "99", NULL };

  {
    g_auto (CugiTestRun) run = { 0 };

    run_report (text_args, FALSE, &run);
    g_assert_true (g_str_has_prefix (run.out, "cugi "));
    g_assert_nonnull (strstr (run.out, "Peer access"));
  }
  {
    g_auto (CugiTestRun) run = { 0 };

    run_report (json_args, TRUE, &run);
    g_assert_true (g_str_has_prefix (run.out, "{\n"));
    g_assert_true (g_str_has_suffix (run.out, "}\n"));
    g_assert_nonnull (strstr (run.out, "\"peer_access\": ["));
    g_assert_null (strstr (run.out, "\"error\""));
  }
  {
    g_auto (CugiTestRun) run = { 0 };
    g_autoptr(CugiDevice) device = get_device (0);
    const char *first;

    cugi_test_run_cugi_info (NULL, one_args, &run);
    cugi_test_run_assert_exit (&run, 0);
    assert_names_device (run.out, device, TRUE);
    first = strstr (run.out, "\"ordinal\": ");
    g_assert_nonnull (first);
    g_assert_null (strstr (first + 1, "\"ordinal\": "));
    g_assert_nonnull (strstr (run.out, "\"peer_access\": [\n    [null]\n  ]"));
  }
  {
    g_auto (CugiTestRun) run = { 0 };
    const char *version_args[] = { "--version", NULL };
    g_autoptr(GError) error = NULL;
    gint driver = cugi_get_driver_version (&error);
    g_autofree char *driver_line = NULL;

    g_assert_no_error (error);
    driver_line = g_strdup_printf ("\nCUDA driver: supports CUDA %d.%d\n", driver / 1000, (driver % 1000) / 10);
    cugi_test_run_cugi_info (NULL, version_args, &run);
    cugi_test_run_assert_exit (&run, 0);
    g_assert_nonnull (strstr (run.out, driver_line));
    g_assert_null (strstr (run.out, "Device"));
  }
  {
    g_auto (CugiTestRun) run = { 0 };

    cugi_test_run_cugi_info (NULL, bad_args, &run);
    cugi_test_run_assert_exit (&run, 1);
    g_assert_true (g_str_has_prefix (run.err, "cugi-info: "));
    g_assert_nonnull (strstr (run.err, "no device 99"));
  }
}

/* Telemetry through NVML (on the stand-in driver, through the stand-in
 * NVML): every reading in its range, the link no faster than its maximum,
 * this process, which holds the primary context, using memory where
 * NVML sees this process's id (not in every container), and a monitor. */
static void
test_telemetry (void)
{
  g_autoptr(CugiDevice) dev = cugi_device_get (0, NULL);
  g_autoptr(CugiContext) context = cugi_device_get_primary_context (dev, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) processes = NULL;
  g_autoptr(CugiDeviceMonitor) monitor = NULL;
  g_autofree gboolean *links = NULL;
  guint memory_percent = 101, width = 0, max_generation = 0, max_width = 0, n_links = 99;
  guint generation;
  guint64 used = 0;

  g_assert_nonnull (context);
  g_assert_cmpuint (cugi_device_get_temperature (dev, &error), >, 0);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_device_get_temperature (dev, NULL), <, 120);
  g_assert_cmpuint (cugi_device_get_power_usage (dev, &error), >, 0);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_device_get_clock (dev, CUGI_DEVICE_CLOCK_SM, &error), >, 0);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_device_get_clock (dev, CUGI_DEVICE_CLOCK_MEMORY, &error), >, 0);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_device_get_utilization (dev, &memory_percent, &error), <=, 100);
  g_assert_no_error (error);
  g_assert_cmpuint (memory_percent, <=, 100);

  generation = cugi_device_get_pcie_link (dev, &width, &max_generation, &max_width, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (generation, >=, 1);
  g_assert_cmpuint (generation, <=, max_generation);
  g_assert_cmpuint (width, >=, 1);
  g_assert_cmpuint (width, <=, max_width);
  cugi_device_get_pcie_throughput (dev, NULL, &error);
  g_assert_no_error (error);

  links = cugi_device_get_nvlink_states (dev, &n_links, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_links, <=, 18);
  g_assert_true ((links == NULL) == (n_links == 0));

  processes = cugi_device_get_process_memory (dev, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (g_variant_get_type_string (processes), ==, "a{ut}");
  {
    GVariantIter iter;
    guint32 pid;
    guint64 bytes;

    g_variant_iter_init (&iter, processes);
    while (g_variant_iter_next (&iter, "{ut}", &pid, &bytes))
      if (pid == (guint32) getpid ())
        used = bytes;
    if (used == 0)
      g_test_message ("NVML does not list this process (pid %d): in a container, it may not", (int) getpid ());
    else
      g_assert_cmpuint (used, >, 0);
  }

  monitor = cugi_device_monitor_new (dev, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_device_monitor_get_temperature (monitor), >, 0);
  g_assert_cmpuint (cugi_device_monitor_get_sm_clock (monitor), >, 0);
  g_assert_null (cugi_device_monitor_get_error (monitor));
}

int
main (int argc, char **argv)
{
  /* The default device is device 0 here, whatever the caller's environment
   * says; the CUGI_DEVICE test sets it in a subprocess. */
  g_unsetenv ("CUGI_DEVICE");
  cugi_test_init (&argc, &argv);
  cugi_test_require_gpu ();

  g_test_add_func ("/device/count-and-list", test_count_and_list);
  g_test_add_func ("/device/same-object", test_same_object);
  g_test_add_func ("/device/same-object-across-threads", test_same_object_across_threads);
  g_test_add_func ("/device/properties-match-attributes", test_properties_match_attributes);
  g_test_add_func ("/device/uuid", test_uuid);
  g_test_add_func ("/device/pci-bus-id", test_pci_bus_id);
  g_test_add_func ("/device/aliases", test_aliases);
  g_test_add_func ("/device/out-of-range", test_out_of_range);
  g_test_add_func ("/device/default-from-environment", test_default_from_environment);
  g_test_add_func ("/device/memory-info", test_memory_info);
  g_test_add_func ("/device/peer", test_peer);
  g_test_add_func ("/device/primary-context", test_primary_context);
  g_test_add_func ("/device/cugi-info", test_cugi_info);
  g_test_add_func ("/device/telemetry", test_telemetry);
  return g_test_run ();
}
