// SPDX-License-Identifier: GPL-2.0
/*
 * Timing model of the emulated SSD.
 *
 * A command is split into flash pages.  Each page lives on one die of one
 * channel (the mapping decides which) and reserves, in turn, the two
 * resources it needs:
 *
 *   read:  the die senses the page (read_ns), then the channel carries it
 *          out (xfer_ns).  The die stays reserved until its page register
 *          has been emptied, so it is busy from sense start to transfer end.
 *   write: the channel carries the page in (xfer_ns), then the die programs
 *          it (program_ns).  Both must be free for the transfer to start.
 *
 * Every die keeps one "busy until" time and serves its pages in arrival
 * order.  A channel books each transfer into the first gap that fits at or
 * after the time the page is ready (chan_take()).  Nothing booked moves, so
 * the result depends only on the order and times at which commands arrive.
 * The command completes when its last page does.  Pages of one command all
 * arrive with it: a command spread over several channels runs in parallel.
 */
#include "ssdsim-model.h"

#include <linux/math64.h>

static inline u64 max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

static inline bool is_pow2(u32 v)
{
	return v && !(v & (v - 1));
}

const char *ssdsim_mapping_name(enum ssdsim_mapping mapping)
{
	switch (mapping) {
	case SSDSIM_MAP_RANGE:
		return "range";
	case SSDSIM_MAP_STRIPE:
		return "stripe";
	case SSDSIM_MAP_FTL:
		return "ftl";
	}
	return "?";
}

static u64 params_nr_pages(const struct ssdsim_params *p)
{
	return ((u64)p->capacity_mb << 10) / p->page_kb;
}

const char *ssdsim_params_check(const struct ssdsim_params *p)
{
	u64 nr_pages;

	if (p->capacity_mb < 1 || p->capacity_mb > SSDSIM_MAX_CAPACITY_MB)
		return "capacity_mb must be 1..65536 (MiB)";
	if (p->logical_block_size != 512 && p->logical_block_size != 4096)
		return "logical_block_size must be 512 or 4096 (bytes)";
	if (p->channels < 1 || p->channels > SSDSIM_MAX_CHANNELS)
		return "channels must be 1..64";
	if (p->dies < 1 || p->dies > SSDSIM_MAX_DIES)
		return "dies must be 1..64 (per channel)";
	if (p->channels * p->dies > SSDSIM_MAX_UNITS)
		return "channels * dies must be at most 4096";
	if (!is_pow2(p->page_kb) || p->page_kb > SSDSIM_MAX_PAGE_KB)
		return "page_kb must be a power of two, 1..256 (KiB)";
	if (p->page_kb * 1024 < p->logical_block_size)
		return "page_kb must hold at least one logical block";
	nr_pages = params_nr_pages(p);
	if (nr_pages < (u64)p->channels * p->dies)
		return "capacity_mb is smaller than one page per die";
	if (nr_pages > SSDSIM_MAX_PAGES)
		return "capacity_mb / page_kb exceeds 16M flash pages; raise page_kb";
	if (p->stripe_kb < p->page_kb || p->stripe_kb % p->page_kb)
		return "stripe_kb must be a non-zero multiple of page_kb (KiB)";
	if (p->stripe_kb > p->capacity_mb * 1024u / p->channels)
		return "stripe_kb must not exceed capacity_mb / channels";
	if (p->read_us > SSDSIM_MAX_US || p->program_us > SSDSIM_MAX_US ||
	    p->xfer_us > SSDSIM_MAX_US)
		return "read_us, program_us and xfer_us must be 0..1000000 (us)";
	if (p->time_scale < 1 || p->time_scale > SSDSIM_MAX_TIME_SCALE)
		return "time_scale must be 1..10000";
	if (p->queue_depth < 1 || p->queue_depth > SSDSIM_MAX_QUEUE_DEPTH)
		return "queue_depth must be 1..1024 (commands)";
	if (p->jitter_us > SSDSIM_MAX_JITTER_US)
		return "jitter_us must be 0..1000000 (us)";
	if (p->requeue_every > SSDSIM_MAX_REQUEUE_EVERY)
		return "requeue_every must be 0..1000000 (commands)";
	if (p->mapping != SSDSIM_MAP_RANGE && p->mapping != SSDSIM_MAP_STRIPE &&
	    p->mapping != SSDSIM_MAP_FTL)
		return "mapping must be range, stripe or ftl";
	return NULL;
}

u64 ssdsim_params_capacity(const struct ssdsim_params *p)
{
	u64 units = (u64)p->channels * p->dies;
	u64 nr_pages = div64_u64(params_nr_pages(p), units) * units;

	return nr_pages * p->page_kb * 1024;
}

