/* cugi-info: reports the CUDA driver, NVRTC and every device cugi can use */
#include "config.h"

#include <locale.h>

#include <glib/gi18n-lib.h>
#include <cugi/cugi.h>

/* --device not given: any number given goes to cugi_device_get(). */
#define ALL_DEVICES G_MININT

typedef enum
{
  PEER_SELF,
  PEER_YES,
  PEER_NO,
  PEER_UNKNOWN,
} PeerAccess;

/* The telemetry readings cugi-info shows, through NVML. */
typedef enum
{
  TELEMETRY_TEMPERATURE,
  TELEMETRY_POWER_USAGE,
  TELEMETRY_SM_CLOCK,
  TELEMETRY_MEMORY_CLOCK,
  TELEMETRY_GPU_UTILIZATION,
  TELEMETRY_MEMORY_UTILIZATION,
  TELEMETRY_PCIE_GENERATION,
  TELEMETRY_PCIE_WIDTH,
  TELEMETRY_PCIE_MAX_GENERATION,
  TELEMETRY_PCIE_MAX_WIDTH,
  TELEMETRY_PCIE_TRANSMIT,
  TELEMETRY_PCIE_RECEIVE,
  N_TELEMETRY
} TelemetryReading;

/* Their keys in --json. */
static const char * const telemetry_keys[N_TELEMETRY] = {
  "temperature", "power_usage_mw", "sm_clock_mhz", "memory_clock_mhz", "gpu_utilization",
  "memory_utilization", "pcie_generation", "pcie_width", "pcie_max_generation", "pcie_max_width",
  "pcie_transmit_kb_per_s", "pcie_receive_kb_per_s",
};

typedef struct
{
  CugiDevice *device;
  guint64     free_memory;
  char       *free_memory_error; /* NULL when free_memory is known */
  char       *telemetry_error;   /* NVML cannot be had: no telemetry below */
  gint64      telemetry[N_TELEMETRY]; /* -1 where the device does not tell */
  gboolean    nvlink_known;
  gboolean   *nvlink;
  guint       n_nvlink;
  GVariant   *processes;         /* a{ut}, or NULL where not known */
} DeviceReport;

typedef struct
{
  gint        nvrtc_version;
  GError     *nvrtc_error;
  gint        driver_version;
  GError     *driver_error;    /* no driver: nothing below is filled in */
  GPtrArray  *devices;         /* DeviceReport */
  PeerAccess *peer_access;     /* devices->len², row can access column */
} Report;

static void
device_report_free (gpointer data)
{
  DeviceReport *report = data;

  g_object_unref (report->device);
  g_free (report->free_memory_error);
  g_free (report->telemetry_error);
  g_free (report->nvlink);
  g_clear_pointer (&report->processes, g_variant_unref);
  g_free (report);
}

static void
report_clear (Report *report)
{
  g_clear_error (&report->nvrtc_error);
  g_clear_error (&report->driver_error);
  g_clear_pointer (&report->devices, g_ptr_array_unref);
  g_clear_pointer (&report->peer_access, g_free);
}

static char *
format_version (gint version)
{
  return g_strdup_printf ("%d.%d", version / 1000, (version % 1000) / 10);
}

static char *
format_mib (guint64 bytes)
{
  g_autofree char *readable = g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);

  return g_strdup_printf ("%" G_GUINT64_FORMAT " MiB (%s)", bytes / (1024 * 1024), readable);
}

static int
device_attribute (DeviceReport *report,
                  const char   *property)
{
  int value = 0;

  g_object_get (report->device, property, &value, NULL);
  return value;
}

/* @value, or -1 where @error says the device does not tell it. */
static gint64
telemetry_value (guint    value,
                 GError **error)
{
  gint64 result = *error == NULL ? (gint64) value : -1;

  g_clear_error (error);
  return result;
}

