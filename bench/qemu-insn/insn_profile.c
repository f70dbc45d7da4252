/* A QEMU TCG plugin like insn_count.c that also says where the instructions go: each translated
 * block counts its executions, and at exit the totals are summed per symbol of the block's first
 * instruction (qemu knows the main binary's symbols; code in shared libraries has none and is
 * reported by its 1 MiB-aligned region, "?0x5502800000", to be mapped with the run's
 * -strace mmap lines or /proc maps). Prints "insns: N" and then "prof: COUNT SYMBOL" lines.
 * bench/arm-insn-profile.sh builds and runs it. With the argument tb=on (-plugin
 * insn_profile.so,tb=on) each block is its own line, by address (objdump's address plus the load
 * base, 0x5500000000 for a PIE under qemu-aarch64). Exact with one guest thread (--threads 1). */
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_api.h"

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

struct block {
  uint64_t insns; /* incremented by n_insns per execution (inline) */
  const char* sym; /* qemu's string, lives as long as the process */
  uint64_t vaddr;
  struct block* next;
};

static struct block* blocks;
static int by_block; /* plugin argument "tb": one line per translated block address instead */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  struct block* b = calloc(1, sizeof *b);
  b->vaddr = qemu_plugin_tb_vaddr(tb);
  b->sym = qemu_plugin_insn_symbol(qemu_plugin_tb_get_insn(tb, 0));
  pthread_mutex_lock(&lock);
  b->next = blocks;
  blocks = b;
  pthread_mutex_unlock(&lock);
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->insns, qemu_plugin_tb_n_insns(tb));
}

struct total {
  char name[256];
  uint64_t insns;
};

static int by_count(const void* a, const void* b) {
  const struct total *x = a, *y = b;
  return x->insns < y->insns ? 1 : x->insns > y->insns ? -1 : 0;
}

static void at_exit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  size_t cap = 1024, n = 0;
  struct total* t = calloc(cap, sizeof *t);
  uint64_t all = 0;
  for (struct block* b = blocks; b; b = b->next) {
    if (!b->insns) continue;
    all += b->insns;
    char name[256];
    if (by_block) snprintf(name, sizeof name, "0x%" PRIx64 " %s", b->vaddr, b->sym ? b->sym : "?");
    else if (b->sym && *b->sym) snprintf(name, sizeof name, "%s", b->sym);
    else snprintf(name, sizeof name, "?0x%" PRIx64, b->vaddr & ~(uint64_t)0xfffff);
    size_t i = 0;
    while (i < n && strcmp(t[i].name, name) != 0) ++i;
    if (i == n) {
      if (n == cap) t = realloc(t, (cap *= 2) * sizeof *t);
      memset(&t[n], 0, sizeof t[n]);
      snprintf(t[n].name, sizeof t[n].name, "%s", name);
      ++n;
    }
    t[i].insns += b->insns;
  }
  qsort(t, n, sizeof *t, by_count);
  char line[320];
  snprintf(line, sizeof line, "insns: %" PRIu64 "\n", all);
  qemu_plugin_outs(line);
  for (size_t i = 0; i < n; ++i) {
    snprintf(line, sizeof line, "prof: %" PRIu64 " %s\n", t[i].insns, t[i].name);
    qemu_plugin_outs(line);
  }
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                                               char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i)
    if (strcmp(argv[i], "tb") == 0 || strcmp(argv[i], "tb=on") == 0) by_block = 1;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, at_exit, NULL);
  return 0;
}
