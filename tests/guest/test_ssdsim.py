# SPDX-License-Identifier: GPL-2.0
"""Guest tests of ssdsim, the emulated SSD (sim/).

Timing tests slow the model down (time_scale) until one page takes
milliseconds, far above the emulated CPU's own cost per I/O under TCG.  They
check the service time the model charged (exact, from its statistics) and
that the wall clock never beats it; see the timing section.

The model's tests run on 6.12 in make check (conftest.primary_kernel_only:
the model is plain C, the same on every kernel); data, discard, queue
properties and unload run on every kernel.
"""

import hashlib
import os
import signal
import subprocess
import time

import pytest

import ssdsim_util as su
from conftest import DEBUG_KERNEL, primary_kernel_only, primary_only

# Timing geometry: page p of the device is on channel p % 4 (stripe of one
# page), one die per channel.  A page read is 10 ms (die) + 2 ms (channel),
# a page write 2 ms (channel) + 40 ms (program).
TIMING = dict(capacity_mb=16, channels=4, dies=1, page_kb=4, read_us=100, program_us=400,
              xfer_us=20, time_scale=100, mapping="stripe", stripe_kb=4)
PAGE = 4096


@pytest.fixture
def ssdsim():
    """Load ssdsim with the given parameters; unloaded after the test."""
    yield su.load
    assert su.unload(), "ssdsim could not be unloaded"


# ---------------------------------------------------------------- parameters

BAD_PARAMS = [
    dict(channels=0),
    dict(dies=0),
    dict(channels=65),
    dict(page_kb=3),
    dict(page_kb=512),
    dict(channels=64, dies=64, capacity_mb=1, stripe_kb=4),  # fewer pages than dies
    dict(capacity_mb=0),
    dict(capacity_mb=10 ** 7),
    dict(logical_block_size=1000),
    dict(logical_block_size=4096, page_kb=2),       # page smaller than a block
    dict(time_scale=0),
    dict(read_us=10 ** 7),
    dict(queue_depth=0),
    dict(queue_depth=100000),
    dict(mapping="banana"),
    dict(stripe_kb=6),
    dict(jitter_us=1000001),
    dict(nr_devices=17),
    dict(nr_devices=0),
    dict(devices="channels=0"),
    dict(devices="bogus=1"),
    dict(devices="channels"),
    dict(devices="jitter_us=2000000"),
]


@primary_kernel_only
def test_bad_parameters_refused():
    assert su.unload()
    accepted = []
    for p in BAD_PARAMS:
        res = su.insmod(check=False, **p)
        if res.returncode == 0 or su.loaded():
            accepted.append(p)
            su.unload()
    assert not accepted, "accepted bad parameters: %s" % accepted
    log = su.sh("dmesg | grep 'ssdsim: invalid parameters' | tail -n 40").stdout
    assert "channels must be 1..64" in log
    assert "page_kb must be a power of two" in log
    assert "smaller than one page per die" in log
    assert "jitter_us must be 0..1000000" in log


def test_devices_and_queue_properties(ssdsim):
    ssdsim(nr_devices=2, capacity_mb=64,
           devices="channels=2,mapping=ftl,jitter_us=500;logical_block_size=4096,page_kb=16")
    for i in range(4):
        assert os.path.exists("/dev/ssdsim%d" % i)
    p = [su.params("/dev/ssdsim%d" % i) for i in range(4)]
    assert p[0]["channels"] == 8 and p[0]["mapping"] == "range"
    assert p[2]["channels"] == 2 and p[2]["mapping"] == "ftl"
    assert p[2]["jitter_us"] == 500 and p[0]["jitter_us"] == 0
    assert p[3]["logical_block_size"] == 4096 and p[3]["page_kb"] == 16
    q = "/sys/block/ssdsim3/queue/"
    assert su.sh("cat %srotational" % q).stdout.strip() == "0"
    assert su.sh("cat %slogical_block_size" % q).stdout.strip() == "4096"
    assert su.sh("cat %swrite_cache" % q).stdout.strip() == "write back"
    assert int(su.sh("cat %sdiscard_max_bytes" % q).stdout) > 0
    assert int(su.sh("cat %swrite_zeroes_max_bytes" % q).stdout) > 0
    size = int(su.sh("cat /sys/block/ssdsim0/size").stdout) * 512
    assert size == 64 << 20


