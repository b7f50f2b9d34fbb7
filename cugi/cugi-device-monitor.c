/* cugi-device-monitor.c: a device's telemetry as properties, polled in the
 * main loop */
#include "config.h"

#include <string.h>

#include "cugi-private.h"

/**
 * CugiDeviceMonitor:
 *
 * A device's temperature, power, clocks and utilization as properties that
 * follow the device: every #CugiDeviceMonitor:interval milliseconds the
 * monitor reads them again (cugi_device_get_temperature() and its siblings)
 * in the thread-default main context it was made in, and emits
 * #GObject::notify for those that changed, and only for those; bind them to
 * a status panel's labels with g_object_bind_property().
 *
 * Readings the device does not offer stay 0. When a poll fails otherwise
 * (the GPU fell off the bus, say), the readings keep their last values and
 * #CugiDeviceMonitor:error says why, until a poll succeeds again.
 *
 * ```python
 * monitor = Cugi.DeviceMonitor.new(Cugi.Device.get(0), 500)
 * monitor.connect("notify::temperature",
 *                 lambda m, _: print(m.props.temperature, "°C"))
 * ```
 *
 * Since: 0.1
 */

typedef enum
{
  READING_TEMPERATURE,
  READING_POWER_USAGE,
  READING_SM_CLOCK,
  READING_MEMORY_CLOCK,
  READING_GPU_UTILIZATION,
  READING_MEMORY_UTILIZATION,
  N_READINGS
} Reading;

struct _CugiDeviceMonitor
{
  GObject       parent_instance;

  CugiDevice   *device;
  guint         interval_ms;
  guint         readings[N_READINGS];
  GError       *error;          /* why the last poll failed; NULL if it did not */
  GMainContext *main_context;   /* where the polls run */
  GSource      *poll_source;    /* NULL while interval_ms is 0 */
};

G_DEFINE_FINAL_TYPE (CugiDeviceMonitor, cugi_device_monitor, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_INTERVAL,
  PROP_ERROR,
  PROP_FIRST_READING,
  N_PROPS = PROP_FIRST_READING + N_READINGS
};

static GParamSpec *properties[N_PROPS];

/* Reads every reading into @readings, keeping what is there for those that
 * fail; a reading the device does not offer reads 0. FALSE with the first
 * other failure in @error. */
static gboolean
read_all (CugiDevice *device,
          guint      *readings,
          GError    **error)
{
  GError *errors[N_READINGS] = { NULL };
  guint values[N_READINGS] = { 0 };
  gboolean ok = TRUE;

  values[READING_TEMPERATURE] = cugi_device_get_temperature (device, &errors[READING_TEMPERATURE]);
  values[READING_POWER_USAGE] = cugi_device_get_power_usage (device, &errors[READING_POWER_USAGE]);
  values[READING_SM_CLOCK] = cugi_device_get_clock (device, CUGI_DEVICE_CLOCK_SM, &errors[READING_SM_CLOCK]);
  values[READING_MEMORY_CLOCK] = cugi_device_get_clock (device, CUGI_DEVICE_CLOCK_MEMORY,
                                                        &errors[READING_MEMORY_CLOCK]);
  values[READING_GPU_UTILIZATION] = cugi_device_get_utilization (device, &values[READING_MEMORY_UTILIZATION],
                                                                 &errors[READING_GPU_UTILIZATION]);
  if (errors[READING_GPU_UTILIZATION] != NULL)
    errors[READING_MEMORY_UTILIZATION] = g_error_copy (errors[READING_GPU_UTILIZATION]);

  for (guint i = 0; i < N_READINGS; i++)
    {
      if (errors[i] == NULL || g_error_matches (errors[i], CUGI_ERROR, CUGI_ERROR_NOT_SUPPORTED))
        readings[i] = values[i];
      else if (ok)
        {
          g_propagate_error (error, g_steal_pointer (&errors[i]));
          ok = FALSE;
        }
      g_clear_error (&errors[i]);
    }
  return ok;
}

static void
set_error (CugiDeviceMonitor *self,
           const GError      *error)
{
  if (self->error == NULL && error == NULL)
    return;
  if (self->error != NULL && error != NULL && self->error->domain == error->domain &&
      self->error->code == error->code && g_strcmp0 (self->error->message, error->message) == 0)
    return;
  g_clear_error (&self->error);
  self->error = error != NULL ? g_error_copy (error) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
}

/**
 * cugi_device_monitor_update:
 * @self: a #CugiDeviceMonitor
 * @error: return location for a #GError
 *
 * Reads the device's telemetry now, as a poll does, and emits
 * #GObject::notify for the properties that changed (in the calling thread).
 * A failure is also kept in #CugiDeviceMonitor:error.
 *
 * Returns: %TRUE if every reading the device offers was read, %FALSE with
 *   @error set otherwise
 *
 * Since: 0.1
 */
