/* fake-nccl.c: a stand-in libnccl.so.2, so that communicators run without
 * GPUs (CUGI_LIBNCCL names it), over the stand-in driver's streams.
 *
 * The ranks of a communicator are communicators of this process made with
 * the same unique id: a test makes them all, with non-blocking connections
 * from one thread or blocking ones from a thread each. Device memory is the
 * stand-in driver's host memory, so each operation is a host function on
 * its stream (the stand-in driver's cuLaunchHostFunc): the operations of
 * one sequence number meet there, and the last rank to arrive does the
 * work for all, so that everything runs in stream order as NCCL's kernels
 * would. A send leaves a copy of its data for its receive, by sender and
 * receiver, which the receive takes in its own stream's order.
 *
 * As NCCL's non-blocking communicators do, a connection stays in progress
 * until every rank has joined (and FAKE_NCCL_INIT_POLLS more polls), and
 * each later call returns ncclInProgress for one poll. Reductions are done
 * for every integer and 32- and 64-bit float type, pre-multiplied sums of
 * them too; 16- and 8-bit float reductions are refused
 * (ncclInvalidArgument), but the factor of the last pre-multiplied sum
 * made is kept, as bytes, for the tests. All-to-all, gather and scatter
 * are NCCL 2.28's calls (cugi uses them only from that version on).
 * FAKE_NCCL_ASYNC_ERROR, read at every
 * poll, is the error a connected communicator reports (6: a remote error);
 * FAKE_NCCL_VERSION the version code (22809 unless set). Tests read what
 * the last connection was configured with, registrations and allocations
 * through the fake_nccl_* functions. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#define EXPORT __attribute__((visibility ("default")))
#define ID_BYTES 128
#define MAX_RANKS 8
#define N_BUILT_IN_OPS 5    /* sum, prod, max, min, avg */
#define MAX_PRE_MUL_SUMS 16

typedef enum
{
  SUCCESS = 0,
  SYSTEM_ERROR = 2,
  INTERNAL_ERROR = 3,
  INVALID_ARGUMENT = 4,
  INVALID_USAGE = 5,
  REMOTE_ERROR = 6,
  IN_PROGRESS = 7,
} Result;

typedef struct
{
  char internal[ID_BYTES];
} UniqueId;

/* NCCL 2.18's layout: what cugi passes. */
typedef struct
{
  size_t       size;
  unsigned int magic;
  unsigned int version;
  int          blocking;
  int          cga_cluster_size;
  int          min_ctas;
  int          max_ctas;
  const char  *net_name;
  int          split_share;
} Config;

typedef enum
{
  OP_ALL_REDUCE,
  OP_BROADCAST,
  OP_REDUCE,
  OP_ALL_GATHER,
  OP_REDUCE_SCATTER,
  OP_SEND,
  OP_RECV,
  OP_ALL_TO_ALL,
  OP_GATHER,
  OP_SCATTER,
} OpKind;

typedef struct Comm Comm;

typedef struct
{
  OpKind       kind;
  Comm        *comm;
  const void  *send;
  void        *recv;
  size_t       count;
  int          type;
  int          reduce_op;
  double       factor;   /* of a pre-multiplied sum (then reduce_op is the sum), else 1 */
  int          root;     /* the peer, for sends and receives */
  unsigned     sequence; /* of the communicator's collectives, or of the pair's transfers */
  CUstream     stream;
} Op;

typedef struct
{
  UniqueId  id;
  int       n_ranks;
  int       joined;
  int       members;   /* not destroyed yet */
  int       aborted;
  Comm     *ranks[MAX_RANKS];
  /* The collective under way: its sequence number and who arrived. */
  unsigned  sequence;
  int       arrived;
  int       left;
  Op       *ops[MAX_RANKS];
  /* Sends waiting for their receives, by sender and receiver. */
  Op       *sends[MAX_RANKS][MAX_RANKS];
  /* Splits under way: each rank's color and key, and who arrived. */
  int       split_arrived;
  int       split_colors[MAX_RANKS];
  int       split_keys[MAX_RANKS];
  Comm     *split_results[MAX_RANKS];
  unsigned  split_generation;
} Clique;