# ---------------------------------------------------------------- timing
#
# Each test checks the time the model charged (stats read_model_ns_* and
# write_model_ns_*: completion minus arrival, exact) and that the wall clock
# never beats it (the completion timer cannot fire early).  The wall clock's
# upper side is TCG noise (10 ms and more seen under load), not the model:
# how fast a scheduler gets through the device is the benchmark's business.

MS = 1000000


def model_ns(st, kind):
    return st["%s_model_ns_max" % kind], st["%s_model_ns_sum" % kind]


def not_faster(measured_s, model_ms):
    ms = measured_s * 1e3
    return ms >= 0.95 * model_ms - 0.5, "measured %.2f ms, model %.2f ms" % (ms, model_ms)


@primary_kernel_only
def test_qd1_read_and_write_take_the_modelled_time(ssdsim):
    dev = ssdsim(**TIMING)
    read_ms, write_ms = su.model_ms(dev)
    assert (read_ms, write_ms) == (12.0, 42.0)
    cases = [("read", "r", 0, PAGE, read_ms),
             ("write", "w", PAGE, PAGE, write_ms),
             # a 4-page command spans the 4 channels: one page time, not four
             ("4-channel read", "r", 0, 4 * PAGE, read_ms),
             # two pages on two channels: the programs overlap
             ("2-channel write", "w", 2 * PAGE, 2 * PAGE, write_ms)]
    for what, kind, off, length, ms in cases:
        su.reset_stats(dev)
        lat = su.median_latency(dev, kind, off, length)
        st = su.stats(dev)
        k = "read" if kind == "r" else "write"
        # 5 commands one after the other at an idle device: each exactly ms
        assert model_ns(st, k) == (ms * MS, 5 * ms * MS), (what, model_ns(st, k))
        ok, why = not_faster(lat, ms)
        assert ok, what + ": " + why


@primary_kernel_only
def test_reads_on_different_channels_overlap_same_channel_serialises(ssdsim):
    dev = ssdsim(**TIMING)
    read_ms, _ = su.model_ms(dev)
    su.reset_stats(dev)
    wall_par, _ = su.best_wall(dev, [("r", p * PAGE, PAGE) for p in (0, 1, 2, 3)])
    st = su.stats(dev)
    assert [st["channel"][c]["ops"] for c in range(4)] == [3, 3, 3, 3]
    # on four channels no read waits for another, however they arrive (the
    # queue may merge neighbours into one command: it still takes one read)
    assert model_ns(st, "read") == (read_ms * MS, st["reads"] * read_ms * MS)
    su.reset_stats(dev)
    wall_ser, lat = su.best_wall(dev, [("r", p * PAGE, PAGE) for p in (0, 4, 8, 12)])
    st = su.stats(dev)
    assert [st["channel"][c]["ops"] for c in range(4)] == [12, 0, 0, 0]
    assert st["channel"][0]["busy_ns"] == 12 * 2000000
    assert st["die"][(0, 0)]["wait_ns"] > 0
    assert st["read_model_ns_max"] > read_ms * MS
    print("4 reads, 4 channels: %.1f ms; 4 reads, 1 channel: %.1f ms (model %.0f / %.0f)"
          % (wall_par * 1e3, wall_ser * 1e3, read_ms, 4 * read_ms))
    ok, why = not_faster(wall_par, read_ms)
    assert ok, "4 channels: " + why
    # one die serves the four one after the other
    ok, why = not_faster(wall_ser, 4 * read_ms)
    assert ok, "1 channel: " + why


@primary_kernel_only
def test_dies_of_one_channel_overlap_but_share_the_bus(ssdsim):
    # one channel, 4 dies, 10 ms sense, 5 ms transfer: the 4 senses overlap,
    # the 4 transfers take turns: 10 + 4 * 5 = 30 ms at most, against 4 * 15
    # = 60 ms if the channel held the whole operation.
    dev = ssdsim(**dict(TIMING, channels=1, dies=4, xfer_us=50))
    su.reset_stats(dev)
    wall, _ = su.best_wall(dev, [("r", p * PAGE, PAGE) for p in (0, 1, 2, 3)])
    st = su.stats(dev)
    assert [st["die"][(0, d)]["ops"] for d in range(4)] == [3, 3, 3, 3]
    assert st["channel"][0]["wait_ns"] > 0
    rmax, _ = model_ns(st, "read")
    assert 15 * MS < rmax <= 30 * MS, rmax
    ok, why = not_faster(wall, rmax / MS)
    assert ok, why