static void
gather_telemetry (DeviceReport *report)
{
  CugiDevice *device = report->device;
  gint64 *values = report->telemetry;
  g_autoptr(GError) error = NULL;
  guint memory_percent = 0, width = 0, max_generation = 0, max_width = 0, receive = 0;
  guint temperature = cugi_device_get_temperature (device, &error);

  /* Without NVML, or a device NVML does not know, nothing else can work. */
  if (error != NULL && !g_error_matches (error, CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED))
    {
      report->telemetry_error = g_strdup (error->message);
      return;
    }
  values[TELEMETRY_TEMPERATURE] = telemetry_value (temperature, &error);
  values[TELEMETRY_POWER_USAGE] = telemetry_value (cugi_device_get_power_usage (device, &error), &error);
  values[TELEMETRY_SM_CLOCK] = telemetry_value (cugi_device_get_clock (device, CUGI_DEVICE_CLOCK_SM, &error),
                                                &error);
  values[TELEMETRY_MEMORY_CLOCK] =
    telemetry_value (cugi_device_get_clock (device, CUGI_DEVICE_CLOCK_MEMORY, &error), &error);
  values[TELEMETRY_GPU_UTILIZATION] = cugi_device_get_utilization (device, &memory_percent, &error);
  values[TELEMETRY_MEMORY_UTILIZATION] = memory_percent;
  if (telemetry_value (0, &error) < 0)
    values[TELEMETRY_GPU_UTILIZATION] = values[TELEMETRY_MEMORY_UTILIZATION] = -1;
  values[TELEMETRY_PCIE_GENERATION] = cugi_device_get_pcie_link (device, &width, &max_generation, &max_width, &error);
  values[TELEMETRY_PCIE_WIDTH] = width;
  values[TELEMETRY_PCIE_MAX_GENERATION] = max_generation;
  values[TELEMETRY_PCIE_MAX_WIDTH] = max_width;
  if (telemetry_value (0, &error) < 0)
    for (int i = TELEMETRY_PCIE_GENERATION; i <= TELEMETRY_PCIE_MAX_WIDTH; i++)
      values[i] = -1;
  values[TELEMETRY_PCIE_TRANSMIT] = cugi_device_get_pcie_throughput (device, &receive, &error);
  values[TELEMETRY_PCIE_RECEIVE] = receive;
  if (telemetry_value (0, &error) < 0)
    values[TELEMETRY_PCIE_TRANSMIT] = values[TELEMETRY_PCIE_RECEIVE] = -1;
  report->nvlink = cugi_device_get_nvlink_states (device, &report->n_nvlink, &error);
  report->nvlink_known = telemetry_value (0, &error) == 0;
  report->processes = cugi_device_get_process_memory (device, &error);
  g_clear_error (&error);
}

/* Fills in everything but the versions; FALSE with @error set when the
 * devices asked for cannot be had. @only_ordinal is ALL_DEVICES or the one
 * device to report. */
static gboolean
gather_devices (Report  *report,
                int      only_ordinal,
                GError **error)
{
  GList *devices = NULL;
  guint n;

  if (only_ordinal != ALL_DEVICES)
    {
      CugiDevice *device = cugi_device_get (only_ordinal, error);

      if (device == NULL)
        return FALSE;
      devices = g_list_append (NULL, device);
    }
  else
    {
      devices = cugi_device_list (error);
      if (devices == NULL)
        return FALSE;
    }

  report->devices = g_ptr_array_new_with_free_func (device_report_free);
  for (GList *l = devices; l != NULL; l = l->next)
    {
      DeviceReport *device_report = g_new0 (DeviceReport, 1);
      g_autoptr(GError) memory_error = NULL;

      device_report->device = l->data; /* takes the list's reference */
      device_report->free_memory = cugi_device_get_memory_info (device_report->device, NULL, &memory_error);
      if (memory_error != NULL)
        device_report->free_memory_error = g_strdup (memory_error->message);
      gather_telemetry (device_report);
      g_ptr_array_add (report->devices, device_report);
    }
  g_list_free (devices);

  n = report->devices->len;
  report->peer_access = g_new (PeerAccess, n * n);
  for (guint row = 0; row < n; row++)
    for (guint column = 0; column < n; column++)
      {
        DeviceReport *from = g_ptr_array_index (report->devices, row);
        DeviceReport *to = g_ptr_array_index (report->devices, column);
        g_autoptr(GError) peer_error = NULL;
        PeerAccess access;

        if (row == column)
          access = PEER_SELF;
        else if (cugi_device_can_access_peer (from->device, to->device, &peer_error))
          access = PEER_YES;
        else
          access = peer_error != NULL ? PEER_UNKNOWN : PEER_NO;
        report->peer_access[row * n + column] = access;
      }
  return TRUE;
}