struct Comm
{
  Clique   *clique;
  int       rank;
  Config    config;
  int       init_polls;    /* polls left before a joined connection is done */
  int       busy_polls;    /* polls left before a call is done */
  int       in_flight;     /* operations launched and not done */
  int       finalizing;    /* in progress until in_flight is 0, as NCCL's flush */
  int       aborted;
  int       registrations;
  unsigned  collectives;
  unsigned  sends[MAX_RANKS];
  unsigned  recvs[MAX_RANKS];
  /* Pre-multiplied sums made: whether each is, and its factor. */
  int       pre_mul_made[MAX_PRE_MUL_SUMS];
  double    pre_mul_factors[MAX_PRE_MUL_SUMS];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static Clique *cliques[64];
static unsigned next_id;
static Config last_config;
static int allocations;
static int reduction_ops;          /* pre-multiplied sums not destroyed */
static int exchange_calls;         /* of ncclAlltoAll, ncclGather and ncclScatter */
static unsigned char last_factor[8];
static int last_factor_type = -1;
static __thread int group_depth;
static __thread Op *grouped[64];
static __thread int n_grouped;

static CUresult (*launch_host_func) (CUstream, CUhostFn, void *);
static CUresult (*mem_alloc) (CUdeviceptr *, size_t);
static CUresult (*mem_free) (CUdeviceptr);

static int
env_int (const char *name, int fallback)
{
  const char *value = getenv (name);

  return value != NULL && *value != '\0' ? atoi (value) : fallback;
}

/* The stand-in driver's cuLaunchHostFunc and its allocator (NCCL's memory
 * is the driver's), through its cuGetProcAddress. */
static void
find_driver (void)
{
  CUresult (*get_proc_address) (const char *, void **, int, cuuint64_t, void *);
  void *driver;

  if (launch_host_func != NULL)
    return;
  driver = dlopen (getenv ("CUGI_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
  get_proc_address = driver != NULL ? dlsym (driver, "cuGetProcAddress_v2") : NULL;
  if (get_proc_address == NULL ||
      get_proc_address ("cuLaunchHostFunc", (void **) &launch_host_func, 10000, 0, NULL) != CUDA_SUCCESS ||
      get_proc_address ("cuMemAlloc", (void **) &mem_alloc, 3020, 0, NULL) != CUDA_SUCCESS ||
      get_proc_address ("cuMemFree", (void **) &mem_free, 3020, 0, NULL) != CUDA_SUCCESS)
    {
      fprintf (stderr, "fake-nccl: the stand-in driver (CUGI_LIBCUDA) is not loaded\n");
      abort ();
    }
}

EXPORT Result
ncclGetVersion (int *version)
{
  *version = env_int ("FAKE_NCCL_VERSION", 22809);
  return SUCCESS;
}

EXPORT const char *
ncclGetErrorString (Result result)
{
  switch (result)
    {
    case SUCCESS: return "no error";
    case SYSTEM_ERROR: return "unhandled system error";
    case INTERNAL_ERROR: return "internal error";
    case INVALID_ARGUMENT: return "invalid argument";
    case INVALID_USAGE: return "invalid usage";
    case REMOTE_ERROR: return "remote process exited or there was a network error";
    case IN_PROGRESS: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}

EXPORT const char *
ncclGetLastError (Comm *comm)
{
  (void) comm;
  return "the stand-in says so";
}

EXPORT Result
ncclGetUniqueId (UniqueId *id)
{
  pthread_mutex_lock (&lock);
  memset (id, 0, sizeof *id);
  snprintf (id->internal, sizeof id->internal, "fake-nccl %u", next_id++);
  pthread_mutex_unlock (&lock);
  return SUCCESS;
}

static Clique *
find_clique (const UniqueId *id, int n_ranks)
{
  size_t free_slot = sizeof cliques / sizeof cliques[0];

  for (size_t i = 0; i < sizeof cliques / sizeof cliques[0]; i++)
    {
      if (cliques[i] != NULL && memcmp (&cliques[i]->id, id, sizeof *id) == 0)
        return cliques[i]->n_ranks == n_ranks ? cliques[i] : NULL;
      if (cliques[i] == NULL && free_slot == sizeof cliques / sizeof cliques[0])
        free_slot = i;
    }
  if (free_slot == sizeof cliques / sizeof cliques[0])
    return NULL;
  cliques[free_slot] = calloc (1, sizeof (Clique));
  cliques[free_slot]->id = *id;
  cliques[free_slot]->n_ranks = n_ranks;
  return cliques[free_slot];
}

static Result
check_config (const Config *config)
{
  if (config == NULL)
    return SUCCESS;
  if (config->magic != 0xcafebeefu || config->size < sizeof (Config) || config->version < 21800)
    return INVALID_ARGUMENT;
  return SUCCESS;
}

static Comm *
join (Clique *clique, int rank, const Config *config)
{
  Comm *comm = calloc (1, sizeof (Comm));

  comm->clique = clique;
  comm->rank = rank;
  if (config != NULL)
    comm->config = *config;
  comm->init_polls = env_int ("FAKE_NCCL_INIT_POLLS", 0);
  clique->ranks[rank] = comm;
  clique->joined++;
  clique->members++;
  return comm;
}

static int
is_blocking (const Comm *comm)
{
  return comm->config.size == 0 || comm->config.blocking != 0;
}

EXPORT Result
ncclCommInitRankConfig (Comm **comm, int n_ranks, UniqueId id, int rank, Config *config)
{
  Clique *clique;
  Result result = check_config (config);

  *comm = NULL;
  if (result != SUCCESS)
    return result;
  if (n_ranks < 1 || n_ranks > MAX_RANKS || rank < 0 || rank >= n_ranks)
    return INVALID_ARGUMENT;
  pthread_mutex_lock (&lock);
  clique = find_clique (&id, n_ranks);
  if (clique == NULL || clique->ranks[rank] != NULL)
    {
      pthread_mutex_unlock (&lock);
      return INVALID_USAGE;
    }
  if (config != NULL)
    last_config = *config;
  *comm = join (clique, rank, config);
  pthread_cond_broadcast (&changed);
  if (is_blocking (*comm))
    while (clique->joined < clique->n_ranks && !(*comm)->aborted)
      pthread_cond_wait (&changed, &lock);
  pthread_mutex_unlock (&lock);
  return is_blocking (*comm) ? SUCCESS : IN_PROGRESS;
}

/* The blocking connection of NCCL's first interface (bench-all-reduce's raw
 * side). */
EXPORT Result
ncclCommInitRank (Comm **comm, int n_ranks, UniqueId id, int rank)
{
  return ncclCommInitRankConfig (comm, n_ranks, id, rank, NULL);
}

EXPORT Result
ncclCommGetAsyncError (Comm *comm, Result *state)
{
  int error = env_int ("FAKE_NCCL_ASYNC_ERROR", 0);

  pthread_mutex_lock (&lock);
  if (comm->clique->joined < comm->clique->n_ranks)
    *state = IN_PROGRESS;
  else if (comm->init_polls > 0)
    {
      comm->init_polls--;
      *state = IN_PROGRESS;
    }
  else if (comm->busy_polls > 0)
    {
      comm->busy_polls--;
      *state = IN_PROGRESS;
    }
  else if (comm->finalizing && comm->in_flight > 0)
    *state = IN_PROGRESS;
  else
    *state = error != 0 ? (Result) error : SUCCESS;
  pthread_mutex_unlock (&lock);
  return SUCCESS;
}

/* What a call of a non-blocking communicator returns: in progress, for a
 * poll. */
static Result
busy (Comm *comm)
{
  if (is_blocking (comm))
    return SUCCESS;
  pthread_mutex_lock (&lock);
  comm->busy_polls = 1;
  pthread_mutex_unlock (&lock);
  return IN_PROGRESS;
}

/* A communicator destroyed with operations still on their streams (not
 * finalized, or aborted) waits for them to end, as they read it: those
 * that wait for other ranks give up, as the clique is then aborted. */
static void
leave (Comm *comm)
{
  Clique *clique = comm->clique;

  pthread_mutex_lock (&lock);
  while (comm->in_flight > 0)
    {
      clique->aborted = 1;
      pthread_cond_broadcast (&changed);
      pthread_cond_wait (&changed, &lock);
    }
  clique->ranks[comm->rank] = NULL;
  if (--clique->members == 0)
    for (size_t i = 0; i < sizeof cliques / sizeof cliques[0]; i++)
      if (cliques[i] == clique)
        {
          cliques[i] = NULL;
          free (clique);
        }
  pthread_mutex_unlock (&lock);
  free (comm);
}

EXPORT Result
ncclCommFinalize (Comm *comm)
{
  pthread_mutex_lock (&lock);
  comm->finalizing = 1;
  pthread_mutex_unlock (&lock);
  return busy (comm);
}

EXPORT Result
ncclCommDestroy (Comm *comm)
{
  leave (comm);
  return SUCCESS;
}

EXPORT Result
ncclCommAbort (Comm *comm)
{
  if (comm == NULL)
    return SUCCESS;
  pthread_mutex_lock (&lock);
  comm->aborted = 1;
  comm->clique->aborted = 1;
  pthread_cond_broadcast (&changed);
  pthread_mutex_unlock (&lock);
  leave (comm);
  return SUCCESS;
}

EXPORT Result
ncclCommCount (Comm *comm, int *count)
{
  *count = comm->clique->n_ranks;
  return SUCCESS;
}

EXPORT Result
ncclCommCuDevice (Comm *comm, int *device)
{
  (void) comm;
  *device = 0;
  return SUCCESS;
}

EXPORT Result
ncclCommUserRank (Comm *comm, int *rank)
{
  *rank = comm->rank;
  return SUCCESS;
}

/* Every rank of @comm's clique calls it, and waits for the others: the
 * ranks of one color, ordered by key then rank, form a new clique. */
EXPORT Result
ncclCommSplit (Comm *comm, int color, int key, Comm **new_comm, Config *config)
{
  Clique *clique = comm->clique;
  unsigned generation;

  *new_comm = NULL;
  pthread_mutex_lock (&lock);
  generation = clique->split_generation;
  clique->split_colors[comm->rank] = color;
  clique->split_keys[comm->rank] = key;
  if (++clique->split_arrived == clique->n_ranks)
    {
      for (int r = 0; r < clique->n_ranks; r++)
        {
          UniqueId id = { { 0 } };
          Clique *split;
          int n = 0, place = 0;

          clique->split_results[r] = NULL;
          if (clique->split_colors[r] < 0)
            continue;
          for (int other = 0; other < clique->n_ranks; other++)
            if (clique->split_colors[other] == clique->split_colors[r])
              {
                n++;
                if (clique->split_keys[other] < clique->split_keys[r] ||
                    (clique->split_keys[other] == clique->split_keys[r] && other < r))
                  place++;
              }
          /* A name of its own: the parent's serial, the split's and the color. */
          snprintf (id.internal, sizeof id.internal, "split of %p %u color %d", (void *) clique,
                    generation, clique->split_colors[r]);
          split = find_clique (&id, n);
          clique->split_results[r] = join (split, place, config);
        }
      clique->split_arrived = 0;
      clique->split_generation++;
      pthread_cond_broadcast (&changed);
    }
  while (clique->split_generation == generation && !clique->aborted)
    pthread_cond_wait (&changed, &lock);
  *new_comm = clique->split_results[comm->rank];
  pthread_mutex_unlock (&lock);
  return clique->aborted ? REMOTE_ERROR : SUCCESS;
}

EXPORT Result
ncclCommRegister (Comm *comm, void *buffer, size_t size, void **handle)
{
  if (buffer == NULL || size == 0)
    return INVALID_ARGUMENT;
  pthread_mutex_lock (&lock);
  comm->registrations++;
  pthread_mutex_unlock (&lock);
  *handle = buffer;
  return SUCCESS;
}

EXPORT Result
ncclCommDeregister (Comm *comm, void *handle)
{
  if (handle == NULL)
    return INVALID_ARGUMENT;
  pthread_mutex_lock (&lock);
  comm->registrations--;
  pthread_mutex_unlock (&lock);
  return SUCCESS;
}

EXPORT Result
ncclMemAlloc (void **address, size_t size)
{
  CUdeviceptr memory = 0;

  find_driver ();
  if (mem_alloc (&memory, size) != CUDA_SUCCESS)
    return SYSTEM_ERROR;
  *address = (void *) memory;
  __atomic_add_fetch (&allocations, 1, __ATOMIC_SEQ_CST);
  return SUCCESS;
}

EXPORT Result
ncclMemFree (void *address)
{
  find_driver ();
  if (mem_free ((CUdeviceptr) address) != CUDA_SUCCESS)
    return INVALID_ARGUMENT;
  __atomic_sub_fetch (&allocations, 1, __ATOMIC_SEQ_CST);
  return SUCCESS;
}

/* ---- the work ------------------------------------------------------------- */

static size_t
type_size (int type)
{
  static const size_t sizes[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1 };

  return type >= 0 && type < (int) (sizeof sizes / sizeof sizes[0]) ? sizes[type] : 0;
}

/* Element offset + i of rank r's send buffer, times its factor (through
 * a double only for a pre-multiplied sum: 64-bit integers stay exact). */
#define SCALED(c_type, r)                                        \
  (ops[r]->factor == 1 ? ((const c_type *) ops[r]->send)[offset + i] \
                       : (c_type) (((const c_type *) ops[r]->send)[offset + i] * ops[r]->factor))

#define REDUCE_AS(c_type)                                                              \
  for (size_t i = 0; i < count; i++)                                                   \
    {                                                                                  \
      c_type value = SCALED (c_type, 0);                                               \
      for (int r = 1; r < n_ranks; r++)                                                \
        {                                                                              \
          c_type other = SCALED (c_type, r);                                           \
          switch (reduce_op)                                                           \
            {                                                                          \
            case 0: case 4: value += other; break;                                     \
            case 1: value *= other; break;                                             \
            case 2: value = other > value ? other : value; break;                      \
            default: value = other < value ? other : value; break;                     \
            }                                                                          \
        }                                                                              \
      if (reduce_op == 4)                                                              \
        value /= n_ranks;                                                              \
      ((c_type *) out)[i] = value;                                                     \
    }

/* @count elements from element @offset of every rank's send buffer,
 * reduced into @out. */
static void
reduce (Op **ops, int n_ranks, int type, int reduce_op, size_t offset, size_t count, void *out)
{
  switch (type)
    {
    case 0: REDUCE_AS (int8_t); break;
    case 1: REDUCE_AS (uint8_t); break;
    case 2: REDUCE_AS (int32_t); break;
    case 3: REDUCE_AS (uint32_t); break;
    case 4: REDUCE_AS (int64_t); break;
    case 5: REDUCE_AS (uint64_t); break;
    case 7: REDUCE_AS (float); break;
    case 8: REDUCE_AS (double); break;
    default: break;
    }
}

/* The collective every rank arrived at, done by the last to arrive. */
static void
run_collective (Clique *clique, Op **ops)
{
  int n = clique->n_ranks;
  Op *first = ops[0];
  size_t bytes = first->count * type_size (first->type);
  /* Room for an all-to-all's n × n parts. */
  void *staging = malloc (bytes * (size_t) n * (size_t) n + 1);

  switch (first->kind)
    {
    case OP_ALL_REDUCE:
      reduce (ops, n, first->type, first->reduce_op, 0, first->count, staging);
      for (int r = 0; r < n; r++)
        memcpy (ops[r]->recv, staging, bytes);
      break;
    case OP_REDUCE:
      reduce (ops, n, first->type, first->reduce_op, 0, first->count, staging);
      memcpy (ops[first->root]->recv, staging, bytes);
      break;
    case OP_BROADCAST:
      memcpy (staging, ops[first->root]->send, bytes);
      for (int r = 0; r < n; r++)
        memcpy (ops[r]->recv, staging, bytes);
      break;
    case OP_ALL_GATHER:
      for (int r = 0; r < n; r++)
        memcpy ((char *) staging + (size_t) r * bytes, ops[r]->send, bytes);
      for (int r = 0; r < n; r++)
        memcpy (ops[r]->recv, staging, bytes * (size_t) n);
      break;
    case OP_REDUCE_SCATTER:
      for (int r = 0; r < n; r++)
        reduce (ops, n, first->type, first->reduce_op, (size_t) r * first->count, first->count,
                (char *) staging + (size_t) r * bytes);
      for (int r = 0; r < n; r++)
        memcpy (ops[r]->recv, (char *) staging + (size_t) r * bytes, bytes);
      break;
    case OP_ALL_TO_ALL:
      for (int from = 0; from < n; from++)
        for (int to = 0; to < n; to++)
          memcpy ((char *) staging + ((size_t) to * n + from) * bytes,
                  (const char *) ops[from]->send + (size_t) to * bytes, bytes);
      for (int r = 0; r < n; r++)
        memcpy (ops[r]->recv, (char *) staging + (size_t) r * n * bytes, bytes * (size_t) n);
      break;
    case OP_GATHER:
      for (int r = 0; r < n; r++)
        memcpy ((char *) staging + (size_t) r * bytes, ops[r]->send, bytes);
      memcpy (ops[first->root]->recv, staging, bytes * (size_t) n);
      break;
    case OP_SCATTER:
      memcpy (staging, ops[first->root]->send, bytes * (size_t) n);
      for (int r = 0; r < n; r++)
        memcpy (ops[r]->recv, (char *) staging + (size_t) r * bytes, bytes);
      break;
    default:
      break;
    }
  free (staging);
}

/* A host function on the operation's stream. */
static void
run_op (void *data)
{
  Op *op = data;
  Clique *clique = op->comm->clique;
  int me = op->comm->rank;

  pthread_mutex_lock (&lock);
  if (op->kind == OP_SEND)
    {
      /* The data leaves with the send, in stream order; the receive takes
       * it when its own stream reaches it (a send waits only for the
       * pair's previous one to be taken). */
      size_t bytes = op->count * type_size (op->type);
      Op *copy = calloc (1, sizeof *copy);

      while (clique->sends[me][op->root] != NULL && !clique->aborted)
        pthread_cond_wait (&changed, &lock);
      *copy = *op;
      copy->recv = malloc (bytes + 1);
      memcpy (copy->recv, op->send, bytes);
      clique->sends[me][op->root] = copy;
      pthread_cond_broadcast (&changed);
    }
  else if (op->kind == OP_RECV)
    {
      Op *send;

      while ((send = clique->sends[op->root][me]) == NULL && !clique->aborted)
        pthread_cond_wait (&changed, &lock);
      if (send != NULL)
        {
          memcpy (op->recv, send->recv, op->count * type_size (op->type));
          clique->sends[op->root][me] = NULL;
          free (send->recv);
          free (send);
          pthread_cond_broadcast (&changed);
        }
    }
  else
    {
      while (clique->sequence != op->sequence && !clique->aborted)
        pthread_cond_wait (&changed, &lock);
      clique->ops[me] = op;
      if (++clique->arrived == clique->n_ranks)
        {
          run_collective (clique, clique->ops);
          pthread_cond_broadcast (&changed);
        }
      while (clique->arrived < clique->n_ranks && !clique->aborted)
        pthread_cond_wait (&changed, &lock);
      /* The last to leave opens the next collective. */
      if (++clique->left == clique->n_ranks)
        {
          clique->arrived = clique->left = 0;
          clique->sequence++;
          pthread_cond_broadcast (&changed);
        }
    }
  op->comm->in_flight--;
  pthread_cond_broadcast (&changed);
  pthread_mutex_unlock (&lock);
  free (op);
}

static Result
launch (Op *op)
{
  pthread_mutex_lock (&lock);
  op->comm->in_flight++;
  pthread_mutex_unlock (&lock);
  if (launch_host_func (op->stream, run_op, op) != CUDA_SUCCESS)
    {
      pthread_mutex_lock (&lock);
      op->comm->in_flight--;
      pthread_mutex_unlock (&lock);
      free (op);
      return SYSTEM_ERROR;
    }
  return SUCCESS;
}

static Result
enqueue (Comm *comm, OpKind kind, const void *send, void *recv, size_t count, int type, int reduce_op,
         int root, CUstream stream)
{
  Op *op;
  int reduces = kind == OP_ALL_REDUCE || kind == OP_REDUCE || kind == OP_REDUCE_SCATTER;
  int pre_mul = reduce_op - N_BUILT_IN_OPS;
  double factor = 1;
  Result result;

  if (reduces && pre_mul >= 0)
    {
      if (pre_mul >= MAX_PRE_MUL_SUMS || !comm->pre_mul_made[pre_mul])
        return INVALID_ARGUMENT;
      factor = comm->pre_mul_factors[pre_mul];
      reduce_op = 0;
    }
  if (type_size (type) == 0 ||
      (reduces && (type == 6 || type >= 9 || reduce_op < 0 || reduce_op >= N_BUILT_IN_OPS)))
    return INVALID_ARGUMENT;
  if (root < 0 || root >= comm->clique->n_ranks || comm->aborted)
    return INVALID_ARGUMENT;
  if (group_depth > 0 && n_grouped == (int) (sizeof grouped / sizeof grouped[0]))
    return INTERNAL_ERROR;
  find_driver ();
  op = calloc (1, sizeof *op);
  *op = (Op) { kind, comm, send, recv, count, type, reduce_op, factor, root, 0, stream };
  pthread_mutex_lock (&lock);
  if (kind == OP_SEND)
    op->sequence = comm->sends[root]++;
  else if (kind == OP_RECV)
    op->sequence = comm->recvs[root]++;
  else
    op->sequence = comm->collectives++;
  pthread_mutex_unlock (&lock);
  /* In a group, launched at its end. */
  if (group_depth > 0)
    {
      grouped[n_grouped++] = op;
      return SUCCESS;
    }
  result = launch (op);
  return result == SUCCESS ? busy (comm) : result;
}

EXPORT Result
ncclAllReduce (const void *send, void *recv, size_t count, int type, int op, Comm *comm, CUstream stream)
{
  return enqueue (comm, OP_ALL_REDUCE, send, recv, count, type, op, 0, stream);
}

EXPORT Result
ncclBroadcast (const void *send, void *recv, size_t count, int type, int root, Comm *comm, CUstream stream)
{
  return enqueue (comm, OP_BROADCAST, send, recv, count, type, 0, root, stream);
}

EXPORT Result
ncclReduce (const void *send, void *recv, size_t count, int type, int op, int root, Comm *comm, CUstream stream)
{
  return enqueue (comm, OP_REDUCE, send, recv, count, type, op, root, stream);
}

EXPORT Result
ncclAllGather (const void *send, void *recv, size_t send_count, int type, Comm *comm, CUstream stream)
{
  return enqueue (comm, OP_ALL_GATHER, send, recv, send_count, type, 0, 0, stream);
}

EXPORT Result
ncclReduceScatter (const void *send, void *recv, size_t recv_count, int type, int op, Comm *comm,
                   CUstream stream)
{
  return enqueue (comm, OP_REDUCE_SCATTER, send, recv, recv_count, type, op, 0, stream);
}

EXPORT Result
ncclAlltoAll (const void *send, void *recv, size_t count, int type, Comm *comm, CUstream stream)
{
  __atomic_add_fetch (&exchange_calls, 1, __ATOMIC_SEQ_CST);
  return enqueue (comm, OP_ALL_TO_ALL, send, recv, count, type, 0, 0, stream);
}

EXPORT Result
ncclGather (const void *send, void *recv, size_t count, int type, int root, Comm *comm, CUstream stream)
{
  __atomic_add_fetch (&exchange_calls, 1, __ATOMIC_SEQ_CST);
  return enqueue (comm, OP_GATHER, send, recv, count, type, 0, root, stream);
}

EXPORT Result
ncclScatter (const void *send, void *recv, size_t count, int type, int root, Comm *comm, CUstream stream)
{
  __atomic_add_fetch (&exchange_calls, 1, __ATOMIC_SEQ_CST);
  return enqueue (comm, OP_SCATTER, send, recv, count, type, 0, root, stream);
}

/* The factor, host-immediate, as a double where the reductions can use
 * it (integers and 32- and 64-bit floats); its bytes kept for the tests. */
EXPORT Result
ncclRedOpCreatePreMulSum (int *op, void *scalar, int type, int residence, Comm *comm)
{
  double factor = 0;
  int slot;

  if (residence != 1 || type_size (type) == 0 || comm->aborted)
    return INVALID_ARGUMENT;
  switch (type)
    {
    case 0: factor = *(int8_t *) scalar; break;
    case 1: factor = *(uint8_t *) scalar; break;
    case 2: factor = *(int32_t *) scalar; break;
    case 3: factor = *(uint32_t *) scalar; break;
    case 4: factor = (double) *(int64_t *) scalar; break;
    case 5: factor = (double) *(uint64_t *) scalar; break;
    case 7: factor = *(float *) scalar; break;
    case 8: factor = *(double *) scalar; break;
    default: break;
    }
  pthread_mutex_lock (&lock);
  for (slot = 0; slot < MAX_PRE_MUL_SUMS && comm->pre_mul_made[slot]; slot++)
    ;
  if (slot < MAX_PRE_MUL_SUMS)
    {
      comm->pre_mul_made[slot] = 1;
      comm->pre_mul_factors[slot] = factor;
      memset (last_factor, 0, sizeof last_factor);
      memcpy (last_factor, scalar, type_size (type));
      last_factor_type = type;
      reduction_ops++;
    }
  pthread_mutex_unlock (&lock);
  if (slot == MAX_PRE_MUL_SUMS)
    return INTERNAL_ERROR;
  *op = N_BUILT_IN_OPS + slot;
  return SUCCESS;
}

EXPORT Result
ncclRedOpDestroy (int op, Comm *comm)
{
  int slot = op - N_BUILT_IN_OPS;
  Result result = INVALID_ARGUMENT;

  pthread_mutex_lock (&lock);
  if (slot >= 0 && slot < MAX_PRE_MUL_SUMS && comm->pre_mul_made[slot])
    {
      comm->pre_mul_made[slot] = 0;
      reduction_ops--;
      result = SUCCESS;
    }
  pthread_mutex_unlock (&lock);
  return result;
}

EXPORT Result
ncclSend (const void *send, size_t count, int type, int peer, Comm *comm, CUstream stream)
{
  return enqueue (comm, OP_SEND, send, NULL, count, type, 0, peer, stream);
}

EXPORT Result
ncclRecv (void *recv, size_t count, int type, int peer, Comm *comm, CUstream stream)
{
  return enqueue (comm, OP_RECV, NULL, recv, count, type, 0, peer, stream);
}

EXPORT Result
ncclGroupStart (void)
{
  group_depth++;
  return SUCCESS;
}

/* Launches the group's operations; non-blocking communicators are then in
 * progress for a poll. */
EXPORT Result
ncclGroupEnd (void)
{
  Result result = SUCCESS;
  int in_progress = 0;

  if (group_depth == 0)
    return INVALID_USAGE;
  if (--group_depth > 0)
    return SUCCESS;
  for (int i = 0; i < n_grouped; i++)
    {
      Comm *comm = grouped[i]->comm;

      if (result == SUCCESS)
        result = launch (grouped[i]);
      else
        free (grouped[i]);
      if (result == SUCCESS && busy (comm) == IN_PROGRESS)
        in_progress = 1;
    }
  n_grouped = 0;
  return result == SUCCESS && in_progress ? IN_PROGRESS : result;
}

/* ---- for the tests -------------------------------------------------------- */

/* The configuration of the last connection made. */
EXPORT void
fake_nccl_get_last_config (int *blocking, int *cga_cluster_size, int *min_ctas, int *max_ctas,
                           const char **net_name, int *split_share)
{
  pthread_mutex_lock (&lock);
  *blocking = last_config.blocking;
  *cga_cluster_size = last_config.cga_cluster_size;
  *min_ctas = last_config.min_ctas;
  *max_ctas = last_config.max_ctas;
  *net_name = last_config.net_name;
  *split_share = last_config.split_share;
  pthread_mutex_unlock (&lock);
}

/* How many buffers are registered with communicators, over all of them. */
EXPORT int
fake_nccl_count_registrations (void)
{
  int count = 0;

  pthread_mutex_lock (&lock);
  for (size_t i = 0; i < sizeof cliques / sizeof cliques[0]; i++)
    for (int r = 0; cliques[i] != NULL && r < cliques[i]->n_ranks; r++)
      if (cliques[i]->ranks[r] != NULL)
        count += cliques[i]->ranks[r]->registrations;
  pthread_mutex_unlock (&lock);
  return count;
}

/* How many communicators exist (not destroyed or aborted). */
EXPORT int
fake_nccl_count_communicators (void)
{
  int count = 0;

  pthread_mutex_lock (&lock);
  for (size_t i = 0; i < sizeof cliques / sizeof cliques[0]; i++)
    if (cliques[i] != NULL)
      count += cliques[i]->members;
  pthread_mutex_unlock (&lock);
  return count;
}

/* How many ncclMemAlloc allocations are not freed. */
EXPORT int
fake_nccl_count_allocations (void)
{
  return __atomic_load_n (&allocations, __ATOMIC_SEQ_CST);
}

/* The factor of the last pre-multiplied sum made, as NCCL got it (the
 * bytes of one element of its data type, in @bytes), and that type. */
EXPORT int
fake_nccl_get_last_factor (unsigned char bytes[8])
{
  int type;

  pthread_mutex_lock (&lock);
  memcpy (bytes, last_factor, sizeof last_factor);
  type = last_factor_type;
  pthread_mutex_unlock (&lock);
  return type;
}

/* How many pre-multiplied sums are not destroyed, over all communicators. */
EXPORT int
fake_nccl_count_reduction_ops (void)
{
  int count;

  pthread_mutex_lock (&lock);
  count = reduction_ops;
  pthread_mutex_unlock (&lock);
  return count;
}

/* How often NCCL 2.28's all-to-all, gather and scatter were called. */
EXPORT int
fake_nccl_count_exchange_calls (void)
{
  return __atomic_load_n (&exchange_calls, __ATOMIC_SEQ_CST);
}
