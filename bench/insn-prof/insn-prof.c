// SPDX-License-Identifier: GPL-2.0
/*
 * insn-prof: a QEMU TCG plugin that counts the guest instructions executed
 * per translation block, for a per-function instruction profile of the
 * guest kernel (issue 16: what an elevator costs per I/O, counted instead
 * of timed, so that it does not move with the host's load).
 *
 *   qemu-system-x86_64 ... -plugin insn-prof.so,out=<prefix>
 *
 * Every time the guest runs the marker instruction (movabs of MARK_MAGIC
 * into rax, from user space: insn-probe builds a tiny function of it and
 * calls it between measurements), the counts so far go to <prefix>.<n> as
 * lines "vaddr insns-per-exec executions", and start again from zero.
 * User-space blocks are summed into one line with vaddr 0.
 *
 * Written against the plugin ABI of QEMU 7.2 (version 1), declared here
 * because Debian ships no header for it.  Counts are not atomic across
 * vCPUs: two vCPUs running one block at the same instant may lose an
 * increment, which is rare next to the counts read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QP_CB_NO_REGS };
enum qemu_plugin_op { QP_INLINE_ADD_U64 };

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
	enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
	void (*cb)(unsigned int, void *), enum qemu_plugin_cb_flags flags,
	void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t, void *), void *udata);

/* One counter per (block start, length); open addressing, never shrinks. */
struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t count;
};

#define TABLE_BITS	20
#define TABLE_SIZE	(1u << TABLE_BITS)
#define KERNEL_START	0xffff800000000000ull

static struct block *table;
static unsigned int used;
static struct block user_block;	/* every user-space block, per insn */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* movabs $MARK_MAGIC, %rax: 48 b8, then the immediate, little-endian */
#define MARK_MAGIC	0x5ac0ffee5ac0ffeeull
static char out[4096] = "insn-prof";
static unsigned int snapshots;

static struct block *lookup(uint64_t vaddr, uint64_t insns)
{
	uint64_t h = (vaddr ^ (insns << 56)) * 0x9e3779b97f4a7c15ull;
	unsigned int i = h >> (64 - TABLE_BITS);

	for (;;) {
		struct block *b = &table[i];

		if (!b->insns) {
			if (used >= TABLE_SIZE * 3 / 4)
				return NULL;
			b->vaddr = vaddr;
			b->insns = insns;
			used++;
			return b;
		}
		if (b->vaddr == vaddr && b->insns == insns)
			return b;
		i = (i + 1) & (TABLE_SIZE - 1);
	}
}

static void snapshot(unsigned int vcpu, void *udata)
{
	char path[4200];
	unsigned int i;
	FILE *f;

	(void)vcpu;
	(void)udata;
	pthread_mutex_lock(&lock);
	snprintf(path, sizeof(path), "%s.%u", out, snapshots++);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "0 1 %llu\n", (unsigned long long)user_block.count);
		for (i = 0; i < TABLE_SIZE; i++)
			if (table[i].count)
				fprintf(f, "%llx %llu %llu\n",
					(unsigned long long)table[i].vaddr,
					(unsigned long long)table[i].insns,
					(unsigned long long)table[i].count);
		fclose(f);
	}
	user_block.count = 0;
	for (i = 0; i < TABLE_SIZE; i++)
		table[i].count = 0;
	pthread_mutex_unlock(&lock);
}

/* Whether @tb starts with the marker instruction. */
static int is_mark(const struct qemu_plugin_tb *tb)
{
	const struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, 0);
	const unsigned char *p;
	uint64_t imm;

	if (!insn || qemu_plugin_insn_size(insn) != 10)
		return 0;
	p = qemu_plugin_insn_data(insn);
	if (p[0] != 0x48 || p[1] != 0xb8)
		return 0;
	memcpy(&imm, p + 2, sizeof(imm));
	return imm == MARK_MAGIC;
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	uint64_t insns = qemu_plugin_tb_n_insns(tb);
	struct block *b;

	(void)id;
	if (vaddr < KERNEL_START) {
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QP_INLINE_ADD_U64,
							 &user_block.count, insns);
		if (is_mark(tb))
			qemu_plugin_register_vcpu_tb_exec_cb(tb, snapshot,
							     QP_CB_NO_REGS, NULL);
		return;
	}
	pthread_mutex_lock(&lock);
	b = lookup(vaddr, insns);
	pthread_mutex_unlock(&lock);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QP_INLINE_ADD_U64,
							 &b->count, 1);
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	snapshot(0, udata);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			snprintf(out, sizeof(out), "%s", argv[i] + 4);
	}
	table = calloc(TABLE_SIZE, sizeof(*table));
	if (!table)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