/* ---- text ----------------------------------------------------------------- */

static void
print_field (const char *label,
             const char *value)
{
  g_print ("  %-34s %s\n", label, value);
}

static void
print_int_field (const char *label,
                 int         value)
{
  g_autofree char *text = g_strdup_printf ("%d", value);

  print_field (label, text);
}

/* The readings are small enough to print as ints. */
static void
print_telemetry (DeviceReport *report)
{
  const gint64 *values = report->telemetry;
  g_autofree char *temperature = NULL;
  g_autofree char *power = NULL;
  g_autofree char *clocks = NULL;
  g_autofree char *utilization = NULL;
  g_autofree char *pcie = NULL;
  g_autofree char *throughput = NULL;
  g_autofree char *nvlink = NULL;
  g_autoptr(GString) processes = g_string_new (NULL);
  guint active = 0;

  if (report->telemetry_error != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("not available: %s"), report->telemetry_error);

      print_field (_("Telemetry:"), text);
      return;
    }
  temperature = values[TELEMETRY_TEMPERATURE] < 0 ? g_strdup (_("not supported"))
    : g_strdup_printf (_("%d °C"), (int) values[TELEMETRY_TEMPERATURE]);
  power = values[TELEMETRY_POWER_USAGE] < 0 ? g_strdup (_("not supported"))
    : g_strdup_printf (_("%.1f W"), values[TELEMETRY_POWER_USAGE] / 1000.0);
  /* TRANSLATORS: the clocks of the multiprocessors and of memory */
  clocks = values[TELEMETRY_SM_CLOCK] < 0 || values[TELEMETRY_MEMORY_CLOCK] < 0 ? g_strdup (_("not supported"))
    : g_strdup_printf (_("SM %d MHz, memory %d MHz"),
                            (int) values[TELEMETRY_SM_CLOCK], (int) values[TELEMETRY_MEMORY_CLOCK]);
  utilization = values[TELEMETRY_GPU_UTILIZATION] < 0 ? g_strdup (_("not supported"))
    : g_strdup_printf (_("%d %% (memory %d %%)"), (int) values[TELEMETRY_GPU_UTILIZATION],
                       (int) values[TELEMETRY_MEMORY_UTILIZATION]);
  pcie = values[TELEMETRY_PCIE_GENERATION] < 0 ? g_strdup (_("not supported"))
    /* TRANSLATORS: a PCIe link: its generation and lanes now, then the most possible */
    : g_strdup_printf (_("Gen %d x%d (max Gen %d x%d)"),
                       (int) values[TELEMETRY_PCIE_GENERATION], (int) values[TELEMETRY_PCIE_WIDTH],
                       (int) values[TELEMETRY_PCIE_MAX_GENERATION], (int) values[TELEMETRY_PCIE_MAX_WIDTH]);
  throughput = values[TELEMETRY_PCIE_TRANSMIT] < 0 ? g_strdup (_("not supported"))
    : g_strdup_printf (_("sent %d KB/s, received %d KB/s"),
                       (int) values[TELEMETRY_PCIE_TRANSMIT], (int) values[TELEMETRY_PCIE_RECEIVE]);
  for (guint i = 0; i < report->n_nvlink; i++)
    active += report->nvlink[i] ? 1 : 0;
  nvlink = !report->nvlink_known ? g_strdup (_("not supported"))
    : report->n_nvlink == 0 ? g_strdup (_("none"))
    /* TRANSLATORS: NVLink links: 17 of 18 active */
    : g_strdup_printf (_("%u of %u active"), active, report->n_nvlink);
  if (report->processes != NULL)
    {
      GVariantIter iter;
      guint32 pid;
      guint64 used;

      g_variant_iter_init (&iter, report->processes);
      while (g_variant_iter_next (&iter, "{ut}", &pid, &used))
        {
          g_autofree char *size = g_format_size_full (used, G_FORMAT_SIZE_IEC_UNITS);

          g_string_append_printf (processes, processes->len > 0 ? ", %u: %s" : "%u: %s", pid, size);
        }
      if (processes->len == 0)
        g_string_append (processes, _("none"));
    }
  else
    g_string_append (processes, _("not supported"));

  print_field (_("Temperature:"), temperature);
  print_field (_("Power:"), power);
  print_field (_("Clocks now:"), clocks);
  print_field (_("Utilization:"), utilization);
  print_field (_("PCIe link:"), pcie);
  print_field (_("PCIe throughput:"), throughput);
  print_field (_("NVLink links:"), nvlink);
  print_field (_("Processes (memory):"), processes->str);
}