gboolean
cugi_device_monitor_update (CugiDeviceMonitor *self,
                            GError           **error)
{
  guint readings[N_READINGS];
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (CUGI_IS_DEVICE_MONITOR (self), FALSE);

  /* Made without a device when there is no default one: why not. */
  if (self->device == NULL)
    {
      g_propagate_error (error, g_error_copy (self->error));
      return FALSE;
    }
  memcpy (readings, self->readings, sizeof readings);
  read_all (self->device, readings, &local_error);

  g_object_freeze_notify (G_OBJECT (self));
  for (guint i = 0; i < N_READINGS; i++)
    if (readings[i] != self->readings[i])
      {
        self->readings[i] = readings[i];
        g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FIRST_READING + i]);
      }
  set_error (self, local_error);
  g_object_thaw_notify (G_OBJECT (self));

  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  return TRUE;
}

/* The poll holds the monitor weakly, so that dropping the last reference in
 * another thread than the main context's is safe. */
static gboolean
poll_ready (gpointer data)
{
  g_autoptr(CugiDeviceMonitor) self = g_weak_ref_get (data);

  if (self == NULL)
    return G_SOURCE_REMOVE;
  /* The failure is kept in the error property, which is what a poll has
   * to report it through. */
  cugi_device_monitor_update (self, NULL);
  return G_SOURCE_CONTINUE;
}

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

static void
restart_polling (CugiDeviceMonitor *self)
{
  GWeakRef *ref;

  if (self->poll_source != NULL)
    {
      g_source_destroy (self->poll_source);
      g_clear_pointer (&self->poll_source, g_source_unref);
    }
  if (self->interval_ms == 0)
    return;
  ref = g_new0 (GWeakRef, 1);
  g_weak_ref_init (ref, self);
  self->poll_source = g_timeout_source_new (self->interval_ms);
  g_source_set_static_name (self->poll_source, "CugiDeviceMonitor poll");
  g_source_set_callback (self->poll_source, poll_ready, ref, weak_ref_free);
  g_source_attach (self->poll_source, self->main_context);
}

static void
cugi_device_monitor_constructed (GObject *object)
{
  CugiDeviceMonitor *self = CUGI_DEVICE_MONITOR (object);

  G_OBJECT_CLASS (cugi_device_monitor_parent_class)->constructed (object);
  if (self->device == NULL)
    self->device = cugi_device_get_default (&self->error);
  if (self->device != NULL)
    restart_polling (self);
}

static void
cugi_device_monitor_dispose (GObject *object)
{
  CugiDeviceMonitor *self = CUGI_DEVICE_MONITOR (object);

  if (self->poll_source != NULL)
    {
      g_source_destroy (self->poll_source);
      g_clear_pointer (&self->poll_source, g_source_unref);
    }
  G_OBJECT_CLASS (cugi_device_monitor_parent_class)->dispose (object);
}

static void
cugi_device_monitor_finalize (GObject *object)
{
  CugiDeviceMonitor *self = CUGI_DEVICE_MONITOR (object);

  g_clear_object (&self->device);
  g_clear_error (&self->error);
  g_clear_pointer (&self->main_context, g_main_context_unref);
  G_OBJECT_CLASS (cugi_device_monitor_parent_class)->finalize (object);
}

