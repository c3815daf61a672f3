# SPDX-License-Identifier: GPL-2.0
"""AC's dispatch order seen from outside (issue 5, "Dispatch order seen from
outside"): the order in which requests reach the device, read from the
block_rq_issue tracepoint (and block_rq_insert, to know what was waiting),
never from AC's own counters.

The device is ssdsim with 8 channels and a queue depth of 4, so that most of
the requests fio keeps outstanding wait in the scheduler, which then really
chooses; nr_requests is raised to 128 so that there are many to choose from.
AC's nr_channels, mapping and stripe match the device's.

What can honestly be asserted:
- Reads (spec 4.2): a read never goes to the channel the previous read went
  to while a read of another channel is waiting.  The trace shows what was
  waiting: reads inserted and not yet issued.  The reconstruction is not
  exact (the tracepoints of two CPUs race with the scheduler's lock, a
  request dispatched waits for a driver tag before it is issued), so a few
  percent of exceptions are tolerated.  The control (mq-deadline, none) on
  the same load shows that the criterion is not met by the load itself.
  The load has a hot channel (half the reads go to channel 0), so that a
  FIFO or sector order often issues two reads in a row to one channel.
- Writes (spec 4.3): issued in per-channel batches: long runs of writes on
  one channel, against runs near 1 under none and mq-deadline (the stripe
  mapping is used, so that mq-deadline's sector order does not make runs by
  itself), and the runs follow write_batch.
"""

import pytest

import ac_util
import ssdsim_util as su
from ac_test_util import (BlockTrace, channel_fn, mean, read_passed_over,
                          read_spread, record_counts, write_runs)
from conftest import DEBUG_KERNEL, fio, fio_total_ios, primary_kernel_only, set_scheduler, write

NR_CHANNELS = 8
CAPACITY_MB = 256
QUEUE_DEPTH = 4
# The debug kernel's guest submits about a fifth of the stock kernel's I/O:
# there the device is made 20 times slower, so that AC's queue still builds
# up and the order is AC's choice, and runs last longer for the counts.
DEBUG_SLOWER = 20 if DEBUG_KERNEL else 1
RUNTIME = 9 if DEBUG_KERNEL else 3


@pytest.fixture
def order_env():
    """AC loaded; ssdsim made by the test; both removed after."""
    ac_util.load()
    made = []

    def make(**params):
        # every timing parameter explicit: ssdsim's defaults may change
        p = dict(capacity_mb=CAPACITY_MB, channels=NR_CHANNELS, dies=4,
                 queue_depth=QUEUE_DEPTH, time_scale=20, read_us=50,
                 program_us=500, xfer_us=10)
        p.update(params)
        p["time_scale"] *= DEBUG_SLOWER
        dev = su.load(**p)
        made.append(dev)
        return dev

    yield make
    for dev in made:
        write("/sys/block/%s/queue/scheduler" % su.disk(dev), "none")
    assert su.unload(), "ssdsim could not be unloaded"
    ac_util.unload(check=False)


def select(dev, sched, mapping, **tunables):
    set_scheduler(dev, sched)
    if sched == "none":
        return      # no scheduler tags: nr_requests is the device's depth
    assert write("/sys/block/%s/queue/nr_requests" % su.disk(dev), "128") == 0
    if sched != "ac":
        return
    settings = dict(nr_channels=NR_CHANNELS, mapping=mapping, stripe_kb=64)
    settings.update(tunables)
    for name, value in settings.items():
        assert ac_util.set_tunable(dev, name, value) == 0, (name, value)


def traced_fio(dev, jobs, label):
    """Run fio jobs (a list of option strings, all at once) under the trace."""
    common = ("--filename=%s --direct=1 --ioengine=libaio --bs=4k"
              " --time_based --runtime=%d" % (dev, RUNTIME))
    args = " ".join(("--name=j%d " % i if i else "") + common + " " + job
                    for i, job in enumerate(jobs))
    with BlockTrace(dev) as tr:
        data = fio(args, name="order")
    tr.dump(label)
    assert tr.dropped == 0, "trace ring buffer dropped %d events" % tr.dropped
    return tr.events, fio_total_ios(data)


