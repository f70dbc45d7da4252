/* A QEMU TCG plugin that counts guest instructions executed (all threads together) and prints
 * the total at exit as "insns: N". Debian's qemu-user supports -plugin but ships no plugins, so
 * bench/arm-insn-count.sh builds this one. The API declarations it needs are in qemu_plugin_api.h.
 * The counter is a plain inline add: exact with one guest thread (run mdfi with --threads 1),
 * approximate with several. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "qemu_plugin_api.h"

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t executed;

/* At translation time each block learns its length; every execution then adds it. */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed, qemu_plugin_tb_n_insns(tb));
}

static void on_exit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  char line[64];
  snprintf(line, sizeof line, "insns: %" PRIu64 "\n", executed);
  qemu_plugin_outs(line);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                                               char** argv) {
  (void)info;
  (void)argc;
  (void)argv;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_exit, NULL);
  return 0;
}
