// SPDX-License-Identifier: GPL-2.0
/*
 * ssdsim: an emulated SSD with channel and die parallelism.
 *
 * A RAM-backed blk-mq block device whose commands take the time a flash SSD
 * would need: each command is split into flash pages, each page occupies its
 * die and its channel (ssdsim-model.c), and the command completes, from an
 * hrtimer, when its last page does.  Commands on one channel serialise,
 * commands on different channels overlap, a read waits behind a program on
 * its die, and the device holds at most queue_depth commands.  That makes
 * I/O scheduling effects measurable under QEMU, where no real SSD exists.
 * Per die, it counts the commands there (debugfs stats); jitter_us delays
 * each completion by a random amount the model never sees, to reorder them.
 *
 * Data lives in kernel pages in an xarray, allocated on first write and
 * freed by discard and write zeroes.  Data is copied at submission; only the
 * completion is delayed.  A completed write is in RAM, which is as stable as
 * this device gets, so flush completes at once and FUA needs no extra work.
 *
 * Devices: nr_devices with the module parameters, then one more for each
 * entry of "devices", each entry overriding some of those parameters.
 * Statistics and the effective parameters: debugfs ssdsim/<disk>/.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "ac-compat.h"

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "ssdsim-model.h"

#define SSDSIM_MAX_DEVICES	16
/* Largest command: 256 KiB, what many NVMe and SATA SSDs accept (MDTS). */
#define SSDSIM_MAX_HW_SECTORS	512
/* The device's own timer always completes a command: never time it out. */
#define SSDSIM_TIMEOUT		(30 * HZ)

/* blk_mq_ops.init_request's node argument became int */
#ifdef AC_HAVE_SIM_INIT_REQUEST_INT_NODE
#define SSDSIM_NUMA_NODE_T	int
#else
#define SSDSIM_NUMA_NODE_T	unsigned int
#endif

/* Backing store: one kernel page per PAGE_SIZE of the device. */
#define STORE_SECTOR_SHIFT	(PAGE_SHIFT - SECTOR_SHIFT)
#define STORE_SECTORS		BIT(STORE_SECTOR_SHIFT)

struct ssdsim_dev {
	int index;
	struct ssdsim_params params;
	u64 capacity;			/* bytes */
	u32 jitter_ns;			/* extra completion delay, at most */
	u32 cmd_units;			/* room in ssdsim_cmd.units */

	/* model_lock protects the model and the counters below it */
	spinlock_t model_lock;
	struct ssdsim_model model;
	unsigned int max_inflight;
	u64 flushes;
	u64 discards;
	u64 write_zeroes;
	u64 alloc_retries;		/* writes requeued: no memory */
	atomic_t inflight;		/* commands started, not completed */
	atomic_t ends;			/* reads and writes that reached their end */
	atomic64_t requeued;		/* of those, given back (requeue_every) */

	/*
	 * data_lock: copies hold it for reading; discard and write zeroes,
	 * which free pages, hold it for writing.  The xarray has its own lock
	 * for inserts.
	 */
	rwlock_t data_lock;
	struct xarray pages;

	struct blk_mq_tag_set tag_set;
	struct gendisk *disk;
	struct dentry *debugfs;
};

/* Per-request driver data. */
struct ssdsim_cmd {
	struct hrtimer timer;		/* fires when the model says "done" */
	u16 nr_units;			/* dies the command is at */
	u16 units[];			/* [ssdsim_dev.cmd_units] */
};

static int ssdsim_major;
static struct dentry *ssdsim_debugfs_root;
static struct ssdsim_dev *ssdsim_devs[SSDSIM_MAX_DEVICES];

/* ---- module parameters: the defaults for every device ---- */

static unsigned int nr_devices = 1;
module_param(nr_devices, uint, 0444);
MODULE_PARM_DESC(nr_devices, "Devices with the parameters below, /dev/ssdsim0.. (0..16, default 1)");

static char devices[256];
module_param_string(devices, devices, sizeof(devices), 0444);
MODULE_PARM_DESC(devices, "More devices, ';'-separated, each a ','-separated list of key=value overriding the parameters below, e.g. \"channels=4,mapping=ftl;time_scale=1\" (default none)");

static unsigned int capacity_mb = 1024;
module_param(capacity_mb, uint, 0444);
MODULE_PARM_DESC(capacity_mb, "Capacity in MiB, rounded down to whole pages on every die; RAM is used only for written data (default 1024)");

static unsigned int logical_block_size = 512;
module_param(logical_block_size, uint, 0444);
MODULE_PARM_DESC(logical_block_size, "Logical block size in bytes: 512 or 4096 (default 512)");

static unsigned int channels = 8;
module_param(channels, uint, 0444);
MODULE_PARM_DESC(channels, "Number of channels (buses), 1..64 (default 8)");

