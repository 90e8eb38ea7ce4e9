/* A stand-in for libhsa-runtime64.so.1 that simulates one GPU (gfx90a), for
 * tests/replay_fake_gpu.rs: it defines every function the replay bindings
 * resolve, with hsa.h's types, and a "packet processor" that runs in the
 * thread that rings the doorbell.
 *
 * The "kernel" is chosen by the code object's first four bytes:
 *   OKAY  writes one wave's record to the output buffer (its address read
 *         from the two dwords at file offsets 8 and 12, where the harness
 *         patched it): s[0:1] = the packet's address, s[2:3] = the queue's,
 *         s[4:5] = the kernarg address, s[6] = the first kernarg dword,
 *         s[7] = the packet's header | setup << 16, s[8:9] = the grid X and
 *         work-group X sizes, s[10] = the dispatch id (the packet index);
 *   HANG  never completes;
 *   ABRT  aborts the process (as the runtime does on a GPU memory fault);
 *   FALT  reports HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION to the queue's
 *         error callback;
 * and the loader refuses objects that start with "BAD!", and ELF files of
 * code object V5 or later (as ROCm 5.0's loader, library version 1.5, did),
 * with HSA_STATUS_ERROR_INVALID_CODE_OBJECT.
 *
 * Built with -DFAKE_INIT_STATUS=N, hsa_init returns N; with -DFAKE_NO_GPU,
 * the runtime lists the CPU agent only.
 */
#define _POSIX_C_SOURCE 200809L
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CPU 1
#define GPU 2
#define ISA 7
#define POOL_KERNARG 100
#define POOL_FINE 101
#define POOL_COARSE 102

typedef struct {
  _Atomic int64_t value;
  void *queue; /* a doorbell: its queue */
} fake_signal_t;

typedef struct {
  hsa_queue_t q; /* first: the hsa_queue_t* the caller sees */
  _Atomic uint64_t write_index;
  _Atomic uint64_t read_index;
  void (*callback)(hsa_status_t, hsa_queue_t *, void *);
  void *data;
} fake_queue_t;

typedef struct {
  uint8_t *bytes;
  size_t size;
} fake_code_t;

hsa_status_t hsa_status_string(hsa_status_t status, const char **s) {
  *s = status == HSA_STATUS_SUCCESS ? "HSA_STATUS_SUCCESS: fake" : "fake error";
  return HSA_STATUS_SUCCESS;
}
/* -DFAKE_INIT_STATUS=0x1008: hsa_init fails as without /dev/kfd. */
hsa_status_t hsa_init(void) {
#ifdef FAKE_INIT_STATUS
  return (hsa_status_t)FAKE_INIT_STATUS;
#else
  return HSA_STATUS_SUCCESS;
#endif
}
hsa_status_t hsa_shut_down(void) { return HSA_STATUS_SUCCESS; }

