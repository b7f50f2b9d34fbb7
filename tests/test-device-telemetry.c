/* test-device-telemetry.c: device telemetry and CugiDeviceMonitor over the
 * stand-in NVML (fake-nvml.c) and the stand-in driver's two devices
 * (fake-cuda-devices.c), whose readings the test steers through the
 * stand-in's environment variables */
#include "config.h"

#include "cugi-test-utils.h"

static CugiDevice *
device (int ordinal)
{
  g_autoptr(GError) error = NULL;
  CugiDevice *dev = cugi_device_get (ordinal, &error);

  g_assert_no_error (error);
  return dev;
}

/* Every reading, as the stand-in's defaults have it. */
static void
test_readings (void)
{
  g_autoptr(CugiDevice) dev = device (0);
  g_autoptr(GError) error = NULL;
  guint memory_percent = 0;

  g_assert_cmpuint (cugi_device_get_temperature (dev, &error), ==, 41);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_device_get_power_usage (dev, &error), ==, 123456);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_device_get_clock (dev, CUGI_DEVICE_CLOCK_SM, &error), ==, 1980);
  g_assert_cmpuint (cugi_device_get_clock (dev, CUGI_DEVICE_CLOCK_MEMORY, &error), ==, 2619);
  g_assert_cmpuint (cugi_device_get_clock (dev, CUGI_DEVICE_CLOCK_VIDEO, &error), ==, 1545);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_device_get_utilization (dev, &memory_percent, &error), ==, 37);
  g_assert_no_error (error);
  g_assert_cmpuint (memory_percent, ==, 12);
  g_assert_cmpuint (cugi_device_get_utilization (dev, NULL, &error), ==, 37);
  g_assert_no_error (error);
}

static void
test_pcie (void)
{
  g_autoptr(CugiDevice) dev = device (1);
  g_autoptr(GError) error = NULL;
  guint width = 0, max_generation = 0, max_width = 0, receive = 0;

  g_assert_cmpuint (cugi_device_get_pcie_link (dev, &width, &max_generation, &max_width, &error), ==, 4);
  g_assert_no_error (error);
  g_assert_cmpuint (width, ==, 16);
  g_assert_cmpuint (max_generation, ==, 5);
  g_assert_cmpuint (max_width, ==, 16);
  g_assert_cmpuint (cugi_device_get_pcie_throughput (dev, &receive, &error), ==, 1200);
  g_assert_no_error (error);
  g_assert_cmpuint (receive, ==, 3400);
}

/* Device 0 has four links, the third down; device 1 none, which is no error. */
static void
test_nvlink (void)
{
  g_autoptr(CugiDevice) dev0 = device (0);
  g_autoptr(CugiDevice) dev1 = device (1);
  g_autoptr(GError) error = NULL;
  g_autofree gboolean *states = NULL;
  g_autofree gboolean *none = NULL;
  guint n_links = 99;

  states = cugi_device_get_nvlink_states (dev0, &n_links, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_links, ==, 4);
  g_assert_true (states[0] && states[1] && !states[2] && states[3]);

  none = cugi_device_get_nvlink_states (dev1, &n_links, &error);
  g_assert_no_error (error);
  g_assert_null (none);
  g_assert_cmpuint (n_links, ==, 0);
}

/* More processes than the first guess holds: the list is asked for again. */
static void
test_process_memory (void)
{
  g_autoptr(CugiDevice) dev0 = device (0);
  g_autoptr(CugiDevice) dev1 = device (1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) processes = NULL;
  g_autoptr(GVariant) empty = NULL;
  GVariantIter iter;
  guint32 pid;
  guint64 used;
  guint seen = 0;

  g_setenv ("FAKE_NVML_PROCESSES", "20", TRUE);
  processes = cugi_device_get_process_memory (dev0, &error);
  g_unsetenv ("FAKE_NVML_PROCESSES");
  g_assert_no_error (error);
  g_assert_false (g_variant_is_floating (processes));
  g_assert_cmpstr (g_variant_get_type_string (processes), ==, "a{ut}");
  g_variant_iter_init (&iter, processes);
  while (g_variant_iter_next (&iter, "{ut}", &pid, &used))
    {
      g_assert_cmpuint (used, ==, (guint64) (pid - 4000 + 1) << 20);
      seen |= 1u << (pid - 4000);
    }
  g_assert_cmpuint (seen, ==, (1u << 20) - 1);

  empty = cugi_device_get_process_memory (dev1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_variant_n_children (empty), ==, 0);
}