static unsigned int dies = 4;
module_param(dies, uint, 0444);
MODULE_PARM_DESC(dies, "Dies per channel, 1..64 (default 4)");

static unsigned int page_kb = 4;
module_param(page_kb, uint, 0444);
MODULE_PARM_DESC(page_kb, "Flash page size in KiB, a power of two 1..256 (default 4)");

static unsigned int read_us = 50;
module_param(read_us, uint, 0444);
MODULE_PARM_DESC(read_us, "Die array read time per page in microseconds, before time_scale (default 50)");

static unsigned int program_us = 500;
module_param(program_us, uint, 0444);
MODULE_PARM_DESC(program_us, "Die program time per page in microseconds, before time_scale (default 500)");

static unsigned int xfer_us = 10;
module_param(xfer_us, uint, 0444);
MODULE_PARM_DESC(xfer_us, "Channel transfer time per page in microseconds, before time_scale (default 10)");

static unsigned int queue_depth = 32;
module_param(queue_depth, uint, 0444);
MODULE_PARM_DESC(queue_depth, "Commands the device holds at once, like SATA NCQ's 32; 1..1024 (default 32)");

static unsigned int time_scale = 100;
module_param(time_scale, uint, 0444);
MODULE_PARM_DESC(time_scale, "Multiplier on read_us, program_us and xfer_us, 1..10000 (default 100)");

static char mapping[8] = "range";
module_param_string(mapping, mapping, sizeof(mapping), 0444);
MODULE_PARM_DESC(mapping, "LBA to channel/die mapping: range (contiguous split), stripe (stripe_kb chunks round-robin over channels, then dies) or ftl (page-mapped, written pages placed round-robin in write order) (default range)");

static unsigned int stripe_kb = 64;
module_param(stripe_kb, uint, 0444);
MODULE_PARM_DESC(stripe_kb, "Stripe chunk in KiB, a multiple of page_kb; also where ftl places never-written pages (default 64)");

static unsigned int requeue_every;
module_param(requeue_every, uint, 0444);
MODULE_PARM_DESC(requeue_every, "Give every Nth read or write back to the block layer at its modelled end (blk_mq_requeue_request(), as a SCSI retry does) instead of completing it; it is then issued again; 0..1000000 (default 0: never)");

static unsigned int jitter_us;
module_param(jitter_us, uint, 0444);
MODULE_PARM_DESC(jitter_us, "Complete each read and write up to this many microseconds (uniformly random) after its modelled end, to reorder completions; NOT multiplied by time_scale; the model's times and statistics do not include it; 0..1000000 (default 0)");

static int ssdsim_parse_mapping(const char *s, enum ssdsim_mapping *map)
{
	static const enum ssdsim_mapping all[] = {
		SSDSIM_MAP_RANGE, SSDSIM_MAP_STRIPE, SSDSIM_MAP_FTL,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(all); i++) {
		if (sysfs_streq(s, ssdsim_mapping_name(all[i]))) {
			*map = all[i];
			return 0;
		}
	}
	return -EINVAL;
}

/* The u32 parameters an entry of "devices" may override. */
static const struct {
	const char *name;
	size_t offset;
} ssdsim_keys[] = {
#define SSDSIM_KEY(f) { #f, offsetof(struct ssdsim_params, f) }
	SSDSIM_KEY(capacity_mb),
	SSDSIM_KEY(logical_block_size),
	SSDSIM_KEY(channels),
	SSDSIM_KEY(dies),
	SSDSIM_KEY(page_kb),
	SSDSIM_KEY(read_us),
	SSDSIM_KEY(program_us),
	SSDSIM_KEY(xfer_us),
	SSDSIM_KEY(queue_depth),
	SSDSIM_KEY(time_scale),
	SSDSIM_KEY(stripe_kb),
	SSDSIM_KEY(jitter_us),
	SSDSIM_KEY(requeue_every),
#undef SSDSIM_KEY
};

static int ssdsim_set_key(struct ssdsim_params *p, char *key, char *val)
{
	int i;

	if (!strcmp(key, "mapping"))
		return ssdsim_parse_mapping(val, &p->mapping);
	for (i = 0; i < ARRAY_SIZE(ssdsim_keys); i++) {
		if (!strcmp(key, ssdsim_keys[i].name))
			return kstrtou32(val, 0,
					 (u32 *)((char *)p + ssdsim_keys[i].offset));
	}
	return -ENOENT;
}

