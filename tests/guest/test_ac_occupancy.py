# SPDX-License-Identifier: GPL-2.0
"""Occupancy (spec 4.4, issue 12) in a real kernel:

- unit_depth bounds the reads AC puts on one die: the emulated SSD counts
  the most commands it held at one die at once (max_die_inflight), and
  with AC matched to its geometry and unit_spare off that never exceeds
  unit_depth under random reads, while without a cap (and under
  mq-deadline, the control) it does;
- writes are not held for a die (a real SSD programs a write where its
  write order says, not where its address maps): on a die busy with
  reads, writes still reach the device beside them;
- a read over several dies is held by no die's cap: 128 KiB sequential
  reads over 64 KiB stripes fill more than the 16 commands that counting
  each at its first die would leave the device, while 64 KiB reads, one
  die each, stay at one per die;
- caps hold requests back without a stall: verified random I/O with
  unit_depth 1 on a device whose completions arrive in random order
  (ssdsim jitter_us) finishes every request, and debugfs shows the holds;
- an expired deadline does not override a cap: the expired read waits for
  its die and goes first when the die is free; an expired write goes at
  the next pick, also between phase starts;
- the counts are exact: after verified loads with layout and cap changes
  and scheduler switches under way, every unit's occupancy is back to 0
  and every request AC was given was freed.

The kernel log guard (conftest) fails any test that WARNs: ac_exit_sched()
WARNs if occupancy is left over when the scheduler goes away."""

import random
import time

import pytest

import ac_util
import ssdsim_util as ssd
from ac_test_util import record_counts
from conftest import DEBUG_KERNEL, STOCK_SCHEDULERS, fio, primary_kernel_only, set_scheduler, sh

SEED = 12

# The emulated SSD: 8 channels x 4 dies, stripe placement, a device that
# holds 32 commands; fast enough (time_scale 10) for a test.
GEOMETRY = dict(channels=8, dies=4, mapping="stripe", stripe_kb=64, page_kb=4,
                queue_depth=32, time_scale=10, capacity_mb=256)
# Where the device must be the bottleneck for a cap to matter.
SLOW_DEVICE = 400 if DEBUG_KERNEL else 10


def matched(dev, unit_depth, unit_spare=1):
    ac_util.load()
    set_scheduler(dev, "ac")
    for name, value in (("nr_channels", 8), ("dies_per_channel", 4),
                        ("mapping", "stripe"), ("stripe_kb", 64),
                        ("unit_depth", unit_depth), ("unit_spare", unit_spare)):
        assert ac_util.set_tunable(dev, name, value) == 0, name


def randread(dev, iodepth=64, runtime=3, extra=""):
    return fio("--filename=%s --direct=1 --ioengine=libaio --rw=randread --bs=4k"
               " --iodepth=%d --time_based --runtime=%d --size=64m %s"
               % (dev, iodepth, runtime, extra), name="rr")


@pytest.fixture
def ssdsim():
    made = []

    def make(**over):
        params = dict(GEOMETRY)
        params.update(over)
        dev = ssd.load(**params)
        made.append(dev)
        return dev

    yield make
    if made:
        sh("echo none > /sys/block/%s/queue/scheduler" % ssd.disk(made[0]), check=False)
        ssd.unload()


@pytest.mark.parametrize("depth", [1, 2])
def test_unit_depth_bounds_die_occupancy(ssdsim, depth):
    """64 random reads over 32 dies: the caps must hold some, so the device,
    not the guest's CPU, must limit.  The debug kernel submits several times
    slower: there the device is forty times slower."""
    dev = ssdsim(time_scale=SLOW_DEVICE)
    matched(dev, depth, unit_spare=0)
    ssd.reset_stats(dev)
    data = randread(dev)
    st = ssd.stats(dev)
    s = ac_util.stats(dev)
    ios = data["jobs"][0]["read"]["total_ios"]
    print("unit_depth %d: %d reads, device max_die_inflight %d, cap_holds %d,"
          " reads to idle units %d, to busy %d"
          % (depth, ios, st["max_die_inflight"], s["cap_holds"], s["reads_idle"],
             s["reads_busy"]))
    assert ios > 200
    assert 1 <= st["max_die_inflight"] <= depth, st["max_die_inflight"]
    assert s["cap_holds"] > 0, "64 reads over 32 dies never met a cap?"
    sh("sync")
    ac_util.assert_idle_and_balanced(dev)
    record_counts("unit_depth_%d" % depth, reads=ios,
                  max_die_inflight=st["max_die_inflight"], cap_holds=s["cap_holds"])