void ssdsim_model_setup(struct ssdsim_model *m, const struct ssdsim_params *p)
{
	u64 scale = (u64)p->time_scale * 1000;	/* us -> scaled ns */

	*m = (struct ssdsim_model) {
		.channels	= p->channels,
		.dies		= p->dies,
		.page_bytes	= p->page_kb * 1024,
		.stripe_pages	= p->stripe_kb / p->page_kb,
		.mapping	= p->mapping,
		.read_ns	= p->read_us * scale,
		.program_ns	= p->program_us * scale,
		.xfer_ns	= p->xfer_us * scale,
	};
	m->nr_pages = div64_u64(ssdsim_params_capacity(p), m->page_bytes);
	m->range_pages = div64_u64(m->nr_pages, ssdsim_model_units(m));
}

static u32 unit_of(u32 channel, u32 die, const struct ssdsim_model *m)
{
	return channel * m->dies + die;
}

/* Where a page lives when nothing (no ftl write) has moved it. */
static u32 default_unit(const struct ssdsim_model *m, u64 lpn)
{
	u64 chunk;

	if (m->mapping == SSDSIM_MAP_RANGE) {
		/* unit u holds pages [u * range_pages, (u + 1) * range_pages) */
		return (u32)div64_u64(lpn, m->range_pages);
	}
	/* stripe, and ftl pages never written: chunks over channels, dies */
	chunk = div64_u64(lpn, m->stripe_pages);
	return unit_of((u32)(chunk % m->channels),
		       (u32)(div64_u64(chunk, m->channels) % m->dies), m);
}

u32 ssdsim_model_unit_of(const struct ssdsim_model *m, u64 lpn)
{
	if (m->mapping == SSDSIM_MAP_FTL && m->l2p[lpn])
		return m->l2p[lpn] - 1;
	return default_unit(m, lpn);
}

/* ftl: the next die in write order, round-robin over the channels first. */
static u32 ftl_place(struct ssdsim_model *m, u64 lpn)
{
	u64 k = m->ftl_next++;
	u32 unit = unit_of((u32)(k % m->channels),
			   (u32)(div64_u64(k, m->channels) % m->dies), m);

	if (m->ftl_next == ssdsim_model_units(m))
		m->ftl_next = 0;
	m->l2p[lpn] = (u16)(unit + 1);
	return unit;
}

/* Pages [*first, *first + returned count) touched by bytes [pos, pos+len). */
static u64 page_span(const struct ssdsim_model *m, u64 pos, u64 len,
		     u64 *first)
{
	u64 last;

	*first = div64_u64(pos, m->page_bytes);
	if (!len)
		return 0;
	last = div64_u64(pos + len - 1, m->page_bytes);
	if (last >= m->nr_pages)
		last = m->nr_pages - 1;
	return *first > last ? 0 : last - *first + 1;
}

/*
 * Book channel @c for @len at the first time at or after @t at which it is
 * free, and return that time.  A transfer goes into a gap left before one
 * booked earlier for a later time, as a controller carries a page out when
 * it is ready and the channel idle: otherwise a read queued behind another
 * on its die would hold its whole channel idle until its own turn.  Booked
 * transfers never move, so times still depend only on the arrivals.  With
 * the book full, the transfer goes after the last one booked and joins it
 * (the gap between them is given up).
 */
static u64 chan_take(struct ssdsim_channel *c, u64 now, u64 t, u64 len)
{
	u32 i, drop = 0;

	while (drop < c->nr_slots && c->slot[drop].end <= now)
		drop++;
	for (i = drop; i < c->nr_slots; i++)
		c->slot[i - drop] = c->slot[i];
	c->nr_slots -= drop;

	if (c->nr_slots == SSDSIM_CHANNEL_SLOTS) {
		struct ssdsim_slot *last = &c->slot[c->nr_slots - 1];

		t = max_u64(t, last->end);
		last->end = t + len;
		return t;
	}
	for (i = 0; i < c->nr_slots; i++) {
		if (t + len <= c->slot[i].start)
			break;
		t = max_u64(t, c->slot[i].end);
	}
	for (drop = c->nr_slots; drop > i; drop--)
		c->slot[drop] = c->slot[drop - 1];
	c->slot[i].start = t;
	c->slot[i].end = t + len;
	c->nr_slots++;
	return t;
}

static u64 read_page(struct ssdsim_model *m, u64 now, u64 lpn,
		     bool *behind_program)
{
	u32 unit = ssdsim_model_unit_of(m, lpn);
	struct ssdsim_die *d = &m->die[unit];
	struct ssdsim_channel *c = &m->chan[unit / m->dies];
	u64 start = max_u64(now, d->free_at);
	u64 sensed = start + m->read_ns;
	u64 xfer_start = chan_take(c, now, sensed, m->xfer_ns);
	u64 done = xfer_start + m->xfer_ns;

	if (d->program_end > now) {
		*behind_program = true;
		m->read_pages_behind_program++;
	}
	d->st.wait_ns += start - now;
	d->st.busy_ns += done - start;
	d->st.ops++;
	d->free_at = done;

	c->st.wait_ns += xfer_start - sensed;
	c->st.busy_ns += m->xfer_ns;
	c->st.ops++;
	return done;
}