/* Apply "key=value,key=value" to @p; @spec is modified. */
static int ssdsim_apply_overrides(struct ssdsim_params *p, char *spec)
{
	char *item, *val;
	int ret;

	while ((item = strsep(&spec, ",")) != NULL) {
		item = strim(item);
		if (!*item)
			continue;
		val = strchr(item, '=');
		if (!val) {
			pr_err("devices: \"%s\" is not key=value\n", item);
			return -EINVAL;
		}
		*val++ = '\0';
		ret = ssdsim_set_key(p, strim(item), strim(val));
		if (ret == -ENOENT) {
			pr_err("devices: unknown parameter \"%s\"\n", item);
			return -EINVAL;
		}
		if (ret) {
			pr_err("devices: bad value \"%s\" for %s\n", val, item);
			return -EINVAL;
		}
	}
	return 0;
}

static int ssdsim_global_params(struct ssdsim_params *p)
{
	*p = (struct ssdsim_params) {
		.capacity_mb		= capacity_mb,
		.logical_block_size	= logical_block_size,
		.channels		= channels,
		.dies			= dies,
		.page_kb		= page_kb,
		.read_us		= read_us,
		.program_us		= program_us,
		.xfer_us		= xfer_us,
		.queue_depth		= queue_depth,
		.time_scale		= time_scale,
		.stripe_kb		= stripe_kb,
		.jitter_us		= jitter_us,
		.requeue_every		= requeue_every,
	};
	if (ssdsim_parse_mapping(mapping, &p->mapping)) {
		pr_err("invalid parameters: mapping \"%s\" must be range, stripe or ftl\n",
		       mapping);
		return -EINVAL;
	}
	return 0;
}

static int ssdsim_check_params(const struct ssdsim_params *p, int index)
{
	const char *why = ssdsim_params_check(p);

	if (!why)
		return 0;
	pr_err("invalid parameters for ssdsim%d: %s\n", index, why);
	pr_err("ssdsim%d had capacity_mb=%u logical_block_size=%u channels=%u dies=%u page_kb=%u read_us=%u program_us=%u xfer_us=%u queue_depth=%u time_scale=%u mapping=%s stripe_kb=%u jitter_us=%u\n",
	       index, p->capacity_mb, p->logical_block_size, p->channels,
	       p->dies, p->page_kb, p->read_us, p->program_us, p->xfer_us,
	       p->queue_depth, p->time_scale, ssdsim_mapping_name(p->mapping),
	       p->stripe_kb, p->jitter_us);
	return -EINVAL;
}

/* ---- backing store ---- */

/* Make sure every store page of [sector, sector + nr) exists. */
static int ssdsim_alloc_range(struct ssdsim_dev *dev, sector_t sector,
			      unsigned int nr)
{
	pgoff_t idx = sector >> STORE_SECTOR_SHIFT;
	pgoff_t last = (sector + nr - 1) >> STORE_SECTOR_SHIFT;	/* nr > 0 */
	struct page *page, *old;

	if (!nr)
		return 0;
	for (; idx <= last; idx++) {
		if (xa_load(&dev->pages, idx))
			continue;
		/* queue_rq must not sleep: on failure the request is retried */
		page = alloc_page(GFP_NOWAIT | __GFP_NOWARN | __GFP_ZERO);
		if (!page)
			return -ENOMEM;
		old = xa_cmpxchg(&dev->pages, idx, NULL, page,
				 GFP_NOWAIT | __GFP_NOWARN);
		if (old) {
			/* lost a race with another writer, or out of memory */
			__free_page(page);
			if (xa_is_err(old))
				return xa_err(old);
		}
	}
	return 0;
}

/* Copy one single-page segment to or from the store at @sector. */
static void ssdsim_copy_bvec(struct ssdsim_dev *dev, struct bio_vec *bv,
			     sector_t sector, bool write)
{
	unsigned int done = 0;

	while (done < bv->bv_len) {
		unsigned int off = (sector & (STORE_SECTORS - 1)) << SECTOR_SHIFT;
		unsigned int n = min_t(unsigned int, bv->bv_len - done,
				       PAGE_SIZE - off);
		struct page *page = xa_load(&dev->pages,
					    sector >> STORE_SECTOR_SHIFT);
		void *buf = kmap_local_page(bv->bv_page);
		void *io = buf + bv->bv_offset + done;

		if (write) {
			void *dst = kmap_local_page(page);

			memcpy(dst + off, io, n);
			kunmap_local(dst);
		} else if (page) {
			void *src = kmap_local_page(page);

			memcpy(io, src + off, n);
			kunmap_local(src);
		} else {
			memset(io, 0, n);	/* never written, or discarded */
		}
		kunmap_local(buf);
		done += n;
		sector += n >> SECTOR_SHIFT;
	}
}

static void ssdsim_copy_rq(struct ssdsim_dev *dev, struct request *rq,
			   bool write)
{
	sector_t sector = blk_rq_pos(rq);
	struct req_iterator iter;
	struct bio_vec bv;

	rq_for_each_segment(bv, rq, iter) {
		ssdsim_copy_bvec(dev, &bv, sector, write);
		sector += bv.bv_len >> SECTOR_SHIFT;
	}
}