/* A reading the device lacks, a lost GPU and a clock outside the enum are
 * errors with their codes, naming the device; the next call works again. */
static void
test_errors (void)
{
  g_autoptr(CugiDevice) dev = device (0);
  g_autoptr(GError) error = NULL;

  g_setenv ("FAKE_NVML_POWER", "unsupported", TRUE);
  g_assert_cmpuint (cugi_device_get_power_usage (dev, &error), ==, 0);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "nvmlDeviceGetPowerUsage"));
  g_assert_nonnull (strstr (error->message, "cuda:0"));
  g_assert_nonnull (strstr (error->message, "Not Supported"));
  g_clear_error (&error);

  g_setenv ("FAKE_NVML_POWER", "lost", TRUE);
  g_assert_cmpuint (cugi_device_get_power_usage (dev, &error), ==, 0);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
  g_clear_error (&error);
  g_unsetenv ("FAKE_NVML_POWER");

  g_assert_cmpuint (cugi_device_get_clock (dev, (CugiDeviceClock) 17, &error), ==, 0);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_setenv ("FAKE_NVML_PCIE_MAX_WIDTH", "lost", TRUE);
  {
    guint width = 99;

    g_assert_cmpuint (cugi_device_get_pcie_link (dev, &width, NULL, NULL, &error), ==, 0);
    g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
    g_assert_cmpuint (width, ==, 0);
    g_clear_error (&error);
  }
  g_unsetenv ("FAKE_NVML_PCIE_MAX_WIDTH");

  g_assert_cmpuint (cugi_device_get_power_usage (dev, &error), ==, 123456);
  g_assert_no_error (error);
}

/* Without NVML every telemetry call, and making a monitor, fails with
 * NOT_AVAILABLE naming the library and the variable that points at it,
 * every time; the rest of cugi works. In a process of its own, since NVML
 * is loaded once per process. */
static void
test_no_nvml (void)
{
  g_autoptr(CugiDevice) dev = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDeviceMonitor) monitor = NULL;

  if (!cugi_test_in_subprocess (60))
    return;
  g_setenv ("CUGI_LIBNVML", "/nonexistent/libnvidia-ml.so.1", TRUE);
  dev = device (0);
  g_assert_cmpuint (cugi_device_get_temperature (dev, &error), ==, 0);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
  g_assert_nonnull (strstr (error->message, "libnvidia-ml.so.1"));
  g_assert_nonnull (strstr (error->message, "CUGI_LIBNVML"));
  g_clear_error (&error);

  monitor = cugi_device_monitor_new (dev, 0, &error);
  g_assert_null (monitor);
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
  g_clear_error (&error);

  g_assert_cmpint (cugi_device_get_multiprocessor_count (dev), >, 0);
}

/* ---- the monitor ---------------------------------------------------------- */

typedef struct
{
  GPtrArray *notified;   /* property names, in order */
} Notes;

static void
on_notify (GObject    *object,
           GParamSpec *pspec,
           gpointer    data)
{
  Notes *notes = data;

  g_ptr_array_add (notes->notified, g_strdup (pspec->name));
}

/* Asserts that the properties notified since the last call are those
 * named, in any order (an update notifies them together), and forgets them. */
static void
assert_notified (GPtrArray *notified,
                 ...)
{
  g_autoptr(GPtrArray) expected = g_ptr_array_new ();
  va_list names;
  const char *name;

  va_start (names, notified);
  while ((name = va_arg (names, const char *)) != NULL)
    g_ptr_array_add (expected, (gpointer) name);
  va_end (names);
  g_assert_cmpuint (notified->len, ==, expected->len);
  for (guint i = 0; i < expected->len; i++)
    g_assert_true (g_ptr_array_find_with_equal_func (notified, expected->pdata[i], g_str_equal, NULL));
  g_ptr_array_set_size (notified, 0);
}

static CugiDeviceMonitor *
monitor_new (guint interval_ms)
{
  g_autoptr(CugiDevice) dev = device (0);
  g_autoptr(GError) error = NULL;
  CugiDeviceMonitor *monitor = cugi_device_monitor_new (dev, interval_ms, &error);

  g_assert_no_error (error);
  g_assert_true (cugi_device_monitor_get_device (monitor) == dev);
  return monitor;
}

