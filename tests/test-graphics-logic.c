/* test-graphics-logic.c: GL buffers, textures and renderbuffers and EGL
 * images registered with cugi, without a GPU, against the stand-in driver
 * (fake-cuda-streams with fake-cuda-graphics, whose GL objects the tests
 * make and read back as GL would): what a mapping gives, what GL sees of
 * CUDA's writes, the state a resource keeps and the errors of bad input,
 * after which the library goes on working. */
#include "config.h"

#include <string.h>

#include "cugi-test-utils.h"

#define GL_TEXTURE_2D       0x0DE1
#define GL_TEXTURE_CUBE_MAP 0x8513
#define GL_RENDERBUFFER     0x8D41

/* The stand-in's own functions (fake-cuda-graphics.c). */
static guint (*gl_buffer_new) (gsize size);
static guint (*gl_image_new) (guint target, guint layers, guint levels, gsize width, gsize height,
                              CugiArrayFormat format, guint channels);
static void (*gl_delete) (guint name);
static guint8 *(*gl_buffer_data) (guint name, gsize *size);
static int (*gl_image_read) (guint name, guint layer, guint level, gpointer out, gsize row_bytes, gsize rows);
static gpointer (*egl_image) (guint name);
static void (*set_gl_current) (int current);
static void (*get_counts) (int *resources, int *mapped, int *memories, int *mipmaps, int *semaphores);

static void
assert_resources (int resources,
                  int mapped)
{
  int live_resources, live_mapped, memories, mipmaps, semaphores;

  get_counts (&live_resources, &live_mapped, &memories, &mipmaps, &semaphores);
  g_assert_cmpint (live_resources, ==, resources);
  g_assert_cmpint (live_mapped, ==, mapped);
}

static void
map (CugiGraphicsResource *resource,
     CugiStream           *stream)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_graphics_resource_map (resource, stream, &error));
  g_assert_no_error (error);
}

static void
unmap (CugiGraphicsResource *resource,
       CugiStream           *stream)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cugi_graphics_resource_unmap (resource, stream, &error));
  g_assert_no_error (error);
}

static CugiGraphicsResource *
texture_resource_new (guint                     texture,
                      CugiGraphicsRegisterFlags flags)
{
  g_autoptr(GError) error = NULL;
  CugiGraphicsResource *resource = cugi_graphics_resource_new_for_gl_texture (NULL, texture, GL_TEXTURE_2D,
                                                                              flags, &error);

  g_assert_no_error (error);
  return resource;
}

/* A GL buffer mapped as a buffer: CUDA's writes are GL's to read once
 * unmapped, and the buffer is freed by the unmap. */
