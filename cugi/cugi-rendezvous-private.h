/* cugi-rendezvous-private.h: the wire format that cugi-rendezvous.c (the
 * object, serving) and cugi-rendezvous-fetch.c (fetching) speak, as
 * CugiRendezvous's documentation describes it. Not installed. */
#pragma once

#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

/* Every message starts with a header: the magic, the protocol's version,
 * the kind of message, and the length of what follows (most significant
 * byte first). */
#define CUGI_RENDEZVOUS_MAGIC "CUGI-RDV"
#define CUGI_RENDEZVOUS_MAGIC_SIZE 8
#define CUGI_RENDEZVOUS_VERSION 1
#define CUGI_RENDEZVOUS_HEADER_SIZE 12

G_STATIC_ASSERT (sizeof CUGI_RENDEZVOUS_MAGIC - 1 == CUGI_RENDEZVOUS_MAGIC_SIZE);

/* The kinds of message: the fetcher's request, the rendezvous's answer
 * (the id), the fetcher's acknowledgement of it. */
enum
{
  CUGI_RENDEZVOUS_REQUEST = 1,
  CUGI_RENDEZVOUS_ID = 2,
  CUGI_RENDEZVOUS_RECEIVED = 3,
};

/* The header of this version for a message of @kind and @length, as an
 * initializer of guint8[CUGI_RENDEZVOUS_HEADER_SIZE]. */
#define CUGI_RENDEZVOUS_HEADER(kind, length) \
  { 'C', 'U', 'G', 'I', '-', 'R', 'D', 'V', CUGI_RENDEZVOUS_VERSION, (kind), (length) >> 8, (length) & 0xff }

typedef struct
{
  guint   version;
  guint   kind;
  gsize   length;
} CugiRendezvousHeader;

/* FALSE unless @bytes start as a rendezvous's messages do. */
static inline gboolean
cugi_rendezvous_parse_header (const guint8          bytes[CUGI_RENDEZVOUS_HEADER_SIZE],
                              CugiRendezvousHeader *header)
{
  if (memcmp (bytes, CUGI_RENDEZVOUS_MAGIC, CUGI_RENDEZVOUS_MAGIC_SIZE) != 0)
    return FALSE;
  header->version = bytes[8];
  header->kind = bytes[9];
  header->length = (gsize) bytes[10] << 8 | bytes[11];
  return TRUE;
}

G_END_DECLS
