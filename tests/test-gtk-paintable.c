/* test-gtk-paintable.c: CugiGtk.Paintable, through the public API of
 * libcugi-gtk only. Without a display (the default here) every image takes
 * the download path: its pixels, the path, the frame and host-copy counts
 * and the paintable's signals are checked, and bad layouts are refused and
 * leave it working. Run on the stand-in driver (suite cpu) and on a GPU
 * (suite gpu). With CUGI_TEST_GTK_DISPLAY=1 and a display, the paintable
 * is made for it, and the same images must come out of whichever path it
 * takes (the GL path where the display's GL is on the CUDA device). On the
 * stand-in driver with a display (Xvfb), the stand-in also takes the
 * display GL's textures, so that the GL path runs to its end there. */
#include <locale.h>
#include <string.h>

#include <cugi/gtk/cugi-gtk.h>

/* Rows of WIDTH pixels every STRIDE bytes: the padding must not show. */
#define WIDTH 7
#define HEIGHT 5
#define STRIDE 32

static GdkDisplay *display;

static guint8
channel (guint x,
         guint y,
         guint c,
         guint seed)
{
  /* Opaque: premultiplying, as GTK may, changes nothing. */
  return c == 3 ? 255 : (guint8) (x * 31 + y * 17 + c * 5 + seed);
}

/* A device buffer holding the image of @seed, its padding 0xee. */
static CugiBuffer *
image_buffer_new (guint seed)
{
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *pixels = g_malloc (STRIDE * HEIGHT);
  CugiBuffer *buffer = cugi_buffer_new (NULL, STRIDE * HEIGHT, &error);

  g_assert_no_error (error);
  memset (pixels, 0xee, STRIDE * HEIGHT);
  for (guint y = 0; y < HEIGHT; y++)
    for (guint x = 0; x < WIDTH; x++)
      for (guint c = 0; c < 4; c++)
        pixels[y * STRIDE + x * 4 + c] = channel (x, y, c, seed);
  g_assert_true (cugi_buffer_upload (buffer, 0, pixels, STRIDE * HEIGHT, &error));
  g_assert_no_error (error);
  return buffer;
}

typedef struct
{
  gboolean done;
  GError  *error;
} Shown;

static void
on_shown (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  Shown *shown = user_data;

  g_assert_true (cugi_gtk_paintable_show_buffer_finish (CUGI_GTK_PAINTABLE (source), result, &shown->error) ||
                 shown->error != NULL);
  shown->done = TRUE;
}

static void
wait_shown (Shown *shown)
{
  while (!shown->done)
    g_main_context_iteration (NULL, TRUE);
}

/* Shows @buffer's image and waits in the main loop for it. */
static gboolean
show (CugiGtkPaintable *paintable,
      CugiBuffer       *buffer,
      gsize             width,
      gsize             height,
      gsize             stride,
      CugiStream       *stream,
      GError          **error)
{
  Shown shown = { FALSE, NULL };

  cugi_gtk_paintable_show_buffer_async (paintable, buffer, width, height, stride, stream, NULL,
                                        on_shown, &shown);
  wait_shown (&shown);
  if (shown.error != NULL)
    {
      g_propagate_error (error, shown.error);
      return FALSE;
    }
  return TRUE;
}

/* The paintable's current image is the image of @seed. */
static void
assert_image (CugiGtkPaintable *paintable,
              guint             seed)
{
  g_autoptr(GdkPaintable) current = gdk_paintable_get_current_image (GDK_PAINTABLE (paintable));
  guint8 texels[WIDTH * 4 * HEIGHT];

  g_assert_true (GDK_IS_TEXTURE (current));
  g_assert_cmpint (gdk_texture_get_width (GDK_TEXTURE (current)), ==, WIDTH);
  g_assert_cmpint (gdk_texture_get_height (GDK_TEXTURE (current)), ==, HEIGHT);
  g_assert_cmpint (gdk_paintable_get_intrinsic_width (GDK_PAINTABLE (paintable)), ==, WIDTH);
  g_assert_cmpint (gdk_paintable_get_intrinsic_height (GDK_PAINTABLE (paintable)), ==, HEIGHT);
  /* GDK_MEMORY_DEFAULT: B8G8R8A8 premultiplied (little-endian ARGB). */
  gdk_texture_download (GDK_TEXTURE (current), texels, WIDTH * 4);
  for (guint y = 0; y < HEIGHT; y++)
    for (guint x = 0; x < WIDTH; x++)
      {
        const guint8 *t = texels + (y * WIDTH + x) * 4;

        g_assert_cmpuint (t[0], ==, channel (x, y, 2, seed));
        g_assert_cmpuint (t[1], ==, channel (x, y, 1, seed));
        g_assert_cmpuint (t[2], ==, channel (x, y, 0, seed));
        g_assert_cmpuint (t[3], ==, 255);
      }
}

