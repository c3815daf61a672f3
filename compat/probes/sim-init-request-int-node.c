// SPDX-License-Identifier: GPL-2.0
/*
 * blk_mq_ops.init_request takes the NUMA node as int.  6.1 and 6.12 pass
 * it as unsigned int; it became int in a later kernel (7.2 has int).
 */
#include <linux/blk-mq.h>

static int ac_probe_init_request(struct blk_mq_tag_set *set,
				 struct request *rq, unsigned int hctx_idx,
				 int numa_node)
{
	return 0;
}

static_assert(__same_type(((struct blk_mq_ops *)NULL)->init_request,
			  &ac_probe_init_request));