@primary_kernel_only
def test_channel_serves_ready_pages_in_gaps(ssdsim):
    # one channel, 2 dies, 100 ms sense, 20 ms transfer.  Two reads on die 0
    # at once book the channel at 100-120 and 220-240 ms; a read on die 1
    # 30 ms later is sensed by 130 and goes out then, in the gap, not after
    # 240 (as when a channel only appended: it waited 110 ms there).
    dev = ssdsim(**dict(TIMING, channels=1, dies=2, time_scale=1000))
    su.reset_stats(dev)
    su.timed_io(dev, [("r", 0, PAGE), ("r", 2 * PAGE, PAGE), ("r", PAGE, PAGE)],
                delays=[0, 0, 0.03])
    st = su.stats(dev)
    assert [st["die"][(0, d)]["ops"] for d in range(2)] == [2, 1]
    # at most the die-0 transfer a late-sensed die-1 page meets (20 ms)
    assert st["channel"][0]["wait_ns"] <= 20 * MS, st["channel"][0]
    assert st["die"][(0, 0)]["wait_ns"] > 0


@primary_kernel_only
def test_read_waits_behind_a_program_on_its_die(ssdsim):
    dev = ssdsim(**TIMING)
    read_ms, write_ms = su.model_ms(dev)
    su.reset_stats(dev)
    # write page 0 (channel 0); 5 ms later read page 4 (same die) and page 1
    # (another channel)
    delay = 0.005
    _, lat = su.timed_io(dev, [("w", 0, PAGE), ("r", 4 * PAGE, PAGE), ("r", PAGE, PAGE)],
                         delays=[0, delay, delay])
    st = su.stats(dev)
    print("write %.1f ms, read behind it %.1f ms, read elsewhere %.1f ms"
          % tuple(x * 1e3 for x in lat))
    assert st["reads_behind_program"] == 1
    assert st["read_pages_behind_program"] == 1
    assert model_ns(st, "write") == (write_ms * MS, write_ms * MS)
    rmax, rsum = model_ns(st, "read")
    # the blocked read: what is left of the program, then a whole read
    assert read_ms * MS < rmax <= (write_ms + read_ms) * MS
    # the read on an idle channel: exactly one read
    assert rsum - rmax == read_ms * MS
    ok, why = not_faster(lat[1], rmax / MS)
    assert ok, "read behind the program: " + why
    ok, why = not_faster(lat[2], read_ms)
    assert ok, "read on an idle channel: " + why


@primary_kernel_only
def test_ftl_places_writes_round_robin(ssdsim):
    dev = ssdsim(**dict(TIMING, mapping="ftl"))
    read_ms, _ = su.model_ms(dev)
    su.reset_stats(dev)
    # pages 0, 4, 8, 12 share channel 0 by default; written one by one they
    # land on channels 0, 1, 2, 3 in write order
    for p in (0, 4, 8, 12):
        su.timed_io(dev, [("w", p * PAGE, PAGE)])
    st = su.stats(dev)
    assert [st["channel"][c]["ops"] for c in range(4)] == [1, 1, 1, 1]
    su.reset_stats(dev)
    wall, _ = su.best_wall(dev, [("r", p * PAGE, PAGE) for p in (0, 4, 8, 12)])
    st = su.stats(dev)
    # the reads follow the placement: one per channel, none waits
    assert [st["channel"][c]["ops"] for c in range(4)] == [3, 3, 3, 3]
    assert model_ns(st, "read") == (read_ms * MS, st["reads"] * read_ms * MS)
    ok, why = not_faster(wall, read_ms)
    assert ok, "reads follow the mapping: " + why
    # a never-written page is charged at its stripe location (16 -> channel 0)
    su.reset_stats(dev)
    su.timed_io(dev, [("r", 16 * PAGE, PAGE)])
    assert su.stats(dev)["channel"][0]["ops"] == 1