hsa_status_t hsa_system_get_info(hsa_system_info_t a, void *v) {
  switch ((int)a) {
  case HSA_SYSTEM_INFO_VERSION_MAJOR:
  case HSA_SYSTEM_INFO_VERSION_MINOR:
    *(uint16_t *)v = 1;
    return HSA_STATUS_SUCCESS;
  case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY:
    *(uint64_t *)v = 1000000000;
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_SYSTEM_INFO_BUILD_VERSION:
    *(const char **)v = "1.5.0-fake";
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_iterate_agents(hsa_status_t (*cb)(hsa_agent_t, void *), void *d) {
  hsa_agent_t a = {CPU};
  hsa_status_t s = cb(a, d);
#ifdef FAKE_NO_GPU /* -DFAKE_NO_GPU: a machine with the driver and no GPU */
  return s;
#endif
  if (s != HSA_STATUS_SUCCESS)
    return s;
  a.handle = GPU;
  return cb(a, d);
}

hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t a, void *v) {
  int gpu = agent.handle == GPU;
  switch ((int)a) {
  case HSA_AGENT_INFO_NAME:
    strcpy((char *)v, gpu ? "gfx90a" : "Fake CPU");
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_AGENT_INFO_PRODUCT_NAME:
    strcpy((char *)v, gpu ? "Fake GPU" : "Fake CPU");
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_DEVICE:
    *(uint32_t *)v = gpu ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU;
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_PROFILE:
    *(uint32_t *)v = HSA_PROFILE_BASE;
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_QUEUE_MIN_SIZE:
    *(uint32_t *)v = 64;
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_QUEUE_MAX_SIZE:
    *(uint32_t *)v = 4096;
    return HSA_STATUS_SUCCESS;
  case 0xA108: /* HSA_AMD_AGENT_INFO_UCODE_VERSION (ROCm 5.5+) */
    *(uint32_t *)v = 42;
    return HSA_STATUS_SUCCESS;
  }
  /* SDMA ucode and the rest: an old runtime. */
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_agent_iterate_isas(hsa_agent_t agent, hsa_status_t (*cb)(hsa_isa_t, void *),
                                    void *d) {
  if (agent.handle != GPU)
    return HSA_STATUS_SUCCESS;
  hsa_isa_t i = {ISA};
  return cb(i, d);
}

static const char ISA_NAME[] = "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-";

hsa_status_t hsa_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t a, void *v) {
  if (isa.handle != ISA)
    return HSA_STATUS_ERROR_INVALID_ISA;
  if (a == HSA_ISA_INFO_NAME_LENGTH) {
    *(uint32_t *)v = sizeof ISA_NAME - 1;
    return HSA_STATUS_SUCCESS;
  }
  if (a == HSA_ISA_INFO_NAME) {
    memcpy(v, ISA_NAME, sizeof ISA_NAME - 1);
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_amd_agent_iterate_memory_pools(hsa_agent_t agent,
                                                hsa_status_t (*cb)(hsa_amd_memory_pool_t, void *),
                                                void *d) {
  if (agent.handle != CPU)
    return HSA_STATUS_SUCCESS;
  uint64_t pools[] = {POOL_COARSE, POOL_KERNARG, POOL_FINE};
  for (int i = 0; i < 3; i++) {
    hsa_amd_memory_pool_t p = {pools[i]};
    hsa_status_t s = cb(p, d);
    if (s != HSA_STATUS_SUCCESS)
      return s;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t p, hsa_amd_memory_pool_info_t a,
                                          void *v) {
  switch ((int)a) {
  case HSA_AMD_MEMORY_POOL_INFO_SEGMENT:
    *(uint32_t *)v = HSA_AMD_SEGMENT_GLOBAL;
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS:
    *(uint32_t *)v = p.handle == POOL_KERNARG  ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT |
                                                    HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED
                     : p.handle == POOL_FINE ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED
                                             : HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED;
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED:
    *(bool *)v = true;
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_MEMORY_POOL_INFO_SIZE:
    *(size_t *)v = (size_t)1 << 30;
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t p, size_t size, uint32_t flags,
                                          void **ptr) {
  (void)flags;
  if (p.handle == POOL_COARSE)
    return HSA_STATUS_ERROR_INVALID_ALLOCATION; /* the harness must not use it */
  size_t rounded = (size + 4095) / 4096 * 4096;
  *ptr = aligned_alloc(4096, rounded);
  if (!*ptr)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  memset(*ptr, 0xA5, rounded); /* the harness zeroes what it uses */
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_pool_free(void *ptr) {
  free(ptr);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_agents_allow_access(uint32_t n, const hsa_agent_t *agents,
                                         const uint32_t *flags, const void *ptr) {
  (void)flags;
  (void)ptr;
  for (uint32_t i = 0; i < n; i++)
    if (agents[i].handle != GPU)
      return HSA_STATUS_ERROR_INVALID_AGENT;
  return HSA_STATUS_SUCCESS;
}

static fake_signal_t *sig(hsa_signal_t s) { return (fake_signal_t *)(uintptr_t)s.handle; }

hsa_status_t hsa_signal_create(hsa_signal_value_t v, uint32_t n, const hsa_agent_t *c,
                               hsa_signal_t *s) {
  (void)n;
  (void)c;
  fake_signal_t *f = calloc(1, sizeof *f);
  atomic_store(&f->value, v);
  s->handle = (uint64_t)(uintptr_t)f;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_signal_destroy(hsa_signal_t s) {
  free(sig(s));
  return HSA_STATUS_SUCCESS;
}

hsa_signal_value_t hsa_signal_load_scacquire(hsa_signal_t s) { return atomic_load(&sig(s)->value); }

static uint32_t rd32(const uint8_t *b) {
  uint32_t v;
  memcpy(&v, b, 4);
  return v;
}

static void wr32(uint64_t addr, uint32_t v) { memcpy((void *)(uintptr_t)addr, &v, 4); }

/* Runs the packet at `index`: the "kernel" of its code object. */
static void run_packet(fake_queue_t *fq, uint64_t index) {
  hsa_kernel_dispatch_packet_t *p =
      (hsa_kernel_dispatch_packet_t *)fq->q.base_address + index % fq->q.size;
  uint32_t word0 = atomic_load((_Atomic uint32_t *)p);
  uint16_t header = word0 & 0xffff;
  if ((header & 0xff) != HSA_PACKET_TYPE_KERNEL_DISPATCH) {
    fq->callback(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, &fq->q, fq->data);
    return;
  }
  fake_code_t *code = (fake_code_t *)(uintptr_t)p->kernel_object;
  const uint8_t *b = code->bytes;
  if (!memcmp(b, "HANG", 4))
    return;
  if (!memcmp(b, "ABRT", 4))
    abort();
  if (!memcmp(b, "FALT", 4)) {
    fq->callback((hsa_status_t)HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION, &fq->q, fq->data);
    return;
  }
  uint64_t out = (uint64_t)rd32(b + 8) | (uint64_t)rd32(b + 12) << 32;
  /* One wave64 record at offset 64: rows of 64 dwords. */
  uint64_t rec = out + 64, row = 64 * 4;
  uint64_t pk = (uint64_t)(uintptr_t)p, q = (uint64_t)(uintptr_t)&fq->q;
  uint64_t ka = (uint64_t)(uintptr_t)p->kernarg_address;
  uint32_t sgpr[11] = {(uint32_t)pk,
                       (uint32_t)(pk >> 32),
                       (uint32_t)q,
                       (uint32_t)(q >> 32),
                       (uint32_t)ka,
                       (uint32_t)(ka >> 32),
                       rd32((const uint8_t *)p->kernarg_address),
                       word0,
                       p->grid_size_x,
                       p->workgroup_size_x,
                       (uint32_t)index};
  for (int i = 0; i < 11; i++)
    wr32(rec + 4 * i, sgpr[i]);
  wr32(rec + row + 0, 0xffffffff); /* EXEC */
  wr32(rec + row + 4, 0xffffffff);
  wr32(rec + row + 5 * 4, 0);          /* slot */
  wr32(rec + row + 6 * 4, 0x42505348); /* magic */
  wr32(rec + row + 7 * 4, 1);          /* entry */
  wr32(out, 1);                        /* one wave took a slot */
  atomic_store((_Atomic uint32_t *)p, (uint32_t)HSA_PACKET_TYPE_INVALID);
  atomic_fetch_sub(&sig(p->completion_signal)->value, 1);
}

void hsa_signal_store_screlease(hsa_signal_t s, hsa_signal_value_t v) {
  fake_signal_t *f = sig(s);
  atomic_store(&f->value, v);
  if (f->queue) {
    fake_queue_t *fq = f->queue;
    uint64_t r = atomic_load(&fq->read_index);
    for (; r <= (uint64_t)v; r++) {
      run_packet(fq, r);
      atomic_store(&fq->read_index, r + 1);
    }
  }
}

hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t s, hsa_signal_condition_t c,
                                             hsa_signal_value_t cmp, uint64_t timeout,
                                             hsa_wait_state_t w) {
  (void)w;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    hsa_signal_value_t v = atomic_load(&sig(s)->value);
    if (c == HSA_SIGNAL_CONDITION_LT && v < cmp)
      return v;
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t ns = (uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t.tv_nsec -
                  (uint64_t)t0.tv_nsec;
    if (ns >= timeout)
      return v;
    struct timespec nap = {0, 1000000};
    nanosleep(&nap, NULL);
  }
}

hsa_status_t hsa_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                              void (*cb)(hsa_status_t, hsa_queue_t *, void *), void *data,
                              uint32_t priv, uint32_t group, hsa_queue_t **queue) {
  (void)type;
  (void)priv;
  (void)group;
  if (agent.handle != GPU)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (size < 64 || (size & (size - 1)))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  fake_queue_t *fq = aligned_alloc(64, (sizeof *fq + 63) / 64 * 64);
  memset(fq, 0, sizeof *fq);
  hsa_kernel_dispatch_packet_t *ring = aligned_alloc(64, size * 64);
  for (uint32_t i = 0; i < size; i++) {
    memset(&ring[i], 0, 64);
    ring[i].header = HSA_PACKET_TYPE_INVALID;
  }
  fq->q.base_address = ring;
  fq->q.size = size;
  fake_signal_t *door = calloc(1, sizeof *door);
  door->queue = fq;
  fq->q.doorbell_signal.handle = (uint64_t)(uintptr_t)door;
  fq->callback = cb;
  fq->data = data;
  *queue = &fq->q;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_queue_destroy(hsa_queue_t *q) {
  fake_queue_t *fq = (fake_queue_t *)q;
  free(q->base_address);
  free((void *)(uintptr_t)q->doorbell_signal.handle);
  free(fq);
  return HSA_STATUS_SUCCESS;
}

uint64_t hsa_queue_add_write_index_scacq_screl(const hsa_queue_t *q, uint64_t v) {
  return atomic_fetch_add(&((fake_queue_t *)q)->write_index, v);
}

uint64_t hsa_queue_load_read_index_scacquire(const hsa_queue_t *q) {
  return atomic_load(&((fake_queue_t *)q)->read_index);
}

hsa_status_t hsa_code_object_reader_create_from_memory(const void *co, size_t size,
                                                       hsa_code_object_reader_t *r) {
  fake_code_t *c = malloc(sizeof *c);
  c->bytes = malloc(size);
  memcpy(c->bytes, co, size);
  c->size = size;
  r->handle = (uint64_t)(uintptr_t)c;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t r) {
  fake_code_t *c = (fake_code_t *)(uintptr_t)r.handle;
  free(c->bytes);
  free(c);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_create_alt(hsa_profile_t p, hsa_default_float_rounding_mode_t m,
                                       const char *o, hsa_executable_t *e) {
  (void)p;
  (void)m;
  (void)o;
  e->handle = (uint64_t)(uintptr_t)calloc(1, sizeof(fake_code_t));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_load_agent_code_object(hsa_executable_t e, hsa_agent_t a,
                                                   hsa_code_object_reader_t r, const char *o,
                                                   hsa_loaded_code_object_t *l) {
  (void)o;
  (void)l;
  if (a.handle != GPU)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  fake_code_t *c = (fake_code_t *)(uintptr_t)r.handle, *x = (fake_code_t *)(uintptr_t)e.handle;
  if (c->size < 16 || !memcmp(c->bytes, "BAD!", 4))
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  if (!memcmp(c->bytes, "\x7f" "ELF", 4) && c->bytes[8] >= 3)
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  x->bytes = malloc(c->size);
  memcpy(x->bytes, c->bytes, c->size);
  x->size = c->size;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_freeze(hsa_executable_t e, const char *o) {
  (void)e;
  (void)o;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_validate(hsa_executable_t e, uint32_t *result) {
  (void)e;
  *result = 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t e, const char *name,
                                               const hsa_agent_t *a, hsa_executable_symbol_t *s) {
  size_t n = strlen(name);
  if (!a || a->handle != GPU || n < 3 || strcmp(name + n - 3, ".kd"))
    return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  s->handle = e.handle;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t s,
                                            hsa_executable_symbol_info_t a, void *v) {
  switch ((int)a) {
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
    *(uint64_t *)v = s.handle;
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE:
    *(uint32_t *)v = 8;
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE:
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE:
    *(uint32_t *)v = 0;
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_executable_destroy(hsa_executable_t e) {
  fake_code_t *x = (fake_code_t *)(uintptr_t)e.handle;
  free(x->bytes);
  free(x);
  return HSA_STATUS_SUCCESS;
}