static void
print_device (DeviceReport *report)
{
  CugiDevice *device = report->device;
  gint major = 0, minor = 0;
  g_autofree char *capability = NULL;
  g_autofree char *total = format_mib (cugi_device_get_total_memory (device));
  g_autofree char *free_memory = NULL;
  g_autofree char *shared = NULL;
  g_autofree char *shared_optin = NULL;
  g_autofree char *shared_text = NULL;
  g_autofree char *l2 = NULL;
  g_autofree char *clock = NULL;

  cugi_device_get_compute_capability (device, &major, &minor);
  capability = g_strdup_printf ("%d.%d (sm_%d%d)", major, minor, major, minor);
  free_memory = report->free_memory_error == NULL
    ? format_mib (report->free_memory)
    : g_strdup_printf (_("unknown: %s"), report->free_memory_error);
  shared = g_format_size_full (device_attribute (report, "max-shared-memory-per-block"),
                               G_FORMAT_SIZE_IEC_UNITS);
  shared_optin = g_format_size_full (device_attribute (report, "max-shared-memory-per-block-optin"),
                                     G_FORMAT_SIZE_IEC_UNITS);
  /* TRANSLATORS: shared memory per block, then the most a kernel can opt in to */
  shared_text = g_strdup_printf (_("%s (opt-in %s)"), shared, shared_optin);
  l2 = g_format_size_full (device_attribute (report, "l2-cache-size"), G_FORMAT_SIZE_IEC_UNITS);
  clock = g_strdup_printf (_("%d MHz"), device_attribute (report, "clock-rate-khz") / 1000);

  g_print ("\n");
  /* TRANSLATORS: device 0 (cuda:0): NVIDIA H100 80GB HBM3 */
  g_print (_("Device %d (%s): %s\n"), cugi_device_get_ordinal (device),
           cugi_device_get_alias (device), cugi_device_get_name (device));
  print_field (_("UUID:"), cugi_device_get_uuid (device));
  print_field (_("Compute capability:"), capability);
  print_field (_("Total memory:"), total);
  print_field (_("Free memory:"), free_memory);
  print_int_field (_("Multiprocessors:"), cugi_device_get_multiprocessor_count (device));
  print_int_field (_("Warp size:"), cugi_device_get_warp_size (device));
  print_int_field (_("Max threads per block:"), device_attribute (report, "max-threads-per-block"));
  print_field (_("Shared memory per block:"), shared_text);
  print_field (_("L2 cache:"), l2);
  print_field (_("Clock:"), clock);
  print_field (_("PCI bus id:"), cugi_device_get_pci_bus_id (device));
  print_telemetry (report);
}