static void
test_gl_buffer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (256, 7);
  g_autoptr(CugiGraphicsResource) resource = NULL;
  g_autoptr(CugiBuffer) buffer = NULL;
  guint name = gl_buffer_new (256);
  guint notified = 0;
  gsize gl_size = 0;
  const guint8 *gl_data;

  resource = cugi_graphics_resource_new_for_gl_buffer (NULL, name, CUGI_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD,
                                                       &error);
  g_assert_no_error (error);
  assert_resources (1, 0);
  g_assert_cmpint (cugi_graphics_resource_get_kind (resource), ==, CUGI_GRAPHICS_RESOURCE_KIND_GL_BUFFER);
  g_assert_cmpint (cugi_graphics_resource_get_flags (resource), ==, CUGI_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD);
  g_signal_connect (resource, "notify::mapped", G_CALLBACK (cugi_test_count_notify), &notified);

  /* Nothing to reach before a map, nothing to unmap. */
  g_assert_null (cugi_graphics_resource_get_buffer (resource, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "not mapped");
  cugi_test_assert_fails (cugi_graphics_resource_unmap (resource, stream, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "not mapped");

  map (resource, stream);
  g_assert_true (cugi_graphics_resource_is_mapped (resource));
  g_assert_cmpuint (notified, ==, 1);
  assert_resources (1, 1);
  cugi_test_assert_fails (cugi_graphics_resource_map (resource, stream, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "mapped already");
  g_assert_null (cugi_graphics_resource_get_array (resource, 0, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "get_buffer");

  buffer = cugi_graphics_resource_get_buffer (resource, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_size (buffer), ==, 256);
  g_assert_true (cugi_buffer_upload (buffer, 0, g_bytes_get_data (pattern, NULL), 256, &error));
  g_assert_no_error (error);

  unmap (resource, stream);
  g_assert_false (cugi_graphics_resource_is_mapped (resource));
  g_assert_cmpuint (notified, ==, 2);
  assert_resources (1, 0);
  gl_data = gl_buffer_data (name, &gl_size);
  g_assert_cmpmem (gl_data, gl_size, g_bytes_get_data (pattern, NULL), 256);

  /* The unmap freed the buffer: using it is an error, not a crash. */
  g_assert_true (cugi_buffer_is_freed (buffer));
  cugi_test_assert_fails (cugi_buffer_upload (buffer, 0, g_bytes_get_data (pattern, NULL), 16, &error),
                          &error, CUGI_ERROR_INVALID_STATE, "freed");

  /* Mapped again, as many times as wanted. */
  map (resource, stream);
  g_clear_object (&buffer);
  buffer = cugi_graphics_resource_get_buffer (resource, &error);
  g_assert_no_error (error);
  unmap (resource, stream);

  g_clear_object (&buffer);
  g_clear_object (&resource);
  assert_resources (0, 0);
  gl_delete (name);
}

/* A mapped buffer keeps its resource registered; a resource finalized
 * while mapped is unmapped and unregistered. */
static void
test_lifetime (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGraphicsResource) resource = NULL;
  g_autoptr(CugiBuffer) buffer = NULL;
  guint name = gl_buffer_new (64);

  resource = cugi_graphics_resource_new_for_gl_buffer (NULL, name, CUGI_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  map (resource, NULL);
  buffer = cugi_graphics_resource_get_buffer (resource, &error);
  g_assert_no_error (error);
  g_clear_object (&resource);
  assert_resources (1, 1);
  cugi_test_settle (NULL);
  g_clear_object (&buffer);
  assert_resources (0, 0);
  gl_delete (name);
}

/* A texture's layers and levels as arrays: their shape is the texture's,
 * what is uploaded GL reads back, and the flags of the registration reach
 * the arrays (a surface of one). */
static void
test_gl_texture (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGraphicsResource) resource = NULL;
  g_autoptr(CugiArray) base = NULL;
  g_autoptr(CugiArray) level = NULL;
  g_autoptr(CugiSurface) surface = NULL;
  g_autoptr(GBytes) pattern = cugi_test_pattern_new (16 * 8 * 4, 3);
  guint name = gl_image_new (GL_TEXTURE_2D, 1, 2, 16, 8, CUGI_ARRAY_FORMAT_UINT8, 4);
  guint8 seen[16 * 8 * 4];

  resource = texture_resource_new (name, CUGI_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST);
  g_assert_cmpint (cugi_graphics_resource_get_kind (resource), ==, CUGI_GRAPHICS_RESOURCE_KIND_GL_TEXTURE);
  g_assert_null (cugi_graphics_resource_get_array (resource, 0, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "not mapped");

  map (resource, NULL);
  g_assert_null (cugi_graphics_resource_get_buffer (resource, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "get_array");
  base = cugi_graphics_resource_get_array (resource, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_array_get_width (base), ==, 16);
  g_assert_cmpuint (cugi_array_get_height (base), ==, 8);
  g_assert_cmpuint (cugi_array_get_depth (base), ==, 0);
  g_assert_cmpint (cugi_array_get_format (base), ==, CUGI_ARRAY_FORMAT_UINT8);
  g_assert_cmpuint (cugi_array_get_channels (base), ==, 4);
  g_assert_true (cugi_array_get_flags (base) & CUGI_ARRAY_FLAGS_SURFACE_LDST);
  level = cugi_graphics_resource_get_array (resource, 0, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_array_get_width (level), ==, 8);
  g_assert_cmpuint (cugi_array_get_height (level), ==, 4);
  /* A layer or level the texture lacks is the driver's to refuse. */
  g_assert_null (cugi_graphics_resource_get_array (resource, 1, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "cuGraphicsSubResourceGetMappedArray");
  g_assert_null (cugi_graphics_resource_get_array (resource, 0, 2, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "cuGraphicsSubResourceGetMappedArray");

  g_assert_true (cugi_array_upload (base, 0, 0, 0, g_bytes_get_data (pattern, NULL), g_bytes_get_size (pattern),
                                    16, 8, 1, &error));
  g_assert_no_error (error);
  surface = cugi_surface_new (base, &error);
  g_assert_no_error (error);

  unmap (resource, NULL);
  g_assert_cmpint (gl_image_read (name, 0, 0, seen, 16 * 4, 8), ==, 0);
  g_assert_cmpmem (seen, sizeof seen, g_bytes_get_data (pattern, NULL), g_bytes_get_size (pattern));
  g_assert_true (cugi_array_is_freed (base));
  g_assert_true (cugi_array_is_freed (level));
  g_assert_null (cugi_array_download (base, 0, 0, 0, 1, 1, 1, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "freed");
  g_assert_null (cugi_surface_new (level, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "freed");

  g_clear_object (&surface);
  g_clear_object (&base);
  g_clear_object (&level);
  g_clear_object (&resource);
  assert_resources (0, 0);
  gl_delete (name);
}

/* Renderbuffers and cube maps: the targets the driver registers, each
 * through its own constructor. */
static void
test_renderbuffer_and_cube_map (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGraphicsResource) resource = NULL;
  g_autoptr(CugiArray) face = NULL;
  guint renderbuffer = gl_image_new (GL_RENDERBUFFER, 1, 1, 4, 4, CUGI_ARRAY_FORMAT_FLOAT, 1);
  guint cube = gl_image_new (GL_TEXTURE_CUBE_MAP, 6, 1, 8, 8, CUGI_ARRAY_FORMAT_HALF, 2);

  g_assert_null (cugi_graphics_resource_new_for_gl_texture (NULL, renderbuffer, GL_RENDERBUFFER,
                                                            CUGI_GRAPHICS_REGISTER_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "new_for_gl_renderbuffer");
  resource = cugi_graphics_resource_new_for_gl_renderbuffer (NULL, renderbuffer,
                                                             CUGI_GRAPHICS_REGISTER_FLAGS_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_graphics_resource_get_kind (resource), ==, CUGI_GRAPHICS_RESOURCE_KIND_GL_RENDERBUFFER);
  map (resource, NULL);
  face = cugi_graphics_resource_get_array (resource, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_array_get_format (face), ==, CUGI_ARRAY_FORMAT_FLOAT);
  g_assert_false (cugi_array_get_flags (face) & CUGI_ARRAY_FLAGS_SURFACE_LDST);
  unmap (resource, NULL);
  g_clear_object (&face);
  g_clear_object (&resource);

  /* The driver checks that the target is the texture's. */
  g_assert_null (cugi_graphics_resource_new_for_gl_texture (NULL, cube, GL_TEXTURE_2D,
                                                            CUGI_GRAPHICS_REGISTER_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "cuGraphicsGLRegisterImage");
  resource = cugi_graphics_resource_new_for_gl_texture (NULL, cube, GL_TEXTURE_CUBE_MAP,
                                                        CUGI_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER, &error);
  g_assert_no_error (error);
  map (resource, NULL);
  face = cugi_graphics_resource_get_array (resource, 5, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_array_get_channels (face), ==, 2);
  g_assert_true (cugi_array_get_flags (face) & CUGI_ARRAY_FLAGS_TEXTURE_GATHER);
  g_clear_object (&face);
  g_clear_object (&resource);
  assert_resources (0, 0);
  gl_delete (renderbuffer);
  gl_delete (cube);
}

/* EGL images of a texture and of a buffer, which map as what they are. */
static void
test_egl_image (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGraphicsResource) resource = NULL;
  g_autoptr(CugiArray) array = NULL;
  g_autoptr(CugiBuffer) buffer = NULL;
  guint texture = gl_image_new (GL_TEXTURE_2D, 1, 1, 4, 2, CUGI_ARRAY_FORMAT_UINT8, 4);
  guint linear = gl_buffer_new (128);

  g_assert_null (cugi_graphics_resource_new_for_egl_image (NULL, 0, CUGI_GRAPHICS_REGISTER_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "EGL image");

  resource = cugi_graphics_resource_new_for_egl_image (NULL, GPOINTER_TO_SIZE (egl_image (texture)),
                                                       CUGI_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cugi_graphics_resource_get_kind (resource), ==, CUGI_GRAPHICS_RESOURCE_KIND_EGL_IMAGE);
  /* The driver maps no EGL image (it is CUDA's from the registration on):
   * cugi's map and unmap are its own, and views need a map all the same. */
  g_assert_null (cugi_graphics_resource_get_array (resource, 0, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "not mapped");
  map (resource, NULL);
  g_assert_null (cugi_graphics_resource_get_buffer (resource, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "get_array");
  array = cugi_graphics_resource_get_array (resource, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_array_get_width (array), ==, 4);
  g_assert_null (cugi_graphics_resource_get_array (resource, 1, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, NULL);
  unmap (resource, NULL);
  g_assert_true (cugi_graphics_resource_map (resource, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&array);
  g_clear_object (&resource);

  resource = cugi_graphics_resource_new_for_egl_image (NULL, GPOINTER_TO_SIZE (egl_image (linear)),
                                                       CUGI_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  map (resource, NULL);
  g_assert_null (cugi_graphics_resource_get_array (resource, 0, 0, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_STATE, "get_buffer");
  buffer = cugi_graphics_resource_get_buffer (resource, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cugi_buffer_get_size (buffer), ==, 128);
  unmap (resource, NULL);
  g_clear_object (&buffer);
  g_clear_object (&resource);
  assert_resources (0, 0);
  gl_delete (texture);
  gl_delete (linear);
}

/* Bad input is told before the driver is asked, where cugi can tell it,
 * and by the driver's error otherwise; the library goes on working. */
static void
test_bad_input (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiGraphicsResource) resource = NULL;
  guint buffer = gl_buffer_new (16);
  guint texture = gl_image_new (GL_TEXTURE_2D, 1, 1, 2, 2, CUGI_ARRAY_FORMAT_UINT8, 1);

  g_assert_null (cugi_graphics_resource_new_for_gl_buffer (NULL, 0, CUGI_GRAPHICS_REGISTER_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "0 is the name of no GL buffer");
  g_assert_null (cugi_graphics_resource_new_for_gl_buffer (NULL, buffer, CUGI_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST,
                                                           &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "for images");
  g_assert_null (cugi_graphics_resource_new_for_gl_buffer (NULL, buffer,
                                                           CUGI_GRAPHICS_REGISTER_FLAGS_READ_ONLY |
                                                           CUGI_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "exclude each other");
  g_assert_null (cugi_graphics_resource_new_for_gl_buffer (NULL, buffer, 1 << 6, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "unknown flags");
  g_assert_null (cugi_graphics_resource_new_for_gl_texture (NULL, texture, 0x1234,
                                                            CUGI_GRAPHICS_REGISTER_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "texture target");
  /* A name GL never gave, a buffer's name as a texture: the driver's. */
  g_assert_null (cugi_graphics_resource_new_for_gl_buffer (NULL, 63, CUGI_GRAPHICS_REGISTER_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "cuGraphicsGLRegisterBuffer");
  g_assert_null (cugi_graphics_resource_new_for_gl_texture (NULL, buffer, GL_TEXTURE_2D,
                                                            CUGI_GRAPHICS_REGISTER_FLAGS_NONE, &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_ARGUMENT, "cuGraphicsGLRegisterImage");
  assert_resources (0, 0);

  /* Without a current GL context: what to do is said. */
  set_gl_current (FALSE);
  g_assert_null (cugi_graphics_resource_new_for_gl_buffer (NULL, buffer, CUGI_GRAPHICS_REGISTER_FLAGS_NONE,
                                                           &error));
  cugi_test_assert_error (&error, CUGI_ERROR_INVALID_CONTEXT, "current on this thread");
  set_gl_current (TRUE);
  resource = texture_resource_new (texture, CUGI_GRAPHICS_REGISTER_FLAGS_NONE);
  set_gl_current (FALSE);
  cugi_test_assert_fails (cugi_graphics_resource_map (resource, NULL, &error), &error,
                          CUGI_ERROR_INVALID_CONTEXT, "current on this thread");
  g_assert_false (cugi_graphics_resource_is_mapped (resource));
  set_gl_current (TRUE);
  map (resource, NULL);
  unmap (resource, NULL);

  /* An object of g_object_new() stands for nothing. */
  g_clear_object (&resource);
  resource = g_object_new (CUGI_TYPE_GRAPHICS_RESOURCE, NULL);
  cugi_test_assert_fails (cugi_graphics_resource_map (resource, NULL, &error), &error,
                          CUGI_ERROR_INVALID_STATE, "not registered");
  g_clear_object (&resource);
  assert_resources (0, 0);
  gl_delete (buffer);
  gl_delete (texture);
}

/* A stream of another context is refused, whatever the resource's state. */
static void
test_stream_of_another_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiDevice) device = cugi_device_get (1, &error);
  g_autoptr(CugiContext) other = NULL;
  g_autoptr(CugiStream) stream = NULL;
  g_autoptr(CugiGraphicsResource) resource = NULL;
  guint name = gl_buffer_new (16);

  g_assert_no_error (error);
  other = cugi_device_get_primary_context (device, &error);
  g_assert_no_error (error);
  stream = cugi_stream_new (other, CUGI_STREAM_FLAGS_NONE, 0, &error);
  g_assert_no_error (error);
  resource = cugi_graphics_resource_new_for_gl_buffer (NULL, name, CUGI_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  cugi_test_assert_fails (cugi_graphics_resource_map (resource, stream, &error), &error,
                          CUGI_ERROR_INVALID_CONTEXT, "another context");
  map (resource, NULL);
  cugi_test_assert_fails (cugi_graphics_resource_unmap (resource, stream, &error), &error,
                          CUGI_ERROR_INVALID_CONTEXT, "another context");
  unmap (resource, NULL);
  g_clear_object (&resource);
  gl_delete (name);
}

/* What cugi_graphics_resource_map_finish() said. */
typedef struct
{
  gboolean  done;
  gboolean  mapped;
  GError   *error;
} MapOutcome;

static void
on_mapped (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  MapOutcome *outcome = user_data;

  outcome->mapped = cugi_graphics_resource_map_finish (CUGI_GRAPHICS_RESOURCE (source), result, &outcome->error);
  outcome->done = TRUE;
}

static void
wait_for (MapOutcome *outcome)
{
  while (!outcome->done)
    g_main_context_iteration (NULL, TRUE);
}

/* map_async() maps at once and completes in the caller's main context; a
 * mapping that fails fails the call. */
static void
test_map_async (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiStream) stream = cugi_test_stream_new (CUGI_STREAM_FLAGS_NON_BLOCKING);
  g_autoptr(CugiGraphicsResource) resource = NULL;
  MapOutcome first = { 0 }, second = { 0 };
  guint name = gl_buffer_new (16);

  resource = cugi_graphics_resource_new_for_gl_buffer (NULL, name, CUGI_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  cugi_graphics_resource_map_async (resource, stream, NULL, on_mapped, &first);
  g_assert_true (cugi_graphics_resource_is_mapped (resource));
  wait_for (&first);
  g_assert_no_error (first.error);
  g_assert_true (first.mapped);

  cugi_graphics_resource_map_async (resource, stream, NULL, on_mapped, &second);
  wait_for (&second);
  g_assert_false (second.mapped);
  cugi_test_assert_error (&second.error, CUGI_ERROR_INVALID_STATE, "mapped already");
  unmap (resource, stream);
  g_clear_object (&resource);
  gl_delete (name);
}

/* After a reset, the resource's handle is gone: an error, never a call. */
static void
test_after_reset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CugiContext) context = cugi_test_default_context ();
  g_autoptr(CugiGraphicsResource) resource = NULL;
  guint name = gl_buffer_new (16);

  resource = cugi_graphics_resource_new_for_gl_buffer (NULL, name, CUGI_GRAPHICS_REGISTER_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_true (cugi_context_reset (context, &error));
  g_assert_no_error (error);
  cugi_test_assert_fails (cugi_graphics_resource_map (resource, NULL, &error), &error,
                          CUGI_ERROR_INVALID_CONTEXT, "context was reset");
}

int
main (int argc, char **argv)
{
  cugi_test_init_stand_in (&argc, &argv);
  gl_buffer_new = cugi_test_stand_in_symbol ("fake_cuda_graphics_gl_buffer_new");
  gl_image_new = cugi_test_stand_in_symbol ("fake_cuda_graphics_gl_image_new");
  gl_delete = cugi_test_stand_in_symbol ("fake_cuda_graphics_gl_delete");
  gl_buffer_data = cugi_test_stand_in_symbol ("fake_cuda_graphics_gl_buffer_data");
  gl_image_read = cugi_test_stand_in_symbol ("fake_cuda_graphics_gl_image_read");
  egl_image = cugi_test_stand_in_symbol ("fake_cuda_graphics_egl_image");
  set_gl_current = cugi_test_stand_in_symbol ("fake_cuda_graphics_set_gl_current");
  get_counts = cugi_test_stand_in_symbol ("fake_cuda_graphics_get_counts");

  g_test_add_func ("/graphics/gl-buffer", test_gl_buffer);
  g_test_add_func ("/graphics/lifetime", test_lifetime);
  g_test_add_func ("/graphics/gl-texture", test_gl_texture);
  g_test_add_func ("/graphics/renderbuffer-and-cube-map", test_renderbuffer_and_cube_map);
  g_test_add_func ("/graphics/egl-image", test_egl_image);
  g_test_add_func ("/graphics/bad-input", test_bad_input);
  g_test_add_func ("/graphics/stream-of-another-context", test_stream_of_another_context);
  g_test_add_func ("/graphics/map-async", test_map_async);
  /* Last: the stand-in keeps what a reset took. */
  g_test_add_func ("/reset/graphics", test_after_reset);

  return g_test_run ();
}