static void
update (CugiDeviceMonitor *monitor)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_device_monitor_update (monitor, &error));
  g_assert_no_error (error);
}

/* The first reading is there once made; an update notifies what changed and
 * nothing else, and nothing when nothing changed. */
static void
test_monitor_notifies_changes (void)
{
  g_autoptr(CugiDeviceMonitor) monitor = monitor_new (0);
  g_autoptr(GPtrArray) notified = g_ptr_array_new_with_free_func (g_free);
  Notes notes = { notified };

  g_assert_cmpuint (cugi_device_monitor_get_temperature (monitor), ==, 41);
  g_assert_cmpuint (cugi_device_monitor_get_power_usage (monitor), ==, 123456);
  g_assert_cmpuint (cugi_device_monitor_get_sm_clock (monitor), ==, 1980);
  g_assert_cmpuint (cugi_device_monitor_get_memory_clock (monitor), ==, 2619);
  g_assert_cmpuint (cugi_device_monitor_get_gpu_utilization (monitor), ==, 37);
  g_assert_cmpuint (cugi_device_monitor_get_memory_utilization (monitor), ==, 12);
  g_assert_null (cugi_device_monitor_get_error (monitor));

  g_signal_connect (monitor, "notify", G_CALLBACK (on_notify), &notes);
  update (monitor);
  assert_notified (notified, NULL);

  g_setenv ("FAKE_NVML_TEMPERATURE", "77", TRUE);
  g_setenv ("FAKE_NVML_MEMORY_UTILIZATION", "90", TRUE);
  update (monitor);
  g_unsetenv ("FAKE_NVML_TEMPERATURE");
  g_unsetenv ("FAKE_NVML_MEMORY_UTILIZATION");
  assert_notified (notified, "temperature", "memory-utilization", NULL);
  g_assert_cmpuint (cugi_device_monitor_get_temperature (monitor), ==, 77);
  g_assert_cmpuint (cugi_device_monitor_get_memory_utilization (monitor), ==, 90);
  g_signal_handlers_disconnect_by_data (monitor, &notes);
}

/* A reading the device lacks reads 0 with no error; a failing poll keeps
 * the readings, sets :error (notified once), and a good poll clears it. */