/* Zero part of one store page, if it exists. */
static void ssdsim_zero_partial(struct ssdsim_dev *dev, pgoff_t idx,
				unsigned int off, unsigned int len)
{
	struct page *page = xa_load(&dev->pages, idx);

	if (page)
		memzero_page(page, off, len);
}

/* Discard and write zeroes: free whole store pages, zero partial ones. */
static void ssdsim_zero_range(struct ssdsim_dev *dev, sector_t sector,
			      unsigned int nr)
{
	sector_t end = sector + nr;
	unsigned long idx;
	struct page *page;

	write_lock(&dev->data_lock);
	/* the partial store pages at either end lose only the covered part */
	if (sector < end && (sector & (STORE_SECTORS - 1))) {
		sector_t stop = min_t(sector_t, end,
				      round_up(sector + 1, STORE_SECTORS));

		ssdsim_zero_partial(dev, sector >> STORE_SECTOR_SHIFT,
				    (sector & (STORE_SECTORS - 1)) << SECTOR_SHIFT,
				    (stop - sector) << SECTOR_SHIFT);
		sector = stop;
	}
	if (sector < end && (end & (STORE_SECTORS - 1))) {
		sector_t start = round_down(end, STORE_SECTORS);

		ssdsim_zero_partial(dev, start >> STORE_SECTOR_SHIFT, 0,
				    (end - start) << SECTOR_SHIFT);
		end = start;
	}
	/* whole store pages in [sector, end) are freed */
	if (sector < end) {
		xa_for_each_range(&dev->pages, idx, page,
				  sector >> STORE_SECTOR_SHIFT,
				  (end >> STORE_SECTOR_SHIFT) - 1) {
			xa_erase(&dev->pages, idx);
			__free_page(page);
		}
	}
	write_unlock(&dev->data_lock);
}

static void ssdsim_free_store(struct ssdsim_dev *dev)
{
	unsigned long idx;
	struct page *page;

	xa_for_each(&dev->pages, idx, page)
		__free_page(page);
	xa_destroy(&dev->pages);
}

/* ---- blk-mq ---- */

static enum hrtimer_restart ssdsim_cmd_done(struct hrtimer *timer)
{
	struct ssdsim_cmd *cmd = container_of(timer, struct ssdsim_cmd, timer);
	struct request *rq = blk_mq_rq_from_pdu(cmd);
	struct ssdsim_dev *dev = rq->q->queuedata;
	unsigned long flags;

	spin_lock_irqsave(&dev->model_lock, flags);
	ssdsim_model_leave(&dev->model, cmd->units, cmd->nr_units);
	spin_unlock_irqrestore(&dev->model_lock, flags);
	atomic_dec(&dev->inflight);
	if (dev->params.requeue_every &&
	    (u32)atomic_inc_return(&dev->ends) % dev->params.requeue_every == 0) {
		/* done again when reissued: the data copy is idempotent */
		atomic64_inc(&dev->requeued);
		blk_mq_requeue_request(rq, true);
		return HRTIMER_NORESTART;
	}
	blk_mq_end_request(rq, BLK_STS_OK);
	return HRTIMER_NORESTART;
}

/*
 * Charge a read or write to the model, count it in at its dies and arm its
 * completion: at the modelled end, plus the jitter, which the model never
 * sees.
 */
static void ssdsim_schedule(struct ssdsim_dev *dev, struct request *rq,
			    u64 now, bool write)
{
	struct ssdsim_cmd *cmd = blk_mq_rq_to_pdu(rq);
	u64 pos = (u64)blk_rq_pos(rq) << SECTOR_SHIFT;
	u64 len = blk_rq_bytes(rq);
	unsigned int inflight;
	unsigned long flags;
	u64 done;

	spin_lock_irqsave(&dev->model_lock, flags);
	if (write)
		done = ssdsim_model_write(&dev->model, now, pos, len);
	else
		done = ssdsim_model_read(&dev->model, now, pos, len);
	cmd->nr_units = ssdsim_model_enter(&dev->model, pos, len, cmd->units,
					   dev->cmd_units);
	inflight = atomic_inc_return(&dev->inflight);
	if (inflight > dev->max_inflight)
		dev->max_inflight = inflight;
	spin_unlock_irqrestore(&dev->model_lock, flags);

	if (dev->jitter_ns)
		done += get_random_u32_below(dev->jitter_ns + 1);
	hrtimer_start(&cmd->timer, ns_to_ktime(done), HRTIMER_MODE_ABS);
}