static void
print_peer_access (Report *report)
{
  guint n = report->devices->len;
  int width = 0;

  for (guint i = 0; i < n; i++)
    {
      DeviceReport *device_report = g_ptr_array_index (report->devices, i);

      width = MAX (width, (int) strlen (cugi_device_get_alias (device_report->device)));
    }
  width += 2;

  g_print ("\n%s\n", _("Peer access (can the row's device access the column's memory):"));
  g_print ("  %-*s", width, "");
  for (guint column = 0; column < n; column++)
    {
      DeviceReport *device_report = g_ptr_array_index (report->devices, column);

      g_print ("%-*s", width, cugi_device_get_alias (device_report->device));
    }
  g_print ("\n");
  for (guint row = 0; row < n; row++)
    {
      DeviceReport *device_report = g_ptr_array_index (report->devices, row);

      g_print ("  %-*s", width, cugi_device_get_alias (device_report->device));
      for (guint column = 0; column < n; column++)
        {
          const char *cell[] = { [PEER_SELF] = "-", [PEER_YES] = _("yes"),
                                 [PEER_NO] = _("no"), [PEER_UNKNOWN] = "?" };

          g_print ("%-*s", width, cell[report->peer_access[row * n + column]]);
        }
      g_print ("\n");
    }
}

/* cugi's version, NVRTC's and, where a driver was found, the CUDA version
 * it supports. */
static void
print_versions (Report *report)
{
  g_autofree char *nvrtc = NULL;
  g_autofree char *driver = NULL;

  g_print (_("cugi %s\n"), cugi_get_version ());
  if (report->nvrtc_error == NULL)
    nvrtc = format_version (report->nvrtc_version);
  else
    nvrtc = g_strdup_printf (_("not found: %s"), report->nvrtc_error->message);
  g_print (_("NVRTC: %s\n"), nvrtc);
  if (report->driver_error != NULL)
    return;

  driver = format_version (report->driver_version);
  g_print (_("CUDA driver: supports CUDA %s\n"), driver);
}

static void
print_text (Report *report)
{
  print_versions (report);
  if (report->driver_error != NULL)
    return;

  g_print (g_dngettext (GETTEXT_PACKAGE, "%u device\n", "%u devices\n", report->devices->len),
           report->devices->len);
  for (guint i = 0; i < report->devices->len; i++)
    print_device (g_ptr_array_index (report->devices, i));
  print_peer_access (report);
}

/* ---- JSON ----------------------------------------------------------------- */

/* A minimal JSON writer: pretty-printed, arrays of scalars on one line. */
typedef struct
{
  GString *out;
  int      depth;
  int      inline_depth; /* depth of the one-line array being written, or 0 */
  gboolean need_comma;
} JsonWriter;

static void
json_append_string (GString    *out,
                    const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);

  g_string_append_c (out, '"');
  for (const char *p = valid; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      switch (c)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        default:
          if (c < 0x20 || c == 0x7f)
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_c (out, (char) c);
        }
    }
  g_string_append_c (out, '"');
}

/* Separates from the previous value and writes @key (NULL in an array). */
static void
json_next (JsonWriter *writer,
           const char *key)
{
  if (writer->need_comma)
    g_string_append (writer->out, writer->inline_depth > 0 ? ", " : ",");
  if (writer->inline_depth == 0 && writer->depth > 0)
    {
      g_string_append_c (writer->out, '\n');
      for (int i = 0; i < writer->depth; i++)
        g_string_append (writer->out, "  ");
    }
  if (key != NULL)
    {
      json_append_string (writer->out, key);
      g_string_append (writer->out, ": ");
    }
  writer->need_comma = TRUE;
}

static void
json_open (JsonWriter *writer,
           const char *key,
           char        bracket,
           gboolean    one_line)
{
  json_next (writer, key);
  g_string_append_c (writer->out, bracket);
  writer->depth++;
  if (one_line && writer->inline_depth == 0)
    writer->inline_depth = writer->depth;
  writer->need_comma = FALSE;
}

static void
json_close (JsonWriter *writer,
            char        bracket)
{
  gboolean one_line = writer->inline_depth > 0;

  if (writer->inline_depth == writer->depth)
    writer->inline_depth = 0;
  writer->depth--;
  if (!one_line && writer->need_comma)
    {
      g_string_append_c (writer->out, '\n');
      for (int i = 0; i < writer->depth; i++)
        g_string_append (writer->out, "  ");
    }
  g_string_append_c (writer->out, bracket);
  writer->need_comma = TRUE;
}