static void
count (GObject *object,
       gpointer user_data)
{
  (*(guint *) user_data)++;
}

static void
count_notify (GObject    *object,
              GParamSpec *pspec,
              gpointer    user_data)
{
  (*(guint *) user_data)++;
}

static CugiGtkPaintable *
paintable_new (void)
{
  CugiGtkPaintable *paintable = cugi_gtk_paintable_new (display);

  g_assert_true (cugi_gtk_paintable_get_display (paintable) == display);
  return paintable;
}

static void
test_show (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGtkPaintable) paintable = paintable_new ();
  g_autoptr(CugiBuffer) first = image_buffer_new (1);
  g_autoptr(CugiBuffer) second = image_buffer_new (2);
  g_autoptr(GdkPaintable) empty = gdk_paintable_get_current_image (GDK_PAINTABLE (paintable));
  CugiGtkPaintablePath path;
  guint contents = 0, sizes = 0, paths = 0;

  g_assert_cmpint (cugi_gtk_paintable_get_path (paintable), ==, CUGI_GTK_PAINTABLE_PATH_NONE);
  g_assert_cmpint (gdk_paintable_get_intrinsic_width (GDK_PAINTABLE (paintable)), ==, 0);
  g_assert_cmpint (gdk_paintable_get_intrinsic_width (empty), ==, 0);
  g_signal_connect (paintable, "invalidate-contents", G_CALLBACK (count), &contents);
  g_signal_connect (paintable, "invalidate-size", G_CALLBACK (count), &sizes);
  g_signal_connect (paintable, "notify::path", G_CALLBACK (count_notify), &paths);

  g_assert_true (show (paintable, first, WIDTH, HEIGHT, STRIDE, NULL, &error));
  g_assert_no_error (error);
  assert_image (paintable, 1);
  path = cugi_gtk_paintable_get_path (paintable);
  g_test_message ("path: %s", path == CUGI_GTK_PAINTABLE_PATH_GL_TEXTURE ? "GL texture" : "download");
  if (display == NULL)
    g_assert_cmpint (path, ==, CUGI_GTK_PAINTABLE_PATH_DOWNLOAD);
  g_assert_cmpuint (cugi_gtk_paintable_get_frames (paintable), ==, 1);
  g_assert_cmpuint (cugi_gtk_paintable_get_host_copies (paintable), ==,
                    path == CUGI_GTK_PAINTABLE_PATH_DOWNLOAD ? 1 : 0);
  g_assert_cmpuint (contents, ==, 1);
  g_assert_cmpuint (sizes, ==, 1);
  g_assert_cmpuint (paths, ==, 1);

  /* The second image of the same size: no new size, the same path. */
  g_assert_true (show (paintable, second, WIDTH, HEIGHT, STRIDE, NULL, &error));
  g_assert_no_error (error);
  assert_image (paintable, 2);
  g_assert_cmpuint (cugi_gtk_paintable_get_frames (paintable), ==, 2);
  g_assert_cmpint (cugi_gtk_paintable_get_path (paintable), ==, path);
  g_assert_cmpuint (cugi_gtk_paintable_get_host_copies (paintable), ==,
                    path == CUGI_GTK_PAINTABLE_PATH_DOWNLOAD ? 2 : 0);
  g_assert_cmpuint (contents, ==, 2);
  g_assert_cmpuint (sizes, ==, 1);
  g_assert_cmpuint (paths, ==, 1);

  /* The first again, into memory GTK has let go of or new: still right
   * while the textures shown before are alive. */
  g_assert_true (show (paintable, first, WIDTH, HEIGHT, STRIDE, NULL, &error));
  g_assert_no_error (error);
  assert_image (paintable, 1);
}