static blk_status_t ssdsim_queue_rq(struct blk_mq_hw_ctx *hctx,
				    const struct blk_mq_queue_data *bd)
{
	struct ssdsim_dev *dev = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	u64 now = ktime_get_ns();	/* arrival: before any copying */
	unsigned long flags;

	switch (req_op(rq)) {
	case REQ_OP_READ:
		blk_mq_start_request(rq);
		read_lock(&dev->data_lock);
		ssdsim_copy_rq(dev, rq, false);
		read_unlock(&dev->data_lock);
		ssdsim_schedule(dev, rq, now, false);
		return BLK_STS_OK;
	case REQ_OP_WRITE:
		read_lock(&dev->data_lock);
		if (ssdsim_alloc_range(dev, blk_rq_pos(rq),
				       blk_rq_sectors(rq))) {
			read_unlock(&dev->data_lock);
			spin_lock_irqsave(&dev->model_lock, flags);
			dev->alloc_retries++;
			spin_unlock_irqrestore(&dev->model_lock, flags);
			return BLK_STS_RESOURCE;	/* not started: retried */
		}
		blk_mq_start_request(rq);
		ssdsim_copy_rq(dev, rq, true);
		read_unlock(&dev->data_lock);
		ssdsim_schedule(dev, rq, now, true);
		return BLK_STS_OK;
	case REQ_OP_FLUSH:
		/* completed writes are in RAM already */
		blk_mq_start_request(rq);
		spin_lock_irqsave(&dev->model_lock, flags);
		dev->flushes++;
		spin_unlock_irqrestore(&dev->model_lock, flags);
		blk_mq_end_request(rq, BLK_STS_OK);
		return BLK_STS_OK;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		blk_mq_start_request(rq);
		ssdsim_zero_range(dev, blk_rq_pos(rq), blk_rq_sectors(rq));
		spin_lock_irqsave(&dev->model_lock, flags);
		ssdsim_model_trim(&dev->model,
				  (u64)blk_rq_pos(rq) << SECTOR_SHIFT,
				  blk_rq_bytes(rq));
		if (req_op(rq) == REQ_OP_DISCARD)
			dev->discards++;
		else
			dev->write_zeroes++;
		spin_unlock_irqrestore(&dev->model_lock, flags);
		blk_mq_end_request(rq, BLK_STS_OK);
		return BLK_STS_OK;
	default:
		return BLK_STS_NOTSUPP;
	}
}

static enum blk_eh_timer_return ssdsim_timeout(struct request *rq)
{
	/* a deep queue on a slow model can take long; the timer will end it */
	return BLK_EH_RESET_TIMER;
}

static int ssdsim_init_request(struct blk_mq_tag_set *set, struct request *rq,
			       unsigned int hctx_idx,
			       SSDSIM_NUMA_NODE_T numa_node)
{
	struct ssdsim_cmd *cmd = blk_mq_rq_to_pdu(rq);

#ifdef AC_HAVE_SIM_HRTIMER_SETUP
	hrtimer_setup(&cmd->timer, ssdsim_cmd_done, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS);
#else
	hrtimer_init(&cmd->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	cmd->timer.function = ssdsim_cmd_done;
#endif
	return 0;
}

static void ssdsim_exit_request(struct blk_mq_tag_set *set, struct request *rq,
				unsigned int hctx_idx)
{
	struct ssdsim_cmd *cmd = blk_mq_rq_to_pdu(rq);

	/*
	 * Every command has completed (del_gendisk drained the queue), but a
	 * callback may still be returning on another CPU: wait for it before
	 * the request, and possibly the module, goes away.
	 */
	hrtimer_cancel(&cmd->timer);
}

static const struct blk_mq_ops ssdsim_mq_ops = {
	.queue_rq	= ssdsim_queue_rq,
	.timeout	= ssdsim_timeout,
	.init_request	= ssdsim_init_request,
	.exit_request	= ssdsim_exit_request,
};

static const struct block_device_operations ssdsim_fops = {
	.owner		= THIS_MODULE,
};

/* ---- debugfs ---- */

static int ssdsim_stats_show(struct seq_file *m, void *v)
{
	struct ssdsim_dev *dev = m->private;
	struct ssdsim_model *md = &dev->model;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&dev->model_lock, flags);
	seq_printf(m, "inflight %d\n", atomic_read(&dev->inflight));
	seq_printf(m, "max_inflight %u\n", dev->max_inflight);
	seq_printf(m, "max_die_inflight %u\n",
		   ssdsim_model_max_die_inflight(md));
	seq_printf(m, "reads %llu\n", md->reads);
	seq_printf(m, "writes %llu\n", md->writes);
	seq_printf(m, "read_pages %llu\n", md->read_pages);
	seq_printf(m, "write_pages %llu\n", md->write_pages);
	seq_printf(m, "reads_behind_program %llu\n", md->reads_behind_program);
	seq_printf(m, "read_pages_behind_program %llu\n",
		   md->read_pages_behind_program);
	seq_printf(m, "read_model_ns_max %llu\n", md->read_model_ns_max);
	seq_printf(m, "read_model_ns_sum %llu\n", md->read_model_ns_sum);
	seq_printf(m, "write_model_ns_max %llu\n", md->write_model_ns_max);
	seq_printf(m, "write_model_ns_sum %llu\n", md->write_model_ns_sum);
	seq_printf(m, "flushes %llu\n", dev->flushes);
	seq_printf(m, "discards %llu\n", dev->discards);
	seq_printf(m, "write_zeroes %llu\n", dev->write_zeroes);
	seq_printf(m, "alloc_retries %llu\n", dev->alloc_retries);
	seq_printf(m, "requeued %lld\n", (long long)atomic64_read(&dev->requeued));
	for (i = 0; i < md->channels; i++)
		seq_printf(m, "channel %u ops %llu busy_ns %llu wait_ns %llu\n",
			   i, md->chan[i].st.ops, md->chan[i].st.busy_ns,
			   md->chan[i].st.wait_ns);
	for (i = 0; i < ssdsim_model_units(md); i++)
		seq_printf(m, "die %u.%u ops %llu busy_ns %llu wait_ns %llu inflight %u max_inflight %u\n",
			   i / md->dies, i % md->dies, md->die[i].st.ops,
			   md->die[i].st.busy_ns, md->die[i].st.wait_ns,
			   md->die[i].inflight, md->die[i].max_inflight);
	spin_unlock_irqrestore(&dev->model_lock, flags);
	return 0;
}