static void
cugi_device_monitor_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  CugiDeviceMonitor *self = CUGI_DEVICE_MONITOR (object);

  switch (prop_id)
    {
    case PROP_DEVICE:
      g_value_set_object (value, self->device);
      break;
    case PROP_INTERVAL:
      g_value_set_uint (value, self->interval_ms);
      break;
    case PROP_ERROR:
      g_value_set_boxed (value, self->error);
      break;
    default:
      if (prop_id >= PROP_FIRST_READING && prop_id < N_PROPS)
        {
          g_value_set_uint (value, self->readings[prop_id - PROP_FIRST_READING]);
          break;
        }
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_device_monitor_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  CugiDeviceMonitor *self = CUGI_DEVICE_MONITOR (object);

  switch (prop_id)
    {
    case PROP_DEVICE:
      self->device = g_value_dup_object (value);
      break;
    case PROP_INTERVAL:
      cugi_device_monitor_set_interval (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cugi_device_monitor_class_init (CugiDeviceMonitorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags reading_flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->constructed = cugi_device_monitor_constructed;
  object_class->dispose = cugi_device_monitor_dispose;
  object_class->finalize = cugi_device_monitor_finalize;
  object_class->get_property = cugi_device_monitor_get_property;
  object_class->set_property = cugi_device_monitor_set_property;

  /**
   * CugiDeviceMonitor:device:
   *
   * The device watched; the default device (cugi_device_get_default())
   * when none is given.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE] =
    g_param_spec_object ("device", NULL, NULL, CUGI_TYPE_DEVICE,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * CugiDeviceMonitor:interval:
   *
   * The time between two polls, in milliseconds; 0 stops polling, leaving
   * cugi_device_monitor_update() to read the telemetry.
   *
   * Since: 0.1
   */
  properties[PROP_INTERVAL] =
    g_param_spec_uint ("interval", NULL, NULL, 0, G_MAXUINT, 1000,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * CugiDeviceMonitor:error:
   *
   * Why the last poll failed, or %NULL when it did not.
   *
   * Since: 0.1
   */
  properties[PROP_ERROR] = g_param_spec_boxed ("error", NULL, NULL, G_TYPE_ERROR, reading_flags);
  /**
   * CugiDeviceMonitor:temperature:
   *
   * The GPU's temperature in degrees Celsius (cugi_device_get_temperature()).
   *
   * Since: 0.1
   */
  properties[PROP_FIRST_READING + READING_TEMPERATURE] =
    g_param_spec_uint ("temperature", NULL, NULL, 0, G_MAXUINT, 0, reading_flags);
  /**
   * CugiDeviceMonitor:power-usage:
   *
   * The board's power draw in milliwatts (cugi_device_get_power_usage()).
   *
   * Since: 0.1
   */
  properties[PROP_FIRST_READING + READING_POWER_USAGE] =
    g_param_spec_uint ("power-usage", NULL, NULL, 0, G_MAXUINT, 0, reading_flags);
  /**
   * CugiDeviceMonitor:sm-clock:
   *
   * The multiprocessors' clock in MHz (cugi_device_get_clock()).
   *
   * Since: 0.1
   */
  properties[PROP_FIRST_READING + READING_SM_CLOCK] =
    g_param_spec_uint ("sm-clock", NULL, NULL, 0, G_MAXUINT, 0, reading_flags);
  /**
   * CugiDeviceMonitor:memory-clock:
   *
   * The memory clock in MHz (cugi_device_get_clock()).
   *
   * Since: 0.1
   */
  properties[PROP_FIRST_READING + READING_MEMORY_CLOCK] =
    g_param_spec_uint ("memory-clock", NULL, NULL, 0, G_MAXUINT, 0, reading_flags);
  /**
   * CugiDeviceMonitor:gpu-utilization:
   *
   * How busy the multiprocessors were, in percent
   * (cugi_device_get_utilization()).
   *
   * Since: 0.1
   */
  properties[PROP_FIRST_READING + READING_GPU_UTILIZATION] =
    g_param_spec_uint ("gpu-utilization", NULL, NULL, 0, 100, 0, reading_flags);
  /**
   * CugiDeviceMonitor:memory-utilization:
   *
   * How busy device memory was, in percent (cugi_device_get_utilization()).
   *
   * Since: 0.1
   */
  properties[PROP_FIRST_READING + READING_MEMORY_UTILIZATION] =
    g_param_spec_uint ("memory-utilization", NULL, NULL, 0, 100, 0, reading_flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cugi_device_monitor_init (CugiDeviceMonitor *self)
{
  self->main_context = cugi_capture_main_context ();
}

/**
 * cugi_device_monitor_new:
 * @device: (nullable): the device to watch, or %NULL for the default device
 * @interval_ms: the time between two polls in milliseconds, or 0 not to poll
 * @error: return location for a #GError
 *
 * Makes a monitor that polls @device's telemetry in the thread-default main
 * context, having read it once already: it fails as that first reading
 * does, with %CUGI_ERROR_NOT_AVAILABLE where NVML is missing.
 *
 * Returns: (transfer full): a new #CugiDeviceMonitor, or %NULL with @error set
 *
 * Since: 0.1
 */
CugiDeviceMonitor *
cugi_device_monitor_new (CugiDevice *device,
                         guint       interval_ms,
                         GError    **error)
{
  g_autoptr(CugiDevice) chosen = NULL;
  g_autoptr(CugiDeviceMonitor) self = NULL;

  g_return_val_if_fail (device == NULL || CUGI_IS_DEVICE (device), NULL);

  chosen = device != NULL ? g_object_ref (device) : cugi_device_get_default (error);
  if (chosen == NULL)
    return NULL;
  self = g_object_new (CUGI_TYPE_DEVICE_MONITOR, "device", chosen, "interval", interval_ms, NULL);
  if (!cugi_device_monitor_update (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * cugi_device_monitor_get_device: (get-property device)
 * @self: a #CugiDeviceMonitor
 *
 * Returns: (transfer none) (nullable): the value of #CugiDeviceMonitor:device,
 *   %NULL only when there is no default device to watch
 *
 * Since: 0.1
 */
CugiDevice *
cugi_device_monitor_get_device (CugiDeviceMonitor *self)
{
  g_return_val_if_fail (CUGI_IS_DEVICE_MONITOR (self), NULL);
  return self->device;
}

/**
 * cugi_device_monitor_get_interval: (get-property interval)
 * @self: a #CugiDeviceMonitor
 *
 * Returns: the value of #CugiDeviceMonitor:interval
 *
 * Since: 0.1
 */
guint
cugi_device_monitor_get_interval (CugiDeviceMonitor *self)
{
  g_return_val_if_fail (CUGI_IS_DEVICE_MONITOR (self), 0);
  return self->interval_ms;
}

/**
 * cugi_device_monitor_set_interval: (set-property interval)
 * @self: a #CugiDeviceMonitor
 * @interval_ms: the time between two polls in milliseconds, or 0 not to poll
 *
 * Sets #CugiDeviceMonitor:interval; the next poll is @interval_ms from now.
 *
 * Since: 0.1
 */
void
cugi_device_monitor_set_interval (CugiDeviceMonitor *self,
                                  guint              interval_ms)
{
  g_return_if_fail (CUGI_IS_DEVICE_MONITOR (self));

  if (self->interval_ms == interval_ms)
    return;
  self->interval_ms = interval_ms;
  /* Construction starts polling once the device is known. */
  if (self->device != NULL)
    restart_polling (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INTERVAL]);
}

static guint
get_reading (CugiDeviceMonitor *self,
             Reading            reading)
{
  g_return_val_if_fail (CUGI_IS_DEVICE_MONITOR (self), 0);
  return self->readings[reading];
}

/**
 * cugi_device_monitor_get_temperature: (get-property temperature)
 * @self: a #CugiDeviceMonitor
 *
 * Returns: the value of #CugiDeviceMonitor:temperature
 *
 * Since: 0.1
 */
guint
cugi_device_monitor_get_temperature (CugiDeviceMonitor *self)
{
  return get_reading (self, READING_TEMPERATURE);
}

/**
 * cugi_device_monitor_get_power_usage: (get-property power-usage)
 * @self: a #CugiDeviceMonitor
 *
 * Returns: the value of #CugiDeviceMonitor:power-usage
 *
 * Since: 0.1
 */
guint
cugi_device_monitor_get_power_usage (CugiDeviceMonitor *self)
{
  return get_reading (self, READING_POWER_USAGE);
}

/**
 * cugi_device_monitor_get_sm_clock: (get-property sm-clock)
 * @self: a #CugiDeviceMonitor
 *
 * Returns: the value of #CugiDeviceMonitor:sm-clock
 *
 * Since: 0.1
 */
guint
cugi_device_monitor_get_sm_clock (CugiDeviceMonitor *self)
{
  return get_reading (self, READING_SM_CLOCK);
}

/**
 * cugi_device_monitor_get_memory_clock: (get-property memory-clock)
 * @self: a #CugiDeviceMonitor
 *
 * Returns: the value of #CugiDeviceMonitor:memory-clock
 *
 * Since: 0.1
 */
guint
cugi_device_monitor_get_memory_clock (CugiDeviceMonitor *self)
{
  return get_reading (self, READING_MEMORY_CLOCK);
}

/**
 * cugi_device_monitor_get_gpu_utilization: (get-property gpu-utilization)
 * @self: a #CugiDeviceMonitor
 *
 * Returns: the value of #CugiDeviceMonitor:gpu-utilization
 *
 * Since: 0.1
 */
guint
cugi_device_monitor_get_gpu_utilization (CugiDeviceMonitor *self)
{
  return get_reading (self, READING_GPU_UTILIZATION);
}

/**
 * cugi_device_monitor_get_memory_utilization: (get-property memory-utilization)
 * @self: a #CugiDeviceMonitor
 *
 * Returns: the value of #CugiDeviceMonitor:memory-utilization
 *
 * Since: 0.1
 */
guint
cugi_device_monitor_get_memory_utilization (CugiDeviceMonitor *self)
{
  return get_reading (self, READING_MEMORY_UTILIZATION);
}

/**
 * cugi_device_monitor_get_error: (get-property error)
 * @self: a #CugiDeviceMonitor
 *
 * Returns: (transfer none) (nullable): the value of #CugiDeviceMonitor:error
 *
 * Since: 0.1
 */
const GError *
cugi_device_monitor_get_error (CugiDeviceMonitor *self)
{
  g_return_val_if_fail (CUGI_IS_DEVICE_MONITOR (self), NULL);
  return self->error;
}