@primary_kernel_only
def test_queue_depth_bounds_commands_in_flight(ssdsim):
    dev = ssdsim(**dict(TIMING, queue_depth=4))
    su.reset_stats(dev)
    su.fio_jobs(dev, [dict(rw="randread", bs="4k", iodepth=16, runtime=2, time_based=1)],
                dict(ioengine="libaio", direct=1, size="4m"))
    st = su.stats(dev)
    assert st["max_inflight"] == 4, st["max_inflight"]
    assert st["inflight"] == 0


# ---------------------------------------------------------------- occupancy
#
# A read or write is at every die its pages touch from queue_rq until its
# completion; stats report per die the commands there now (inflight) and the
# most at once (max_inflight), and the device the most over all dies
# (max_die_inflight).  A read here takes 50 ms (die) + 10 ms (channel), so
# commands handed over in one io_submit are all at the device long before the
# first completes: the expected counts are exact.

OCC = dict(TIMING, read_us=50, xfer_us=10, time_scale=1000, queue_depth=32)
ALL_DIES = [(c, 0) for c in range(4)]


def occupancy(st):
    return {d: (st["die"][d]["inflight"], st["die"][d]["max_inflight"]) for d in st["die"]}


def idle_and_reset(dev):
    for _ in range(100):        # whatever probed the new disk is done
        if su.stats(dev)["inflight"] == 0:
            break
        time.sleep(0.05)
    su.reset_stats(dev)


# (geometry overrides, reads, read size, gap, {die: max_inflight}, max_inflight)
DIE_CASES = {
    # pages 0, 4, 8, ...: all on channel 0's die
    "one-die": ({}, 12, 4096, 3 * PAGE, {(0, 0): 12}, 12),
    # 16 KiB chunks: each read is 4 pages, all on channel 0's die, counted once
    "one-die-4-pages": (dict(stripe_kb=16), 8, 4 * PAGE, 12 * PAGE, {(0, 0): 8}, 8),
    # pages 0-3, 8-11, ...: each read is at all four dies
    "all-dies-each": ({}, 6, 4 * PAGE, 4 * PAGE, {d: 6 for d in ALL_DIES}, 6),
    # pages 0, 5, 10, 15: one read per die, all four at once
    "one-per-die": ({}, 4, 4096, 4 * PAGE, {d: 1 for d in ALL_DIES}, 4),
    # 40 reads for one die: the device holds queue_depth of them
    "over-queue-depth": ({}, 40, 4096, 3 * PAGE, {(0, 0): 32}, 32),
}


@primary_kernel_only
@pytest.mark.parametrize("case", list(DIE_CASES))
def test_max_die_inflight_is_exact(ssdsim, case):
    geometry, n, bs, gap, dies, max_inflight = DIE_CASES[case]
    dev = ssdsim(**dict(OCC, **geometry))
    idle_and_reset(dev)
    su.batch_reads(dev, n, bs, gap)
    st = su.stats(dev)
    assert st["reads"] == n, st["reads"]            # no merges, no strays
    assert st["max_inflight"] == max_inflight, st["max_inflight"]
    assert st["max_die_inflight"] == max(dies.values()), st["max_die_inflight"]
    # every die is empty again and saw exactly what was sent to it
    assert occupancy(st) == {d: (0, dies.get(d, 0)) for d in ALL_DIES}, occupancy(st)