static int ssdsim_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, ssdsim_stats_show, inode->i_private);
}

/*
 * Any write resets the counters; max_inflight and the dies' max_inflight
 * restart from the commands in flight now.
 */
static ssize_t ssdsim_stats_write(struct file *file, const char __user *buf,
				  size_t count, loff_t *ppos)
{
	struct ssdsim_dev *dev = ((struct seq_file *)file->private_data)->private;
	unsigned long flags;

	spin_lock_irqsave(&dev->model_lock, flags);
	ssdsim_model_reset_stats(&dev->model);
	dev->max_inflight = atomic_read(&dev->inflight);
	dev->flushes = 0;
	dev->discards = 0;
	dev->write_zeroes = 0;
	dev->alloc_retries = 0;
	atomic64_set(&dev->requeued, 0);
	spin_unlock_irqrestore(&dev->model_lock, flags);
	return count;
}

static const struct file_operations ssdsim_stats_fops = {
	.owner		= THIS_MODULE,
	.open		= ssdsim_stats_open,
	.read		= seq_read,
	.write		= ssdsim_stats_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int ssdsim_params_show(struct seq_file *m, void *v)
{
	struct ssdsim_dev *dev = m->private;
	const struct ssdsim_params *p = &dev->params;

	seq_printf(m, "capacity_mb %u\n", p->capacity_mb);
	seq_printf(m, "capacity_bytes %llu\n", dev->capacity);
	seq_printf(m, "logical_block_size %u\n", p->logical_block_size);
	seq_printf(m, "channels %u\n", p->channels);
	seq_printf(m, "dies %u\n", p->dies);
	seq_printf(m, "page_kb %u\n", p->page_kb);
	seq_printf(m, "nr_pages %llu\n", dev->model.nr_pages);
	seq_printf(m, "read_us %u\n", p->read_us);
	seq_printf(m, "program_us %u\n", p->program_us);
	seq_printf(m, "xfer_us %u\n", p->xfer_us);
	seq_printf(m, "time_scale %u\n", p->time_scale);
	seq_printf(m, "read_ns %llu\n", dev->model.read_ns);
	seq_printf(m, "program_ns %llu\n", dev->model.program_ns);
	seq_printf(m, "xfer_ns %llu\n", dev->model.xfer_ns);
	seq_printf(m, "queue_depth %u\n", p->queue_depth);
	seq_printf(m, "mapping %s\n", ssdsim_mapping_name(p->mapping));
	seq_printf(m, "stripe_kb %u\n", p->stripe_kb);
	seq_printf(m, "jitter_us %u\n", p->jitter_us);
	seq_printf(m, "requeue_every %u\n", p->requeue_every);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ssdsim_params);

static void ssdsim_debugfs_add(struct ssdsim_dev *dev)
{
	/* debugfs failures are not fatal: the device works without it */
	dev->debugfs = debugfs_create_dir(dev->disk->disk_name,
					  ssdsim_debugfs_root);
	debugfs_create_file("stats", 0600, dev->debugfs, dev,
			    &ssdsim_stats_fops);
	debugfs_create_file("params", 0400, dev->debugfs, dev,
			    &ssdsim_params_fops);
}

/* ---- devices ---- */

static struct gendisk *ssdsim_alloc_disk(struct ssdsim_dev *dev)
{
	const struct ssdsim_params *p = &dev->params;
	struct gendisk *disk;
#ifdef AC_HAVE_SIM_ALLOC_DISK_LIMITS
	struct queue_limits lim = {
		.logical_block_size	= p->logical_block_size,
		.physical_block_size	= p->logical_block_size,
		.io_min			= p->page_kb * 1024,
		.max_hw_sectors		= SSDSIM_MAX_HW_SECTORS,
		.max_hw_discard_sectors	= UINT_MAX >> SECTOR_SHIFT,
		.max_write_zeroes_sectors = UINT_MAX >> SECTOR_SHIFT,
		.discard_granularity	= p->logical_block_size,
	};

#ifdef AC_HAVE_SIM_QUEUE_FEATURES
	/* non-rotational and no entropy contribution are the defaults */
	lim.features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA;
#endif
	disk = blk_mq_alloc_disk(&dev->tag_set, &lim, dev);
#else
	disk = blk_mq_alloc_disk(&dev->tag_set, dev);
	if (!IS_ERR(disk)) {
		struct request_queue *q = disk->queue;

		blk_queue_logical_block_size(q, p->logical_block_size);
		blk_queue_physical_block_size(q, p->logical_block_size);
		blk_queue_io_min(q, p->page_kb * 1024);
		blk_queue_max_hw_sectors(q, SSDSIM_MAX_HW_SECTORS);
		blk_queue_max_discard_sectors(q, UINT_MAX >> SECTOR_SHIFT);
		blk_queue_max_write_zeroes_sectors(q, UINT_MAX >> SECTOR_SHIFT);
		q->limits.discard_granularity = p->logical_block_size;
	}
#endif
	if (IS_ERR(disk))
		return disk;
#ifndef AC_HAVE_SIM_QUEUE_FEATURES
	blk_queue_write_cache(disk->queue, true, true);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, disk->queue);
	blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, disk->queue);
