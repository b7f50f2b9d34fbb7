/* cugi-stream-callback.c: functions run in the main loop after the work
 * enqueued on a stream before them */
#include "config.h"

#include "cugi-stream-private.h"

typedef struct
{
  CugiStream         *stream;
  CugiStreamCallback  func;
  gpointer            user_data;
  GDestroyNotify      notify;
} StreamCallback;

static void
stream_callback_run (gpointer data)
{
  StreamCallback *callback = data;

  callback->func (callback->stream, callback->user_data);
}

static void
stream_callback_free (gpointer data)
{
  StreamCallback *callback = data;

  if (callback->notify != NULL)
    callback->notify (callback->user_data);
  g_object_unref (callback->stream);
  g_free (callback);
}

/**
 * CugiStreamCallback:
 * @stream: the stream the callback was added to
 * @user_data: the data given to cugi_stream_add_callback()
 *
 * A function cugi_stream_add_callback() runs in the main loop once the work
 * enqueued on @stream before it has completed. It may call any cugi
 * function, enqueue work on @stream included.
 *
 * Since: 0.1
 */

/**
 * cugi_stream_add_callback:
 * @self: a #CugiStream
 * @func: (scope notified) (closure user_data) (destroy notify): the function
 *   to run
 * @user_data: data for @func
 * @notify: (nullable): frees @user_data once @func has run, or at once when
 *   this fails
 * @error: return location for a #GError
 *
 * Runs @func once all the work enqueued on @self before this call has
 * completed, as CUDA's host functions (`cuLaunchHostFunc`) do, but in the
 * #GMainContext that was the thread-default when @self was made, never on
 * the CUDA thread: @func may call CUDA through cugi, which a host function
 * must not. It runs in stream order with the other completions of @self:
 * after the #CugiEvent::completed signals of events recorded on @self
 * before it and the callbacks of the asynchronous copies enqueued before
 * it, and before those enqueued after it; the #CugiStream::idle of the
 * burst of work it follows comes after it.
 *
 * Work enqueued after the callback does not wait for it: the callback marks
 * a point of the stream and is told when the stream got past it; the
 * marker itself may still be in flight then, so that cugi_stream_query()
 * called from @func can report work pending. Ask a #CugiEvent recorded
 * before the callback instead. If a
 * kernel fails and makes the context unusable, the stream never gets past
 * that point, and @func does not run (cugi_stream_synchronize() reports the
 * failure).
 *
 * The stream is kept alive until @func has run. A stream that cannot take
 * work fails with a #GError and @notify runs at once: one made with
 * g_object_new() (%CUGI_ERROR_INVALID_STATE), one whose context was reset
 * since it was made, which destroyed it (%CUGI_ERROR_INVALID_CONTEXT), or
 * one being captured into a graph (%CUGI_ERROR_INVALID_STATE).
 *
 * Returns: %TRUE when the callback was enqueued
 *
 * Since: 0.1
 */
gboolean
cugi_stream_add_callback (CugiStream          *self,
                          CugiStreamCallback   func,
                          gpointer             user_data,
                          GDestroyNotify       notify,
                          GError             **error)
{
  StreamCallback *callback;

  g_return_val_if_fail (CUGI_IS_STREAM (self), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  callback = g_new (StreamCallback, 1);
  callback->stream = g_object_ref (self);
  callback->func = func;
  callback->user_data = user_data;
  callback->notify = notify;
  /* Frees the callback, @user_data with it, when it fails. */
  return cugi_stream_add_completion (self, NULL, stream_callback_run, callback, stream_callback_free, error);
}
