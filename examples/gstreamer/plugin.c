/* plugin.c: the "cugi" GStreamer plugin: cugikernel */
#include "gstcugikernel.h"

static gboolean
plugin_init (GstPlugin *plugin)
{
  /* Nothing here touches CUDA: the element registers on any machine, and
   * says what is missing only when a pipeline starts it. */
  return GST_ELEMENT_REGISTER (cugikernel, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cugi,
                   "CUDA kernels on video frames through cugi",
                   plugin_init, PACKAGE_VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