#endif
	return disk;
}

static int ssdsim_alloc_model(struct ssdsim_dev *dev)
{
	struct ssdsim_model *m = &dev->model;

	ssdsim_model_setup(m, &dev->params);
	dev->cmd_units = ssdsim_model_cmd_units(m, SSDSIM_MAX_HW_SECTORS <<
						SECTOR_SHIFT);
	m->die = kcalloc(ssdsim_model_units(m), sizeof(*m->die), GFP_KERNEL);
	m->chan = kvcalloc(m->channels, sizeof(*m->chan), GFP_KERNEL);
	if (m->mapping == SSDSIM_MAP_FTL)
		m->l2p = kvcalloc(m->nr_pages, sizeof(*m->l2p), GFP_KERNEL);
	if (!m->die || !m->chan || (m->mapping == SSDSIM_MAP_FTL && !m->l2p))
		return -ENOMEM;
	return 0;
}

static void ssdsim_free_dev(struct ssdsim_dev *dev)
{
	ssdsim_free_store(dev);
	kvfree(dev->model.l2p);
	kvfree(dev->model.chan);
	kfree(dev->model.die);
	kfree(dev);
}

static int ssdsim_add_device(int index, const struct ssdsim_params *p)
{
	struct ssdsim_dev *dev;
	struct gendisk *disk;
	int ret;

	dev = kcalloc(1, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->index = index;
	dev->params = *p;
	dev->capacity = ssdsim_params_capacity(p);
	dev->jitter_ns = p->jitter_us * NSEC_PER_USEC;
	spin_lock_init(&dev->model_lock);
	rwlock_init(&dev->data_lock);
	xa_init(&dev->pages);
	atomic_set(&dev->inflight, 0);
	atomic_set(&dev->ends, 0);
	atomic64_set(&dev->requeued, 0);
	ret = ssdsim_alloc_model(dev);
	if (ret)
		goto out_free_dev;

	dev->tag_set.ops = &ssdsim_mq_ops;
	dev->tag_set.nr_hw_queues = 1;
	dev->tag_set.queue_depth = p->queue_depth;
	dev->tag_set.numa_node = NUMA_NO_NODE;
	dev->tag_set.cmd_size = struct_size_t(struct ssdsim_cmd, units,
					      dev->cmd_units);
	dev->tag_set.timeout = SSDSIM_TIMEOUT;
	dev->tag_set.driver_data = dev;
#ifdef AC_HAVE_SIM_SHOULD_MERGE
	dev->tag_set.flags = BLK_MQ_F_SHOULD_MERGE;
#endif
	ret = blk_mq_alloc_tag_set(&dev->tag_set);
	if (ret)
		goto out_free_dev;

	disk = ssdsim_alloc_disk(dev);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto out_free_tags;
	}
	dev->disk = disk;
	disk->major = ssdsim_major;
	disk->first_minor = index;
	disk->minors = 1;
	disk->fops = &ssdsim_fops;
	disk->private_data = dev;
	snprintf(disk->disk_name, DISK_NAME_LEN, "ssdsim%d", index);
	set_capacity(disk, dev->capacity >> SECTOR_SHIFT);

	ret = add_disk(disk);
	if (ret)
		goto out_put_disk;
	ssdsim_debugfs_add(dev);
	ssdsim_devs[index] = dev;

	pr_info("%s: %llu MiB, %u channels x %u dies, %u KiB pages, read %u us, program %u us, xfer %u us, x%u, depth %u, %s mapping, jitter %u us\n",
		disk->disk_name, dev->capacity >> 20, p->channels, p->dies,
		p->page_kb, p->read_us, p->program_us, p->xfer_us,
		p->time_scale, p->queue_depth, ssdsim_mapping_name(p->mapping),
		p->jitter_us);
	return 0;

out_put_disk:
	put_disk(disk);
out_free_tags:
	blk_mq_free_tag_set(&dev->tag_set);
out_free_dev:
	ssdsim_free_dev(dev);
	return ret;
}