/* Images shown one after the other without waiting: the last one stays. */
static void
test_last_wins (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGtkPaintable) paintable = paintable_new ();
  g_autoptr(CugiBuffer) first = image_buffer_new (3);
  g_autoptr(CugiBuffer) second = image_buffer_new (4);
  Shown shown = { FALSE, NULL };

  cugi_gtk_paintable_show_buffer_async (paintable, first, WIDTH, HEIGHT, STRIDE, NULL, NULL, on_shown,
                                        &shown);
  g_assert_true (show (paintable, second, WIDTH, HEIGHT, STRIDE, NULL, &error));
  g_assert_no_error (error);
  wait_shown (&shown);
  g_assert_no_error (shown.error);
  assert_image (paintable, 4);
  g_assert_cmpuint (cugi_gtk_paintable_get_frames (paintable), >=, 1);
}

static void
test_bad_layouts (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGtkPaintable) paintable = paintable_new ();
  g_autoptr(CugiBuffer) image = image_buffer_new (5);

  g_assert_false (show (paintable, image, 0, HEIGHT, STRIDE, NULL, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "cannot be shown"));
  g_clear_error (&error);
  /* Rows longer than the stride; more rows than the buffer holds. */
  g_assert_false (show (paintable, image, WIDTH, HEIGHT, WIDTH * 4 - 1, NULL, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "do not fit"));
  g_clear_error (&error);
  g_assert_false (show (paintable, image, WIDTH, HEIGHT + 1, STRIDE, NULL, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpint (cugi_gtk_paintable_get_path (paintable), ==, CUGI_GTK_PAINTABLE_PATH_NONE);
  g_assert_cmpuint (cugi_gtk_paintable_get_frames (paintable), ==, 0);

  /* Still working. */
  g_assert_true (show (paintable, image, WIDTH, HEIGHT, STRIDE, NULL, &error));
  g_assert_no_error (error);
  assert_image (paintable, 5);
}

/* A stream of another context than the buffer's: the stand-in has two
 * devices; a GPU machine with one skips. */
static void
test_stream_of_another_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGtkPaintable) paintable = paintable_new ();
  g_autoptr(CugiBuffer) image = image_buffer_new (6);
  g_autoptr(CugiDevice) device = cugi_device_get (1, NULL);
  g_autoptr(CugiContext) other = NULL;
  g_autoptr(CugiStream) stream = NULL;

  if (device == NULL)
    {
      g_test_skip ("one device only");
      return;
    }
  other = cugi_context_new (device, CUGI_CONTEXT_FLAGS_NONE, &error);
  g_assert_no_error (error);
  stream = cugi_stream_new (other, CUGI_STREAM_FLAGS_NONE, 0, &error);
  g_assert_no_error (error);
  g_assert_false (show (paintable, image, WIDTH, HEIGHT, STRIDE, stream, &error));
  g_assert_error (error, CUGI_ERROR, CUGI_ERROR_INVALID_CONTEXT);
  g_clear_error (&error);
  g_assert_true (show (paintable, image, WIDTH, HEIGHT, STRIDE, NULL, &error));
  g_assert_no_error (error);
  assert_image (paintable, 6);
}

/* The stand-in driver's function @name, or NULL where the driver is not
 * the stand-in (CUGI_LIBCUDA names it). */
static gpointer
stand_in_symbol (const char *name)
{
  static GModule *driver;
  gpointer symbol = NULL;

  if (driver == NULL && g_getenv ("CUGI_LIBCUDA") != NULL)
    driver = g_module_open (g_getenv ("CUGI_LIBCUDA"), G_MODULE_BIND_LOCAL);
  return driver != NULL && g_module_symbol (driver, name, &symbol) ? symbol : NULL;
}