# Half the reads on channel 0 (its range), half over the whole device.
READ_JOBS = ["--rw=randread --iodepth=32 --size=%dm" % CAPACITY_MB,
             "--rw=randread --iodepth=32 --offset=0 --size=%dm" % (CAPACITY_MB // NR_CHANNELS)]


@primary_kernel_only
def test_reads_spread_over_channels(order_env):
    dev = order_env(mapping="range")
    chan = channel_fn(dev, NR_CHANNELS, "range")
    results = {}
    for sched in ["ac", "mq-deadline", "none"]:
        # long deadlines: the order seen is the channel rotation's alone
        select(dev, sched, "range", read_sync_expire=60000, read_async_expire=60000)
        events, ios = traced_fio(dev, READ_JOBS, "order-reads-" + sched)
        r = read_spread(events, chan)
        r["ios"] = ios
        r["differ_frac"] = r["differ"] / max(1, r["pairs"])
        r["eligible_frac"] = r["eligible_differ"] / max(1, r["eligible"])
        results[sched] = r
        print("%-12s %s" % (sched, r))
    ac = results["ac"]
    assert ac["issued"] >= 500, "too few reads traced under ac: %s" % ac
    assert ac["covered"] >= 0.9, "inserts of issued reads not seen: %s" % ac
    assert ac["eligible"] >= 300, "too few pairs with another channel waiting: %s" % ac
    # spec 4.2: never two reads in a row to one channel while another has
    # work.  The trace sees issues, not AC's choices: the two CPUs' dispatch
    # loops interleave their issues, and a request chosen while no driver tag
    # was free is issued later; about 3% of the pairs look like exceptions
    # for that reason alone (6.12, TCG), hence 90%.
    assert ac["eligible_frac"] >= 0.90, \
        "ac issued two reads in a row to one channel while another channel " \
        "had reads waiting in %d of %d pairs: %s" % (
            ac["eligible"] - ac["eligible_differ"], ac["eligible"], ac)
    # The controls: the load does not spread itself.  mq-deadline's sector
    # order repeats channels.  In arrival order (none) a pair changes
    # channel 1 - 88/256 = 0.66 of the time if the two jobs' reads come
    # in at random, and at most 1 - 1/8 = 0.875 if they strictly
    # alternate (the whole-device job lands on channel 0 one read in 8);
    # how much they alternate depends on the guest's speed.
    dl = results["mq-deadline"]
    assert dl["eligible"] >= 300 and dl["eligible_frac"] < 0.5, dl
    none = results["none"]
    assert none["pairs"] >= 300, none
    assert none["differ_frac"] < 0.9, none
    assert ac["eligible_frac"] > none["differ_frac"], (ac, none)
    record_counts("order_reads", reads_traced=ac["issued"], pairs=ac["eligible"],
                  ac_frac=round(ac["eligible_frac"], 4),
                  deadline_frac=round(dl["eligible_frac"], 4),
                  none_differ=round(none["differ_frac"], 4))


@primary_kernel_only
def test_reads_leave_a_unit_in_arrival_order(order_env):
    """Inside a unit, reads are not sorted: each issued read was the oldest
    of its channel still waiting, bar the issues two CPUs swap.  The
    control, mq-deadline, sorts by sector and passes over older reads."""
    dev = order_env(mapping="range")
    chan = channel_fn(dev, NR_CHANNELS, "range")
    results = {}
    for sched in ["ac", "mq-deadline"]:
        # long deadlines: no read leaves by expiry
        select(dev, sched, "range", read_sync_expire=60000, read_async_expire=60000)
        events, ios = traced_fio(dev, READ_JOBS, "order-arrival-" + sched)
        ranks = read_passed_over(events, chan)
        results[sched] = dict(reads=len(ranks), mean=mean(ranks),
                              oldest=sum(1 for r in ranks if r == 0) / max(1, len(ranks)),
                              far=sum(1 for r in ranks if r > 2) / max(1, len(ranks)),
                              ios=ios)
        print("%-12s %s" % (sched, results[sched]))
    ac, dl = results["ac"], results["mq-deadline"]
    assert ac["reads"] >= 500, ac
    assert dl["reads"] >= 500, dl
    # the control: this load makes a sector order pass over older reads
    assert dl["mean"] >= 2.0, dl
    # swaps of neighbours by the two dispatching CPUs aside, none passed over
    assert ac["far"] <= 0.05, ac
    assert ac["mean"] <= 0.5, ac
    record_counts("order_arrival", reads=ac["reads"], ac_mean=round(ac["mean"], 3),
                  ac_oldest=round(ac["oldest"], 4), ac_far=round(ac["far"], 4),
                  deadline_mean=round(dl["mean"], 3))


WRITE_JOBS = ["--rw=randwrite --iodepth=32 --numjobs=2 --size=%dm" % CAPACITY_MB]


@primary_kernel_only
def test_writes_batched_per_channel(order_env):
    dev = order_env(mapping="stripe", stripe_kb=64, time_scale=5)
    chan = channel_fn(dev, NR_CHANNELS, "stripe", 64)
    res = {}
    for label, sched, wb in [("ac", "ac", 16), ("ac_wb4", "ac", 4),
                             ("none", "none", 0), ("mq-deadline", "mq-deadline", 0)]:
        tun = dict(write_batch=wb, write_sync_expire=60000, write_async_expire=60000) \
            if sched == "ac" else {}
        select(dev, sched, "stripe", **tun)
        events, ios = traced_fio(dev, WRITE_JOBS, "order-writes-" + label)
        rl = write_runs(events, chan)
        srt = sorted(rl)
        res[label] = dict(writes=sum(rl), runs=len(rl), mean=mean(rl),
                          p95=srt[int(0.95 * (len(srt) - 1))] if srt else 0,
                          max=max(rl) if rl else 0, ios=ios)
        print("%-12s %s" % (label, res[label]))
    ac, ac4 = res["ac"], res["ac_wb4"]
    assert ac["writes"] >= 300, ac
    # per-channel batches: long runs on one channel
    assert ac["mean"] >= 4.0, "ac writes not batched per channel: %s" % ac
    for ctl in ("none", "mq-deadline"):
        assert res[ctl]["writes"] >= 300, res[ctl]
        assert res[ctl]["mean"] < 2.0, "control %s already batches: %s" % (ctl, res[ctl])
        assert ac["mean"] >= 2 * res[ctl]["mean"]
    # write_batch bounds a batch (the next batch goes to another channel
    # when one has writes; with 64 random writes queued, one always has)
    assert ac4["p95"] <= 4 + 1, "runs beyond write_batch=4: %s" % ac4
    assert ac4["mean"] >= 2.0, "write_batch=4 no longer batches: %s" % ac4
    assert ac["mean"] > 1.3 * ac4["mean"], (ac, ac4)
    record_counts("order_writes", writes_traced=ac["writes"] + ac4["writes"],
                  ac_mean_run=round(ac["mean"], 2), ac_wb4_mean_run=round(ac4["mean"], 2),
                  none_mean_run=round(res["none"]["mean"], 2),
                  deadline_mean_run=round(res["mq-deadline"]["mean"], 2))


# ------------------------------------------------------------------ merges

def spans(events, stripe_sectors=128):
    """Stripes covered by each issued read (aligned 64 KiB stripes)."""
    return [(e.sector + e.nr - 1) // stripe_sectors - e.sector // stripe_sectors + 1
            for e in events if e.kind == "issue" and e.read and e.nr]


SEQ_READS = ["--rw=read --bs=128k --iodepth=32 --size=64m",
             "--rw=read --bs=128k --iodepth=32 --offset=128m --size=64m"]
SMALL_SEQ_READS = ["--rw=read --bs=8k --iodepth=32 --size=64m"]


def test_merges_never_widen_a_request_over_channels(order_env):
    """Two 128 KiB reads on 64 KiB stripes cover two channels each; merged
    they would cover four: AC keeps them apart (the trace shows every issued
    read covers at most two stripes), while 8 KiB reads inside one stripe
    still merge.  With nr_channels=1 (no channel awareness) and under
    mq-deadline the same load issues wider reads: the load does merge."""
    dev = order_env(mapping="stripe", stripe_kb=64)
    select(dev, "ac", "stripe")
    before = ac_util.stats(dev)
    events, ios = traced_fio(dev, SEQ_READS, "merge-ac")
    after = ac_util.stats(dev)
    s = spans(events)
    print("ac: %d reads issued, widest %d stripes, merges refused %d"
          % (len(s), max(s), after["merges_refused"] - before["merges_refused"]))
    assert len(s) >= 50 and ios >= 50
    assert max(s) <= 2, "a read covering %d stripes was issued" % max(s)
    assert after["merges_refused"] > before["merges_refused"]

    events, _ = traced_fio(dev, SMALL_SEQ_READS, "merge-ac-small")
    nr = [e.nr for e in events if e.kind == "issue" and e.read]
    print("ac, 8 KiB reads: widest issued %d sectors" % max(nr))
    assert max(nr) > 16, "reads inside one stripe were not merged"
    assert max(spans(events)) <= 1
    ac_util.assert_idle_and_balanced(dev)

    for sched, tun in (("ac", dict(nr_channels=1)), ("mq-deadline", {})):
        select(dev, sched, "stripe", **tun)
        events, _ = traced_fio(dev, SEQ_READS, "merge-%s-control" % sched)
        s = spans(events)
        print("%s %s: widest %d stripes" % (sched, tun, max(s)))
        assert max(s) > 2, "control %s %s: the load did not merge" % (sched, tun)
