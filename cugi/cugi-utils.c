/* cugi-utils.c: small helpers shared by the classes */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "cugi-private.h"

GMainContext *
cugi_capture_main_context (void)
{
  return g_main_context_ref_thread_default ();
}

/* The epoch of device addresses: memory freed and contexts reset move it on,
 * and what caches addresses (kernel arguments) compares it. It lives in the
 * lowest layer because both a context (devices layer) and memory (a layer
 * above) move it. gsize, so that it never wraps around in practice. */
gsize cugi_memory_address_epoch = 1;

void
cugi_memory_invalidate_addresses (void)
{
  g_atomic_pointer_add (&cugi_memory_address_epoch, 1);
}

/* The error of the system call that just failed on @display. */
static gboolean
set_unreadable (const char  *display,
                GError     **error)
{
  int saved_errno = errno;

  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               _("“%s” cannot be read: %s"), display, g_strerror (saved_errno));
  return FALSE;
}

gboolean
cugi_check_regular_file (const char  *path,
                         GError     **error)
{
  /* What is not a regular file, as users know them. */
  static const struct
  {
    mode_t      type;
    GFileError  code;
    const char *message;
  } kinds[] = {
    { S_IFDIR, G_FILE_ERROR_ISDIR, N_("“%s” is a directory") },
    { S_IFCHR, G_FILE_ERROR_INVAL, N_("“%s” is a character device, not a regular file") },
    { S_IFBLK, G_FILE_ERROR_INVAL, N_("“%s” is a block device, not a regular file") },
    { S_IFIFO, G_FILE_ERROR_INVAL, N_("“%s” is a named pipe (FIFO), not a regular file") },
    { S_IFSOCK, G_FILE_ERROR_INVAL, N_("“%s” is a socket, not a regular file") },
  };
  g_autofree char *display = g_filename_display_name (path);
  GStatBuf info;

  if (g_stat (path, &info) != 0)
    return set_unreadable (display, error);
  if (S_ISREG (info.st_mode))
    return g_access (path, R_OK) == 0 || set_unreadable (display, error);
  for (gsize i = 0; i < G_N_ELEMENTS (kinds); i++)
    if ((info.st_mode & S_IFMT) == kinds[i].type)
      {
        g_set_error (error, G_FILE_ERROR, kinds[i].code, _(kinds[i].message), display);
        return FALSE;
      }
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("“%s” is not a regular file"), display);
  return FALSE;
}

int
cugi_dup_fd (int      fd,
             GError **error)
{
  int duplicate;
  int saved_errno;

  if (fd < 0)
    {
      g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                   _("%d is not a file descriptor"), fd);
      return -1;
    }
  duplicate = fcntl (fd, F_DUPFD_CLOEXEC, 3);
  saved_errno = errno;
  if (duplicate < 0)
    g_set_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT,
                 _("File descriptor %d cannot be used: %s"), fd, g_strerror (saved_errno));
  return duplicate;
}