@primary_kernel_only
def test_spare_slots_take_one_read_past_the_cap(ssdsim):
    """unit_spare on (the default), unit_depth 1: 64 random reads over 32
    dies leave some dies with nothing queued, so when the caps hold every
    queued read the device still has slots no idle die with reads waiting
    could use.  A read then goes past its die's cap (cap_spare), by one at
    most: never more than two commands at a die.  With unit_spare off the
    same load never has two (test_unit_depth_bounds_die_occupancy)."""
    dev = ssdsim(time_scale=SLOW_DEVICE)
    matched(dev, 1, unit_spare=1)
    ssd.reset_stats(dev)
    before = ac_util.stats(dev)["cap_spare"]
    data = randread(dev)
    st = ssd.stats(dev)
    s = ac_util.stats(dev)
    ios = data["jobs"][0]["read"]["total_ios"]
    print("unit_spare 1: %d reads, max_die_inflight %d, cap_spare %d, cap_holds %d"
          % (ios, st["max_die_inflight"], s["cap_spare"] - before, s["cap_holds"]))
    assert ios > 200
    assert s["cap_spare"] > before, s
    assert st["max_die_inflight"] <= 2, st["max_die_inflight"]
    sh("sync")
    ac_util.assert_idle_and_balanced(dev)
    record_counts("unit_spare_random", reads=ios, max_die_inflight=st["max_die_inflight"],
                  cap_spare=s["cap_spare"] - before)