/* The image of @seed in texture @name, as the stand-in keeps it. */
static void
assert_texture (unsigned int name,
                guint        seed)
{
  int (*read) (unsigned int, unsigned int, unsigned int, void *, size_t, size_t) =
    stand_in_symbol ("fake_cuda_graphics_gl_image_read");
  guint8 texels[WIDTH * 4 * HEIGHT];

  g_assert_cmpint (read (name, 0, 0, texels, WIDTH * 4, HEIGHT), ==, 0);
  for (guint y = 0; y < HEIGHT; y++)
    for (guint x = 0; x < WIDTH; x++)
      for (guint c = 0; c < 4; c++)
        g_assert_cmpuint (texels[(y * WIDTH + x) * 4 + c], ==, channel (x, y, c, seed));
}

/* The GL path to its end, on the stand-in with a display: it registers the
 * display GL's textures as CUDA registers those of GL on its own GPU
 * (tests/fake-cuda-graphics.c, "adopt"). No host copy; each image in a
 * texture of its own while GTK holds the one before, which is not written
 * again. The real GL's textures are not written: the stand-in's are read. */
static void
test_gl_path_on_the_stand_in (void)
{
  void (*adopt) (size_t, size_t, int, unsigned int) = stand_in_symbol ("fake_cuda_graphics_adopt_gl_images");
  unsigned int (*last_image) (void) = stand_in_symbol ("fake_cuda_graphics_gl_last_image");
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGtkPaintable) paintable = NULL;
  g_autoptr(CugiBuffer) first = image_buffer_new (1);
  g_autoptr(CugiBuffer) second = image_buffer_new (2);
  unsigned int first_texture;

  if (display == NULL || adopt == NULL)
    {
      g_test_skip ("needs a display and the stand-in driver");
      return;
    }
  adopt (WIDTH, HEIGHT, 0x01 /* CU_AD_FORMAT_UNSIGNED_INT8 */, 4);
  paintable = paintable_new ();

  g_assert_true (show (paintable, first, WIDTH, HEIGHT, STRIDE, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (cugi_gtk_paintable_get_path (paintable), ==, CUGI_GTK_PAINTABLE_PATH_GL_TEXTURE);
  g_assert_cmpuint (cugi_gtk_paintable_get_frames (paintable), ==, 1);
  g_assert_cmpuint (cugi_gtk_paintable_get_host_copies (paintable), ==, 0);
  first_texture = last_image ();
  g_assert_cmpuint (first_texture, !=, 0);
  assert_texture (first_texture, 1);

  g_assert_true (show (paintable, second, WIDTH, HEIGHT, STRIDE, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (cugi_gtk_paintable_get_path (paintable), ==, CUGI_GTK_PAINTABLE_PATH_GL_TEXTURE);
  g_assert_cmpuint (cugi_gtk_paintable_get_host_copies (paintable), ==, 0);
  g_assert_cmpuint (last_image (), !=, first_texture);
  assert_texture (last_image (), 2);
  assert_texture (first_texture, 1);

  adopt (0, 0, 0, 0);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;

  setlocale (LC_ALL, "C.UTF-8");
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  if (!cugi_init (&error))
    {
      g_printerr ("Skipped: no GPU usable: %s\n", error->message);
      printf ("1..0 # SKIP no GPU usable: %s\n", error->message);
      return 0;
    }
  if (g_strcmp0 (g_getenv ("CUGI_TEST_GTK_DISPLAY"), "1") == 0 && gtk_init_check ())
    display = gdk_display_get_default ();
  g_test_add_func ("/gtk-paintable/show", test_show);
  g_test_add_func ("/gtk-paintable/last-wins", test_last_wins);
  g_test_add_func ("/gtk-paintable/bad-layouts", test_bad_layouts);
  g_test_add_func ("/gtk-paintable/stream-of-another-context", test_stream_of_another_context);
  g_test_add_func ("/gtk-paintable/gl-path-on-the-stand-in", test_gl_path_on_the_stand_in);
  return g_test_run ();
}