static void ssdsim_remove_device(struct ssdsim_dev *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	/* waits for every command in flight to complete */
	del_gendisk(dev->disk);
	put_disk(dev->disk);
	/* exit_request waits for any timer callback still running */
	blk_mq_free_tag_set(&dev->tag_set);
	WARN_ON(atomic_read(&dev->inflight));
	ssdsim_free_dev(dev);
}

static void ssdsim_remove_all(void)
{
	int i;

	for (i = 0; i < SSDSIM_MAX_DEVICES; i++) {
		if (ssdsim_devs[i])
			ssdsim_remove_device(ssdsim_devs[i]);
		ssdsim_devs[i] = NULL;
	}
}

/* Collect every device's parameters and check them all before creating any. */
static int ssdsim_collect_params(struct ssdsim_params *all, int *count)
{
	struct ssdsim_params base;
	char *spec, *entry, *cursor;
	int n = 0, ret, i;

	ret = ssdsim_global_params(&base);
	if (ret)
		return ret;
	if (nr_devices > SSDSIM_MAX_DEVICES) {
		pr_err("invalid parameters: nr_devices must be 0..%d\n",
		       SSDSIM_MAX_DEVICES);
		return -EINVAL;
	}
	for (; n < nr_devices; n++)
		all[n] = base;

	spec = kstrdup(devices, GFP_KERNEL);
	if (!spec)
		return -ENOMEM;
	cursor = spec;
	ret = 0;
	while ((entry = strsep(&cursor, ";")) != NULL) {
		if (!*strim(entry))
			continue;
		if (n == SSDSIM_MAX_DEVICES) {
			pr_err("invalid parameters: more than %d devices\n",
			       SSDSIM_MAX_DEVICES);
			ret = -EINVAL;
			break;
		}
		all[n] = base;
		ret = ssdsim_apply_overrides(&all[n], entry);
		if (ret)
			break;
		n++;
	}
	kfree(spec);
	if (ret)
		return ret;
	if (!n) {
		pr_err("invalid parameters: no devices (nr_devices=0 and devices empty)\n");
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		ret = ssdsim_check_params(&all[i], i);
		if (ret)
			return ret;
	}
	*count = n;
	return 0;
}

static int __init ssdsim_init(void)
{
	struct ssdsim_params *all;
	int count = 0, ret, i;

	all = kcalloc(SSDSIM_MAX_DEVICES, sizeof(*all), GFP_KERNEL);
	if (!all)
		return -ENOMEM;
	ret = ssdsim_collect_params(all, &count);
	if (ret)
		goto out_free;

	ret = register_blkdev(0, KBUILD_MODNAME);
	if (ret < 0)
		goto out_free;
	ssdsim_major = ret;
	ssdsim_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);

	for (i = 0; i < count; i++) {
		ret = ssdsim_add_device(i, &all[i]);
		if (ret) {
			pr_err("ssdsim%d: cannot create device: %d\n", i, ret);
			goto out_remove;
		}
	}
	kfree(all);
	return 0;

out_remove:
	ssdsim_remove_all();
	debugfs_remove_recursive(ssdsim_debugfs_root);
	unregister_blkdev(ssdsim_major, KBUILD_MODNAME);
out_free:
	kfree(all);
	return ret;
}

static void __exit ssdsim_exit(void)
{
	ssdsim_remove_all();
	debugfs_remove_recursive(ssdsim_debugfs_root);
	unregister_blkdev(ssdsim_major, KBUILD_MODNAME);
}

module_init(ssdsim_init);
module_exit(ssdsim_exit);

MODULE_DESCRIPTION("Emulated SSD with channel and die parallelism (RAM-backed, timed)");
MODULE_LICENSE("GPL");