static void
json_string (JsonWriter *writer,
             const char *key,
             const char *value)
{
  json_next (writer, key);
  if (value != NULL)
    json_append_string (writer->out, value);
  else
    g_string_append (writer->out, "null");
}

static void
json_int (JsonWriter *writer,
          const char *key,
          gint64      value)
{
  json_next (writer, key);
  g_string_append_printf (writer->out, "%" G_GINT64_FORMAT, value);
}

static void
json_literal (JsonWriter *writer,
              const char *key,
              const char *literal)
{
  json_next (writer, key);
  g_string_append (writer->out, literal);
}

static void
json_telemetry (JsonWriter   *writer,
                DeviceReport *report)
{
  if (report->telemetry_error != NULL)
    {
      json_literal (writer, "telemetry", "null");
      json_string (writer, "telemetry_error", report->telemetry_error);
      return;
    }
  json_open (writer, "telemetry", '{', FALSE);
  for (int i = 0; i < N_TELEMETRY; i++)
    if (report->telemetry[i] >= 0)
      json_int (writer, telemetry_keys[i], report->telemetry[i]);
    else
      json_literal (writer, telemetry_keys[i], "null");
  if (report->nvlink_known)
    {
      json_open (writer, "nvlink_active", '[', TRUE);
      for (guint i = 0; i < report->n_nvlink; i++)
        json_literal (writer, NULL, report->nvlink[i] ? "true" : "false");
      json_close (writer, ']');
    }
  else
    json_literal (writer, "nvlink_active", "null");
  if (report->processes != NULL)
    {
      GVariantIter iter;
      guint32 pid;
      guint64 used;

      json_open (writer, "processes", '[', FALSE);
      g_variant_iter_init (&iter, report->processes);
      while (g_variant_iter_next (&iter, "{ut}", &pid, &used))
        {
          json_open (writer, NULL, '{', TRUE);
          json_int (writer, "pid", pid);
          json_int (writer, "used_memory", (gint64) used);
          json_close (writer, '}');
        }
      json_close (writer, ']');
    }
  else
    json_literal (writer, "processes", "null");
  json_close (writer, '}');
}

static void
json_device (JsonWriter   *writer,
             DeviceReport *report)
{
  CugiDevice *device = report->device;
  gint major = 0, minor = 0;
  g_autofree char *capability = NULL;
  const char *int_properties[] = {
    "multiprocessor-count", "warp-size", "max-threads-per-block", "max-threads-per-multiprocessor",
    "max-shared-memory-per-block", "max-shared-memory-per-block-optin", "max-registers-per-block",
    "l2-cache-size", "clock-rate-khz", "memory-clock-rate-khz", "memory-bus-width",
    "async-engine-count",
  };

  cugi_device_get_compute_capability (device, &major, &minor);
  capability = g_strdup_printf ("%d.%d", major, minor);

  json_open (writer, NULL, '{', FALSE);
  json_int (writer, "ordinal", cugi_device_get_ordinal (device));
  json_string (writer, "alias", cugi_device_get_alias (device));
  json_string (writer, "name", cugi_device_get_name (device));
  json_string (writer, "uuid", cugi_device_get_uuid (device));
  json_string (writer, "pci_bus_id", cugi_device_get_pci_bus_id (device));
  json_string (writer, "compute_capability", capability);
  json_int (writer, "compute_capability_major", major);
  json_int (writer, "compute_capability_minor", minor);
  json_int (writer, "total_memory", (gint64) cugi_device_get_total_memory (device));
  if (report->free_memory_error == NULL)
    json_int (writer, "free_memory", (gint64) report->free_memory);
  else
    {
      json_literal (writer, "free_memory", "null");
      json_string (writer, "free_memory_error", report->free_memory_error);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (int_properties); i++)
    {
      g_autofree char *key = g_strdelimit (g_strdup (int_properties[i]), "-", '_');

      json_int (writer, key, device_attribute (report, int_properties[i]));
    }
  json_telemetry (writer, report);
  json_close (writer, '}');
}