static void
test_monitor_errors (void)
{
  g_autoptr(CugiDeviceMonitor) monitor = monitor_new (0);
  g_autoptr(GPtrArray) notified = g_ptr_array_new_with_free_func (g_free);
  Notes notes = { notified };
  g_autoptr(GError) error = NULL;

  g_signal_connect (monitor, "notify", G_CALLBACK (on_notify), &notes);
  g_setenv ("FAKE_NVML_POWER", "unsupported", TRUE);
  update (monitor);
  g_assert_cmpuint (cugi_device_monitor_get_power_usage (monitor), ==, 0);
  assert_notified (notified, "power-usage", NULL);
  g_unsetenv ("FAKE_NVML_POWER");

  g_setenv ("FAKE_NVML_TEMPERATURE", "lost", TRUE);
  g_setenv ("FAKE_NVML_SM_CLOCK", "1000", TRUE);
  g_assert_false (cugi_device_monitor_update (monitor, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_NOT_AVAILABLE);
  g_assert_nonnull (cugi_device_monitor_get_error (monitor));
  g_assert_cmpstr (cugi_device_monitor_get_error (monitor)->message, ==, error->message);
  g_clear_error (&error);
  /* The temperature kept, the power and the clock read. */
  g_assert_cmpuint (cugi_device_monitor_get_temperature (monitor), ==, 41);
  g_assert_cmpuint (cugi_device_monitor_get_power_usage (monitor), ==, 123456);
  g_assert_cmpuint (cugi_device_monitor_get_sm_clock (monitor), ==, 1000);
  assert_notified (notified, "power-usage", "sm-clock", "error", NULL);

  /* The same failure again is no change. */
  g_assert_false (cugi_device_monitor_update (monitor, NULL));
  assert_notified (notified, NULL);

  g_unsetenv ("FAKE_NVML_TEMPERATURE");
  g_unsetenv ("FAKE_NVML_SM_CLOCK");
  update (monitor);
  g_assert_null (cugi_device_monitor_get_error (monitor));
  assert_notified (notified, "sm-clock", "error", NULL);
  g_signal_handlers_disconnect_by_data (monitor, &notes);
}

static void
on_temperature (GObject    *object,
                GParamSpec *pspec,
                gpointer    data)
{
  gboolean *changed = data;

  *changed = TRUE;
}

/* Polls run in the thread-default main context the monitor was made in,
 * and notify there; setting the interval to 0 stops them. */
static void
test_monitor_polls_in_main_context (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(CugiDeviceMonitor) monitor = NULL;
  gboolean changed = FALSE;

  g_main_context_push_thread_default (context);
  monitor = monitor_new (5);
  g_assert_cmpuint (cugi_device_monitor_get_interval (monitor), ==, 5);
  g_signal_connect (monitor, "notify::temperature", G_CALLBACK (on_temperature), &changed);
  g_setenv ("FAKE_NVML_TEMPERATURE", "63", TRUE);
  /* Not in the global default context. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_false (changed);
  while (!changed)
    g_main_context_iteration (context, TRUE);
  g_assert_cmpuint (cugi_device_monitor_get_temperature (monitor), ==, 63);

  cugi_device_monitor_set_interval (monitor, 0);
  g_assert_cmpuint (cugi_device_monitor_get_interval (monitor), ==, 0);
  g_setenv ("FAKE_NVML_TEMPERATURE", "64", TRUE);
  while (g_main_context_iteration (context, FALSE))
    ;
  g_assert_cmpuint (cugi_device_monitor_get_temperature (monitor), ==, 63);
  g_unsetenv ("FAKE_NVML_TEMPERATURE");

  g_signal_handlers_disconnect_by_data (monitor, &changed);
  g_clear_object (&monitor);
  g_main_context_pop_thread_default (context);
}

/* A monitor dropped while its poll is pending leaves nothing to run. */
static void
test_monitor_dropped (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  CugiDeviceMonitor *monitor;

  g_main_context_push_thread_default (context);
  monitor = monitor_new (1);
  g_object_unref (monitor);
  while (g_main_context_iteration (context, FALSE))
    ;
  g_main_context_pop_thread_default (context);
}

/* cugi-info shows each device's telemetry. */
static void
test_cugi_info (void)
{
  const char *arguments[] = { NULL };
  const char *json_arguments[] = { "--json", NULL };
  g_auto (CugiTestRun) run = { 0 };
  g_auto (CugiTestRun) json = { 0 };

  cugi_test_run_cugi_info (g_getenv ("CUGI_LIBCUDA"), arguments, &run);
  cugi_test_run_assert_exit (&run, 0);
  g_assert_nonnull (strstr (run.out, "41 °C"));
  g_assert_nonnull (strstr (run.out, "123.5 W"));
  g_assert_nonnull (strstr (run.out, "SM 1980 MHz, memory 2619 MHz"));
  g_assert_nonnull (strstr (run.out, "37 % (memory 12 %)"));
  g_assert_nonnull (strstr (run.out, "Gen 4 x16 (max Gen 5 x16)"));
  g_assert_nonnull (strstr (run.out, "3 of 4 active"));

  cugi_test_run_cugi_info (g_getenv ("CUGI_LIBCUDA"), json_arguments, &json);
  cugi_test_run_assert_exit (&json, 0);
  g_assert_nonnull (strstr (json.out, "\"temperature\": 41,"));
  g_assert_nonnull (strstr (json.out, "\"power_usage_mw\": 123456,"));
  g_assert_nonnull (strstr (json.out, "\"nvlink_active\": [true, true, false, true]"));
}

int
main (int argc, char **argv)
{
  cugi_test_init (&argc, &argv);
  g_test_add_func ("/device-telemetry/readings", test_readings);
  g_test_add_func ("/device-telemetry/pcie", test_pcie);
  g_test_add_func ("/device-telemetry/nvlink", test_nvlink);
  g_test_add_func ("/device-telemetry/process-memory", test_process_memory);
  g_test_add_func ("/device-telemetry/errors", test_errors);
  g_test_add_func ("/device-telemetry/no-nvml", test_no_nvml);
  g_test_add_func ("/device-telemetry/monitor-notifies-changes", test_monitor_notifies_changes);
  g_test_add_func ("/device-telemetry/monitor-errors", test_monitor_errors);
  g_test_add_func ("/device-telemetry/monitor-polls-in-main-context", test_monitor_polls_in_main_context);
  g_test_add_func ("/device-telemetry/monitor-dropped", test_monitor_dropped);
  g_test_add_func ("/device-telemetry/cugi-info", test_cugi_info);
  return g_test_run ();
}