@primary_kernel_only
@pytest.mark.parametrize("bs", ["64k", "128k"])
def test_wide_reads_pass_the_cap(ssdsim, bs):
    """Sequential reads, unit_depth 1, unit_spare off.  A 64 KiB read at a
    64 KiB stripe is on one die: the cap holds the rest of a die's reads
    (the device never has two at a die).  A 128 KiB read covers two dies
    and is counted at neither: it would hold back the reads of the die it
    starts on, and those start on every other die, leaving the device 16
    of its 32 commands; uncounted, the device gets more than 16.  The data
    read back is verified against what was written.  The caps must hold
    reads for that: the device, not the CPU, must be what limits.  Its
    reads are four times slower than the other tests' (at time_scale 10 a
    slow CI host never filled the device), the debug kernel's forty times
    (it submits several times slower); the writes that lay the data down
    keep their time."""
    scale = 400 if DEBUG_KERNEL else 40
    dev = ssdsim(time_scale=scale, program_us=5000 // scale)
    matched(dev, 1, unit_spare=0)
    job = ("--filename=%s --direct=1 --ioengine=libaio --rw=write --bs=%s --iodepth=64"
           " --size=32m --verify=crc32c --verify_fatal=1 --verify_state_save=0" % (dev, bs))
    fio(job + " --do_verify=0", name="seq")
    ssd.reset_stats(dev)
    data = fio(job + " --verify_only=1", name="seq")
    st = ssd.stats(dev)
    s = ac_util.stats(dev)
    ios = data["jobs"][0]["read"]["total_ios"]
    print("%s reads: %d, device max_inflight %d, max_die_inflight %d, cap_holds %d"
          % (bs, ios, st["max_inflight"], st["max_die_inflight"], s["cap_holds"]))
    assert ios >= 256, data["jobs"][0]["read"]
    if bs == "64k":
        assert s["cap_holds"] > 0, s
        assert st["max_die_inflight"] == 1, st["max_die_inflight"]
    else:
        assert 16 < st["max_inflight"] <= 32, st["max_inflight"]
    ac_util.assert_idle_and_balanced(dev)
    record_counts("sequential_reads_%s" % bs, reads=ios, max_inflight=st["max_inflight"],
                  max_die_inflight=st["max_die_inflight"])


@primary_kernel_only
@pytest.mark.parametrize("sched", ["ac-nocap", "mq-deadline"])
def test_without_cap_dies_hold_more(ssdsim, sched):
    """The control: the same load without a cap puts several commands on a
    die, so the bound above is AC's doing, not the load's."""
    dev = ssdsim(time_scale=SLOW_DEVICE)
    if sched == "ac-nocap":
        matched(dev, 0)
    else:
        set_scheduler(dev, sched)
    ssd.reset_stats(dev)
    randread(dev)
    st = ssd.stats(dev)
    print("%s: max_die_inflight %d" % (sched, st["max_die_inflight"]))
    assert st["max_die_inflight"] >= (2 if sched == "ac-nocap" else 3), st["max_die_inflight"]


def test_no_caps_with_one_die_per_channel(ssdsim):
    """AC's defaults (one die per channel: units are channels) apply no cap,
    whatever unit_depth says: the device gets several commands per die."""
    dev = ssdsim()
    ac_util.load()
    set_scheduler(dev, "ac")
    assert ac_util.tunable(dev, "dies_per_channel") == "1"
    assert ac_util.tunable(dev, "unit_depth") == "1"
    ssd.reset_stats(dev)
    randread(dev)
    st = ssd.stats(dev)
    s = ac_util.stats(dev)
    print("defaults: max_die_inflight %d, cap_holds %d" % (st["max_die_inflight"], s["cap_holds"]))
    assert s["cap_holds"] == 0 and s["cap_skips"] == 0
    assert st["max_die_inflight"] >= 2


@primary_kernel_only
def test_reads_prefer_idle_units(ssdsim):
    """Without a cap, occupancy still steers reads: with enough queued to
    choose from (nr_requests 256), most go to idle dies.  The device, not
    the guest's CPU, must be the bottleneck for occupancy to mean anything:
    the device is three times slower than the benchmark's (time_scale 300,
    1778 reads/s at most), as a slower host's guest, under TCG, sent about
    3000 reads/s at most with time_scale 100 (a 5333 reads/s device) and
    half its reads then went to busy dies.  The debug kernel (KASAN,
    lockdep) spends several times the CPU per request: there the device is
    slower still (time_scale 2000)."""
    dev = ssdsim(time_scale=2000 if DEBUG_KERNEL else 300)
    matched(dev, 0)
    assert ac_util.write("/sys/block/%s/queue/nr_requests" % ssd.disk(dev), "256") == 0
    randread(dev, iodepth=288)
    s = ac_util.stats(dev)
    print("reads to idle units %d, to busy units %d" % (s["reads_idle"], s["reads_busy"]))
    assert s["reads_idle"] > s["reads_busy"], s


def test_expired_read_waits_for_its_die(ssdsim):
    """Every read on one die, unit_depth 1, a 1 ms deadline against 0.6 ms
    (and more, queued) per read: reads expire, yet none goes past the cap
    (a die serves one command at a time, so it would only wait at the
    device, holding one of its command slots); each goes, as the expired
    FIFO head, as soon as the die is free, and nothing stalls.  unit_spare
    is off: with 31 idle dies and nothing queued for them, it would stack
    one more read on the die (see the sequential reads' test)."""
    dev = ssdsim()
    matched(dev, 1, unit_spare=0)
    assert ac_util.set_tunable(dev, "read_sync_expire", 1) == 0
    ssd.reset_stats(dev)
    # 64 KiB stripes over 32 dies: bytes [0, 64k) are all on die 0.0
    data = fio("--filename=%s --direct=1 --ioengine=libaio --rw=randread --bs=4k"
               " --iodepth=16 --time_based --runtime=2 --size=64k" % dev, name="hot")
    st = ssd.stats(dev)
    s = ac_util.stats(dev)
    ios = data["jobs"][0]["read"]["total_ios"]
    print("one die: %d reads, expired_waits %d, sync_read_expired %d, expired_read_sync %d,"
          " cap_expired %d, max_die_inflight %d"
          % (ios, s["expired_waits"], s["sync_read_expired"], s["expired_read_sync"],
             s["cap_expired"], st["max_die_inflight"]))
    assert ios > 100
    # deadlines passed while the die was busy, and the cap held
    assert s["expired_waits"] > 0, s
    assert st["max_die_inflight"] == 1, st["max_die_inflight"]
    # the expired reads left as such, once the die had room
    assert s["expired_read_sync"] > 0, s
    ac_util.assert_idle_and_balanced(dev)


@primary_kernel_only
def test_expired_writes_go_mid_phase(ssdsim):
    """Two verified sequential writers, 128 KiB, each in its own region, a
    200 ms write deadline, unit_depth 1: in sector order one writer's next
    writes keep landing just ahead of the other's on every die, so the
    other's writes expire.  An expired write head goes at the next pick,
    also between phase starts (write_expired), rather than waiting for the
    batch; every block verifies, nothing stalls.  The debug kernel submits
    so slowly (85 writes/s) that the device at time_scale 10 kept up and no
    write waited even 50 ms: there the device is six times slower (about 33
    of these writes/s) and the deadline 50 ms."""
    dev = ssdsim(time_scale=60 if DEBUG_KERNEL else 10)
    matched(dev, 1)
    expire = 50 if DEBUG_KERNEL else 200
    assert ac_util.set_tunable(dev, "write_sync_expire", expire) == 0
    jobs = [ac_util.fio_background(dev, "write", runtime=3, iodepth=32, bs="128k", size="32m",
                                   name="w%d" % i, extra="--offset=%dm" % (64 * i))
            for i in (0, 1)]
    total = ac_util.fio_wait_all(jobs)
    s = ac_util.stats(dev)
    print("two writers: %d verified I/Os, writes %d, expired %d (mid-phase %d), expired_waits %d"
          % (total, s["dispatched_write_sync"], s["expired_write_sync"], s["write_expired"],
             s["expired_waits"]))
    assert total > 50
    assert s["expired_write_sync"] > 0, s
    assert s["write_expired"] > 0, s
    ac_util.assert_idle_and_balanced(dev)


def test_writes_not_held_for_their_die(ssdsim):
    """Verified reads and writes, all on one die, unit_depth 1: the cap
    keeps one read at the die, but writes are not held for it (the device
    decides where a write is programmed), so the die holds more than one
    command; every block verifies, nothing stalls, no write waits for a
    read (no write expires at a 2 s deadline against 5 ms programs)."""
    dev = ssdsim()
    matched(dev, 1, unit_spare=0)
    ssd.reset_stats(dev)
    # 64 KiB stripes over 32 dies: [0, 64k) and [2m, 2m + 64k) are on die 0.0
    jobs = [ac_util.fio_background(dev, "randrw --rwmixread=80", runtime=3, iodepth=8,
                                   name="a", extra="--offset=0 --size=64k"),
            ac_util.fio_background(dev, "randrw --rwmixread=80", runtime=3, iodepth=8,
                                   name="b", extra="--offset=2m --size=64k")]
    total = ac_util.fio_wait_all(jobs)
    s = ac_util.stats(dev)
    st = ssd.stats(dev)
    print("one die: %d verified I/Os, writes %d (expired %d), max_die_inflight %d, cap_holds %d"
          % (total, s["dispatched_write_sync"], s["expired_write_sync"],
             st["max_die_inflight"], s["cap_holds"]))
    assert total > 100
    assert s["dispatched_write_sync"] > 0, s
    assert s["cap_holds"] > 0, s
    assert st["max_die_inflight"] >= 2, st["max_die_inflight"]
    assert s["expired_write_sync"] == 0, s
    ac_util.assert_idle_and_balanced(dev)


def test_caps_no_stall_with_random_completions(ssdsim):
    """Completions in random order (jitter up to 20 ms on 0.6-5 ms
    commands), unit_depth 1, a verified mix of reads and writes of several
    sizes: every request completes and every block verifies."""
    dev = ssdsim(jitter_us=20000)
    matched(dev, 1)
    jobs = [ac_util.fio_background(dev, "randrw --rwmixread=70", runtime=6, iodepth=48,
                                   name="a", extra="--offset=0 --size=32m"),
            ac_util.fio_background(dev, "randrw --rwmixread=30", runtime=6, iodepth=8,
                                   bs="16k", name="b", extra="--offset=32m --size=32m"),
            ac_util.fio_background(dev, "write", runtime=6, iodepth=4, bs="128k",
                                   name="c", extra="--offset=64m --size=32m")]
    total = ac_util.fio_wait_all(jobs)
    s = ac_util.stats(dev)
    print("%d verified I/Os, cap_holds %d, cap_expired %d" % (total, s["cap_holds"],
                                                                s["cap_expired"]))
    assert total > 300
    assert s["cap_holds"] > 0
    sh("sync")
    ac_util.assert_idle_and_balanced(dev)
    record_counts("caps_random_completions", ios_verified=total, cap_holds=s["cap_holds"])


def test_exact_across_changes_and_switches(ssdsim):
    """Layout and cap changes and scheduler switches under verified load
    with random completion order: nothing lost, and when it is over every
    unit's count is 0 (a leak would also WARN at the switch away).  For 7 s
    and until there were 20 changes and 2 switches, while the load runs
    (the debug kernel made 18 changes in 7 s: its switches are slow)."""
    dev = ssdsim(jitter_us=5000)
    matched(dev, 1)
    rng = random.Random(SEED)
    runtime = 20 if DEBUG_KERNEL else 8
    jobs = [ac_util.fio_background(dev, "randrw --rwmixread=60", runtime=runtime, iodepth=32,
                                   name="a", extra="--offset=0 --size=32m"),
            ac_util.fio_background(dev, "randwrite", runtime=runtime, iodepth=8, bs="16k",
                                   name="b", extra="--offset=32m --size=32m")]
    changes = switches = 0
    end = time.monotonic() + 7
    while ((time.monotonic() < end or changes < 20 or switches < 2) and
           all(j.poll() is None for j in jobs)):
        if rng.random() < 0.15:
            set_scheduler(dev, rng.choice(STOCK_SCHEDULERS))
            time.sleep(rng.uniform(0, 0.1))
            set_scheduler(dev, "ac")
            switches += 1
            continue
        name, value = rng.choice([
            ("nr_channels", rng.choice([1, 2, 4, 8, 16])),
            ("dies_per_channel", rng.choice([1, 2, 4, 8])),
            ("mapping", rng.choice(ac_util.MAPPINGS)),
            ("stripe_kb", rng.choice([16, 64, 256])),
            ("unit_depth", rng.choice([0, 1, 1, 2, 3])),
            ("unit_spare", rng.choice([0, 1])),
        ])
        err = ac_util.set_tunable(dev, name, value)
        assert err == 0, (name, value, err)
        changes += 1
        time.sleep(rng.uniform(0, 0.03))
    total = ac_util.fio_wait_all(jobs)
    sh("sync")
    print("%d tunable changes, %d switches, %d verified I/Os" % (changes, switches, total))
    assert changes >= 20 and switches >= 2 and total > 300
    ac_util.assert_idle_and_balanced(dev)
    record_counts("occupancy_changes_switches", changes=changes, switches=switches,
                  ios_verified=total)


def test_occupancy_null_blk_multiqueue(null_blk):
    """Two hardware queues, caps on, verified load: counts exact at the end."""
    dev = ac_util.ac_device(null_blk, submit_queues=2)
    for name, value in (("dies_per_channel", 4), ("unit_depth", 1), ("mapping", "stripe")):
        assert ac_util.set_tunable(dev, name, value) == 0
    jobs = [ac_util.fio_background(dev, "randrw --rwmixread=70", runtime=3, iodepth=32,
                                   name="a", extra="--offset=0 --size=32m --cpus_allowed=0"),
            ac_util.fio_background(dev, "randrw --rwmixread=70", runtime=3, iodepth=32,
                                   name="b", extra="--offset=32m --size=32m --cpus_allowed=1")]
    total = ac_util.fio_wait_all(jobs)
    assert total > 500
    sh("sync")
    units = ac_util.occupancy(dev)
    assert len(units) == 32
    assert {u: cd for u, (cd, _) in units.items()} == {u: (u % 8, u // 8) for u in range(32)}
    ac_util.assert_idle_and_balanced(dev)


def test_units_product_refused(null_blk):
    dev = ac_util.ac_device(null_blk)
    assert ac_util.set_tunable(dev, "nr_channels", 64) == 0
    assert ac_util.set_tunable(dev, "dies_per_channel", 4) == 0
    assert ac_util.set_tunable(dev, "dies_per_channel", 5) == 22
    assert ac_util.tunable(dev, "dies_per_channel") == "4"
    assert ac_util.set_tunable(dev, "nr_channels", 8) == 0
    assert ac_util.set_tunable(dev, "dies_per_channel", 32) == 0
    assert ac_util.set_tunable(dev, "nr_channels", 9) == 22
    assert ac_util.tunable(dev, "nr_channels") == "8"
    assert ac_util.state(dev)["units"] == 256
