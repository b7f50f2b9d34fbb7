/* gstcugisourcefile.c: the kernel source that cugikernel's location names
 *
 * Read as cugi's kernel cache reads its entries (cugi-program-cache.c): a
 * regular file only, opened without blocking, since opening a FIFO waits for
 * a writer that may never come, and of a bounded size, since a device such as
 * /dev/zero never ends. Everything else is a GST_RESOURCE_ERROR whose
 * message names the path and what is wrong with it.
 */
#include "gstcugisourcefile.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* What a file that is not a regular one is, for a message. */
static const gchar *
file_type_name (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a directory";
  if (S_ISFIFO (mode))
    return "a FIFO";
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return "a device";
  if (S_ISSOCK (mode))
    return "a socket";
  return "a special file";
}

/* The @size bytes of @fd, NUL-terminated. */
static gchar *
read_all (int          fd,
          gsize        size,
          const gchar *location,
          GError     **error)
{
  g_autofree gchar *text = g_malloc (size + 1);
  gsize done = 0;

  while (done < size)
    {
      gssize n = read (fd, text + done, size - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
                       "Cannot read the kernel source %s: %s", location,
                       n < 0 ? g_strerror (errno) : "it became shorter while being read");
          return NULL;
        }
      done += n;
    }
  text[size] = '\0';
  return g_steal_pointer (&text);
}

gchar *
gst_cugi_read_source_file (const gchar *location,
                           GError     **error)
{
  int fd = g_open (location, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  gchar *text = NULL;
  GStatBuf info;

  if (fd < 0 || fstat (fd, &info) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, GST_RESOURCE_ERROR,
                   saved_errno == ENOENT ? GST_RESOURCE_ERROR_NOT_FOUND : GST_RESOURCE_ERROR_OPEN_READ,
                   "Cannot open the kernel source %s: %s", location, g_strerror (saved_errno));
    }
  else if (!S_ISREG (info.st_mode))
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
                 "Cannot read the kernel source %s: it is %s, not a regular file",
                 location, file_type_name (info.st_mode));
  else if (info.st_size > (gint64) GST_CUGI_MAX_SOURCE_MIB * 1024 * 1024)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
                 "Cannot read the kernel source %s: it has %" G_GINT64_FORMAT " bytes, "
                 "more than the %d MiB a kernel source may have",
                 location, (gint64) info.st_size, GST_CUGI_MAX_SOURCE_MIB);
  else
    text = read_all (fd, info.st_size, location, error);
  if (fd >= 0)
    g_close (fd, NULL);
  return text;
}