static void
print_json (Report *report)
{
  g_autoptr(GString) out = g_string_new (NULL);
  JsonWriter writer = { out, 0, 0, FALSE };
  g_autofree char *nvrtc = NULL;
  g_autofree char *driver = NULL;

  json_open (&writer, NULL, '{', FALSE);
  json_string (&writer, "cugi_version", cugi_get_version ());
  if (report->nvrtc_error == NULL)
    nvrtc = format_version (report->nvrtc_version);
  json_string (&writer, "nvrtc_version", nvrtc);
  if (report->nvrtc_error != NULL)
    json_string (&writer, "nvrtc_error", report->nvrtc_error->message);

  if (report->driver_error != NULL)
    {
      json_literal (&writer, "driver_version", "null");
      json_string (&writer, "error", report->driver_error->message);
    }
  else
    {
      guint n = report->devices->len;

      driver = format_version (report->driver_version);
      json_string (&writer, "driver_version", driver);
      json_open (&writer, "devices", '[', FALSE);
      for (guint i = 0; i < n; i++)
        json_device (&writer, g_ptr_array_index (report->devices, i));
      json_close (&writer, ']');

      /* peer_access[i][j]: can device i access device j's memory; null on
       * the diagonal and where the driver could not say. */
      json_open (&writer, "peer_access", '[', FALSE);
      for (guint row = 0; row < n; row++)
        {
          json_open (&writer, NULL, '[', TRUE);
          for (guint column = 0; column < n; column++)
            {
              PeerAccess access = report->peer_access[row * n + column];

              json_literal (&writer, NULL, access == PEER_YES ? "true" : access == PEER_NO ? "false" : "null");
            }
          json_close (&writer, ']');
        }
      json_close (&writer, ']');
    }
  json_close (&writer, '}');
  g_print ("%s\n", out->str);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(GError) error = NULL;
  gboolean json = FALSE;
  gboolean version = FALSE;
  int only_ordinal = ALL_DEVICES;
  Report report = { 0 };
  int status = 0;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print a JSON object instead of text"), NULL },
    { "device", 'd', 0, G_OPTION_ARG_INT, &only_ordinal, N_("Report only device N"), N_("N") },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version,
      N_("Print the versions of cugi, NVRTC and the CUDA driver, and exit"), NULL },
    G_OPTION_ENTRY_NULL
  };

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  options = g_option_context_new (NULL);
  g_option_context_set_translation_domain (options, GETTEXT_PACKAGE);
  g_option_context_set_summary (options, _("Reports the CUDA driver, NVRTC and every device cugi can use."));
  g_option_context_add_main_entries (options, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("cugi-info: %s\n", error->message);
      return 1;
    }
  if (argc > 1)
    {
      g_printerr (_("cugi-info: unexpected argument \"%s\"\n"), argv[1]);
      return 1;
    }

  /* NVRTC needs no GPU: it is reported whatever happens to the driver. */
  report.nvrtc_version = cugi_get_nvrtc_version (&report.nvrtc_error);
  report.driver_version = cugi_get_driver_version (&report.driver_error);
  /* Asking for versions succeeds without a driver: its absence is one of
   * the answers. */
  if (version)
    {
      print_versions (&report);
      if (report.driver_error != NULL)
        g_print (_("CUDA driver: not available: %s\n"), report.driver_error->message);
      report_clear (&report);
      return 0;
    }
  if (report.driver_error == NULL && !gather_devices (&report, only_ordinal, &error))
    {
      g_printerr ("cugi-info: %s\n", error->message);
      report_clear (&report);
      return 1;
    }

  if (json)
    print_json (&report);
  else
    print_text (&report);

  if (report.driver_error != NULL)
    {
      g_printerr ("cugi-info: %s\n", report.driver_error->message);
      status = 1;
    }
  report_clear (&report);
  return status;
}