@primary_kernel_only
def test_stats_reset_keeps_die_commands_in_flight(ssdsim):
    # 8 reads for one die, 210 ms each: reset while they queue there
    dev = ssdsim(**dict(OCC, read_us=200))
    idle_and_reset(dev)
    proc = subprocess.Popen(["fio", "--name=queue", "--filename=" + dev, "--rw=read:12k",
                             "--bs=4k", "--ioengine=libaio", "--direct=1", "--iodepth=8",
                             "--iodepth_batch_submit=8", "--number_ios=8", "--size=128k"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 60     # fio takes seconds to start under TCG
        while su.stats(dev)["inflight"] < 8 and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.01)
        # all 8 arrived together; the first completes 210 ms later
        assert su.stats(dev)["inflight"] == 8
        su.reset_stats(dev)
        st = su.stats(dev)
    finally:
        assert proc.wait(timeout=120) == 0
    inflight, peak = st["die"][(0, 0)]["inflight"], st["die"][(0, 0)]["max_inflight"]
    # nothing arrived after the reset: its maximum is what was there then
    assert 0 < inflight <= peak <= 8, (inflight, peak)
    assert st["max_die_inflight"] == peak
    assert st["max_inflight"] == peak
    st = su.stats(dev)
    assert occupancy(st)[(0, 0)] == (0, peak)
    assert st["max_die_inflight"] == peak


# ---------------------------------------------------------------- jitter
#
# jitter_us delays each completion by a random 0..jitter_us us past its
# modelled end (not scaled by time_scale), outside the model.

def inversions(offsets):
    return sum(1 for a, b in zip(offsets, offsets[1:]) if b < a)


@primary_kernel_only
def test_jitter_reorders_completions(ssdsim, tmp_path):
    # 64 reads for channel 0's die, 1.2 ms each, submitted one by one in
    # offset order by one fio thread on CPU 0 (so every completion timer is
    # on one CPU): the die serves them in arrival order.
    job = dict(rw="read:12k", bs="4k", iodepth=16, number_ios=64, size="1m", cpus_allowed=0)
    common = dict(ioengine="libaio", direct=1)
    orders = {}
    for jitter in (0, 20000):
        dev = ssdsim(**dict(TIMING, time_scale=10, jitter_us=jitter))
        su.sh("echo none > /sys/block/%s/queue/scheduler" % su.disk(dev))
        idle_and_reset(dev)
        orders[jitter] = su.completion_offsets(dev, job, common, str(tmp_path))
        st = su.stats(dev)
        assert st["reads"] == 64
        # the die's time is the model's alone: 1.2 ms a read, jitter or not
        assert st["die"][(0, 0)]["busy_ns"] == 64 * 1200000
        su.unload()
    assert orders[0] == list(range(0, 64 * 16384, 16384)), orders[0]
    assert sorted(orders[20000]) == orders[0]
    # 0..20 ms of jitter against 1.2 ms between modelled ends: about 40 % of
    # neighbours swap; without jitter none does
    print("inversions with jitter: %d of 63" % inversions(orders[20000]))
    assert inversions(orders[20000]) >= 10, orders[20000]


@primary_kernel_only
def test_jitter_is_outside_the_model(ssdsim):
    dev = ssdsim(**dict(TIMING, jitter_us=20000))
    read_ms, _ = su.model_ms(dev)
    su.reset_stats(dev)
    lat = [su.timed_io(dev, [("r", 0, PAGE)])[1][0] for _ in range(10)]
    st = su.stats(dev)
    # one read at a time at an idle device: each charged exactly one read
    assert model_ns(st, "read") == (read_ms * MS, 10 * read_ms * MS)
    assert st["die"][(0, 0)]["busy_ns"] == 10 * read_ms * MS
    assert st["die"][(0, 0)]["wait_ns"] == 0
    extra_ms = [x * 1e3 - read_ms for x in lat]
    print("wall minus model: " + " ".join("%.1f" % x for x in extra_ms))
    # no completion comes early; the jitter adds 10 ms on average (TCG can
    # only add more)
    assert min(extra_ms) >= -0.5, extra_ms
    assert sum(extra_ms) / len(extra_ms) >= 4, extra_ms


@primary_kernel_only
def test_fio_verify_with_jitter(ssdsim):
    dev = ssdsim(capacity_mb=32, time_scale=1, mapping="stripe", stripe_kb=16, jitter_us=20000)
    common = dict(ioengine="libaio", direct=1, iodepth=16, verify="crc32c",
                  do_verify=1, verify_fatal=1, size="2m")
    su.fio_jobs(dev, [
        dict(rw="randwrite", bs="4k", offset="0"),
        dict(rw="write", bs="12k", offset="8m"),
        dict(rw="randwrite", bs="64k", offset="16m"),
    ], common)


# ---------------------------------------------------------------- data

# the stripe case everywhere; the others' mapping code is the same on every kernel
@pytest.mark.parametrize("mapping,lbs", [primary_only("range", 512), ("stripe", 4096),
                                         primary_only("ftl", 512)])
def test_fio_verify_direct(ssdsim, mapping, lbs):
    dev = ssdsim(capacity_mb=32, time_scale=1, mapping=mapping, logical_block_size=lbs,
                 stripe_kb=16)
    common = dict(ioengine="libaio", direct=1, iodepth=8, verify="crc32c",
                  do_verify=1, verify_fatal=1, size="4m")
    su.fio_jobs(dev, [
        dict(rw="write", bs="128k", offset="0"),
        dict(rw="randwrite", bs="4k", offset="8m"),
        dict(rw="randwrite", bs="64k", offset="16m", bs_unaligned=0),
        dict(rw="write", bs="12k", offset="24m"),       # pages split unevenly
    ], common)


@primary_kernel_only
def test_ext4_buffered_and_direct(ssdsim, tmp_path):
    dev = ssdsim(capacity_mb=128, time_scale=1, mapping="ftl", logical_block_size=4096)
    mnt = str(tmp_path / "mnt")
    os.mkdir(mnt)
    su.sh("mkfs.ext4 -q -F %s" % dev)        # discards the whole device first
    su.sh("mount %s %s" % (dev, mnt))
    try:
        su.fio_jobs(mnt, [dict(rw="randwrite", bs="4k", direct=0, end_fsync=1),
                          dict(rw="write", bs="64k", direct=1)],
                    dict(ioengine="psync", size="8m", verify="crc32c", do_verify=1, verify_fatal=1))
        data = os.urandom(3 << 20)
        path = os.path.join(mnt, "blob")
        with open(path, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        su.sh("umount %s" % mnt)
        su.sh("mount %s %s" % (dev, mnt))
        with open(path, "rb") as f:
            assert hashlib.sha256(f.read()).digest() == hashlib.sha256(data).digest()
        assert su.stats(dev)["flushes"] > 0
    finally:
        su.sh("umount %s" % mnt, check=False)
    su.sh("fsck.ext4 -fn %s" % dev)


def _read(dev, off, length):
    fd = os.open(dev, os.O_RDONLY)
    try:
        return os.pread(fd, length, off)
    finally:
        os.close(fd)


def test_discard_and_write_zeroes_read_back_zeros(ssdsim):
    dev = ssdsim(capacity_mb=16, time_scale=1, mapping="ftl", logical_block_size=512)
    data = os.urandom(1 << 20)
    fd = os.open(dev, os.O_WRONLY)
    os.write(fd, data)
    os.fsync(fd)
    os.close(fd)
    su.sh("echo 3 > /proc/sys/vm/drop_caches")
    su.reset_stats(dev)
    su.sh("blkdiscard -o 65536 -l 131072 %s" % dev)          # whole pages
    su.sh("blkdiscard -o 1536 -l 1024 %s" % dev)             # inside one page
    su.sh("blkdiscard -z -o 524288 -l 5120 %s" % dev)        # write zeroes, partial end
    got = _read(dev, 0, 1 << 20)
    zero = [(65536, 196608), (1536, 2560), (524288, 529408)]
    expect = bytearray(data)
    for a, b in zero:
        expect[a:b] = bytes(b - a)
    assert got == bytes(expect)
    st = su.stats(dev)
    assert st["discards"] >= 2 and st["write_zeroes"] >= 1
    # a discarded range reads zeros after the whole device is discarded, too
    su.sh("blkdiscard %s" % dev)
    assert _read(dev, 0, 1 << 20) == bytes(1 << 20)


# ---------------------------------------------------------------- unload

def test_unload_with_io_in_flight(ssdsim):
    dev = ssdsim(**dict(TIMING, capacity_mb=16))
    proc = subprocess.Popen(["fio", "--name=busy", "--filename=" + dev, "--rw=randrw", "--bs=16k",
                             "--ioengine=libaio", "--iodepth=32", "--direct=1", "--size=8m",
                             "--time_based=1", "--runtime=60", "--thread"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)    # --thread: one process to kill
    try:
        # fio takes seconds to start under TCG; on the debug kernel, more than 30
        for _ in range(1200 if DEBUG_KERNEL else 300):
            if su.stats(dev)["inflight"] > 0:
                break
            time.sleep(0.1)
        assert su.stats(dev)["inflight"] > 0
        # the device is open: unloading is refused, nothing breaks
        res = su.sh("rmmod ssdsim", check=False)
        assert res.returncode != 0 and su.loaded()
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    # the killed fio's commands drain; then the module goes
    assert su.unload(timeout=60), "rmmod failed after fio was killed"


def test_unload_right_after_io(ssdsim):
    # buffered writes still being written back when the last user closes
    dev = ssdsim(**dict(TIMING, time_scale=10))
    su.sh("dd if=/dev/urandom of=%s bs=64k count=16 status=none" % dev)
    assert su.unload(timeout=60)