static u64 write_page(struct ssdsim_model *m, u64 now, u64 lpn)
{
	u32 unit = m->mapping == SSDSIM_MAP_FTL ? ftl_place(m, lpn) :
						  default_unit(m, lpn);
	struct ssdsim_die *d = &m->die[unit];
	struct ssdsim_channel *c = &m->chan[unit / m->dies];
	u64 ready = max_u64(now, d->free_at);
	u64 start = chan_take(c, now, ready, m->xfer_ns);
	u64 done = start + m->xfer_ns + m->program_ns;

	/* the die is charged the wait for it, the channel the wait after that */
	d->st.wait_ns += ready - now;
	d->st.busy_ns += done - start;
	d->st.ops++;
	d->free_at = done;
	d->program_end = done;

	c->st.wait_ns += start - ready;
	c->st.busy_ns += m->xfer_ns;
	c->st.ops++;
	return done;
}

u64 ssdsim_model_read(struct ssdsim_model *m, u64 now, u64 pos, u64 len)
{
	bool behind_program = false;
	u64 first, n, i, end = now;

	n = page_span(m, pos, len, &first);
	for (i = 0; i < n; i++)
		end = max_u64(end, read_page(m, now, first + i,
					     &behind_program));
	m->reads++;
	m->read_pages += n;
	if (behind_program)
		m->reads_behind_program++;
	m->read_model_ns_max = max_u64(m->read_model_ns_max, end - now);
	m->read_model_ns_sum += end - now;
	return end;
}

u64 ssdsim_model_write(struct ssdsim_model *m, u64 now, u64 pos, u64 len)
{
	u64 first, n, i, end = now;

	n = page_span(m, pos, len, &first);
	for (i = 0; i < n; i++)
		end = max_u64(end, write_page(m, now, first + i));
	m->writes++;
	m->write_pages += n;
	m->write_model_ns_max = max_u64(m->write_model_ns_max, end - now);
	m->write_model_ns_sum += end - now;
	return end;
}

u32 ssdsim_model_enter(struct ssdsim_model *m, u64 pos, u64 len, u16 *units,
		       u32 room)
{
	u64 first, n, i;
	u32 nr = 0, k;

	n = page_span(m, pos, len, &first);
	for (i = 0; i < n && nr < room; i++) {
		u32 unit = ssdsim_model_unit_of(m, first + i);
		struct ssdsim_die *d = &m->die[unit];

		if (d->marked)
			continue;	/* already counted for this command */
		d->marked = true;
		units[nr++] = (u16)unit;
		d->inflight++;
		if (d->inflight > d->max_inflight)
			d->max_inflight = d->inflight;
	}
	for (k = 0; k < nr; k++)
		m->die[units[k]].marked = false;
	return nr;
}

void ssdsim_model_leave(struct ssdsim_model *m, const u16 *units, u32 nr)
{
	u32 k;

	for (k = 0; k < nr; k++)
		m->die[units[k]].inflight--;
}

u32 ssdsim_model_cmd_units(const struct ssdsim_model *m, u64 max_bytes)
{
	/* a command not aligned to pages touches one page more */
	u64 pages = div64_u64(max_bytes + m->page_bytes - 1, m->page_bytes) + 1;

	return pages < ssdsim_model_units(m) ? (u32)pages : ssdsim_model_units(m);
}

u32 ssdsim_model_max_die_inflight(const struct ssdsim_model *m)
{
	u32 i, max = 0;

	for (i = 0; i < ssdsim_model_units(m); i++)
		if (m->die[i].max_inflight > max)
			max = m->die[i].max_inflight;
	return max;
}

void ssdsim_model_trim(struct ssdsim_model *m, u64 pos, u64 len)
{
	u64 first, last, i;

	if (m->mapping != SSDSIM_MAP_FTL || !len)
		return;
	/* only pages wholly inside the range lose their placement */
	first = div64_u64(pos + m->page_bytes - 1, m->page_bytes);
	last = div64_u64(pos + len, m->page_bytes);	/* exclusive */
	if (last > m->nr_pages)
		last = m->nr_pages;
	for (i = first; i < last; i++)
		m->l2p[i] = 0;
}

void ssdsim_model_reset_stats(struct ssdsim_model *m)
{
	u32 i;

	for (i = 0; i < ssdsim_model_units(m); i++) {
		m->die[i].st = (struct ssdsim_unit_stats) { 0 };
		m->die[i].max_inflight = m->die[i].inflight;
	}
	for (i = 0; i < m->channels; i++)
		m->chan[i].st = (struct ssdsim_unit_stats) { 0 };
	m->reads = 0;
	m->writes = 0;
	m->read_pages = 0;
	m->write_pages = 0;
	m->reads_behind_program = 0;
	m->read_pages_behind_program = 0;
	m->read_model_ns_max = 0;
	m->read_model_ns_sum = 0;
	m->write_model_ns_max = 0;
	m->write_model_ns_sum = 0;
}
