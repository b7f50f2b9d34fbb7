/* fake-cuda-streams.h: what the graph part of the stand-in driver
 * (fake-cuda-graphs.c) shares with its streams (fake-cuda-streams.c): the
 * operations that graphs and streams hold, and the one lock. */
#pragma once

#include <stdint.h>

#include <cuda.h>

typedef struct FakeEvent FakeEvent;

struct FakeEvent
{
  FakeEvent     *next_live;       /* in live_events while the handle is */
  int            refs;            /* the handle's, and one per queued operation */
  unsigned int   flags;
  unsigned long  recorded;        /* recordings made */
  unsigned long  completed;       /* recordings the stream got past */
  double         completed_at_ms; /* when the last one completed */
};

typedef enum
{
  OP_HOST_FUNC,
  OP_RECORD,
  OP_WAIT,
  OP_MEMSET,
  OP_COPY,
  OP_FREE,
  OP_WRITE_VALUE,
  OP_NOTHING,     /* a graph node that does nothing here: kernels, empty nodes... */
} OpKind;

typedef struct Op
{
  OpKind         kind;
  CUhostFn       fn;
  void          *data;
  FakeEvent     *event;
  unsigned long  recording;  /* RECORD: the one it completes; WAIT: the one it waits for */
  unsigned char *start;      /* MEMSET, COPY, WRITE_VALUE: what it writes; FREE: the block's memory */
  const unsigned char *source;  /* COPY: what it reads */
  unsigned char  value;
  uint32_t       value32;    /* WRITE_VALUE, and MEMSET of 32-bit values */
  unsigned char  wide;       /* MEMSET: of @count 32-bit values, value32 */
  size_t         count;
  /* Graphs built node by node: what OP_NOTHING stands for, a kernel node's
   * function, grid and block, the node of the graph an executable graph's
   * node was copied from, and whether launches skip it. */
  CUgraphNodeType node_type;
  CUfunction     function;
  unsigned int   shape[7];
  const struct Op *origin;
  int            disabled;
  struct Op     *next;
} Op;

/* A captured graph, or an executable graph: operations in order. */
typedef struct
{
  Op *head;
  Op *tail;
} FakeGraph;

void  fake_cuda_streams_lock   (void);
void  fake_cuda_streams_unlock (void);
/* Called with the lock held. */
void  graph_append             (FakeGraph *graph,
                                Op        *op);

/* The stand-in of a graph-building entry point, or NULL. */
void *fake_cuda_graphs_lookup  (const char *symbol);
