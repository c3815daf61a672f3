// SPDX-License-Identifier: GPL-2.0
/*
 * ac-test-nohctx: makes every call of AC's limit_depth look as it does on
 * the kernels before "block: Call .limit_depth() after .hctx has been set"
 * (6.2 to 6.10, and stable kernels before its backport), where
 * data->hctx is still NULL.  A kretprobe clears data->hctx on entry and
 * puts it back on return, per call.
 *
 * calls counts the calls seen, limited those that came back with a
 * shallow_depth (writes and async reads): the guest test checks both, so
 * that a probe that never fired cannot pass.  Test-only, never
 * installed.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/ptrace.h>

#include "block/blk-mq.h"

struct ac_nohctx_call {
	struct blk_mq_alloc_data *data;
	struct blk_mq_hw_ctx *hctx;
};

static atomic_t calls = ATOMIC_INIT(0);
static atomic_t limited = ATOMIC_INIT(0);

static int calls_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops ac_nohctx_count_ops = {
	.get = calls_get,
};

module_param_cb(calls, &ac_nohctx_count_ops, &calls, 0444);
MODULE_PARM_DESC(calls, "limit_depth calls made with data->hctx NULL");
module_param_cb(limited, &ac_nohctx_count_ops, &limited, 0444);
MODULE_PARM_DESC(limited, "of those, the ones that got a shallow_depth");

static int ac_nohctx_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ac_nohctx_call *c = (struct ac_nohctx_call *)ri->data;

	c->data = (struct blk_mq_alloc_data *)regs_get_kernel_argument(regs, 1);
	c->hctx = c->data->hctx;
	c->data->shallow_depth = 0;
	c->data->hctx = NULL;
	atomic_inc(&calls);
	return 0;
}

static int ac_nohctx_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ac_nohctx_call *c = (struct ac_nohctx_call *)ri->data;

	if (c->data->shallow_depth)
		atomic_inc(&limited);
	c->data->hctx = c->hctx;
	return 0;
}

static struct kretprobe ac_nohctx_probe = {
	.kp.symbol_name	= "ac_limit_depth",
	.entry_handler	= ac_nohctx_entry,
	.handler	= ac_nohctx_return,
	.data_size	= sizeof(struct ac_nohctx_call),
	.maxactive	= 64,
};

static int __init ac_nohctx_init(void)
{
	return register_kretprobe(&ac_nohctx_probe);
}

static void __exit ac_nohctx_exit(void)
{
	unregister_kretprobe(&ac_nohctx_probe);
}

module_init(ac_nohctx_init);
module_exit(ac_nohctx_exit);
MODULE_DESCRIPTION("Test-only: AC's limit_depth called without data->hctx");
MODULE_LICENSE("GPL");
