# SPDX-License-Identifier: GPL-2.0
"""AC on edge devices (issue 5, "Edge devices"): a loop device of capacity 0
(empty backing file, and no backing file at all), a loop device resized
under a verified load, tiny devices (a 4-sector loop device, fewer sectors
than sub-groups; a 1 MiB null_blk made through configfs), and a zoned
null_blk (6.1: AC works correctly or is refused clearly, the device staying
usable with its scheduler; 6.10+: AC attaches and zoned writes verify).

"Fails cleanly" means: the system call returns (an error or a short count),
nothing hangs, the kernel log stays clean (conftest's guard), and the
scheduler still switches away afterwards."""

import errno
import json
import mmap
import os
import random
import time

import pytest

import ac_util
from ac_test_util import record_counts
from conftest import (KVER, current_scheduler, fio, fio_total_ios, read,
                      set_scheduler, sh, write)

TMP = "/tmp/ac-edge"


@pytest.fixture
def ac_loaded():
    ac_util.load()
    yield
    ac_util.unload(check=False)


@pytest.fixture
def loops():
    """Loop devices made by the test (detached afterwards)."""
    os.makedirs(TMP, exist_ok=True)
    sh("modprobe loop")
    made = []

    def attach(path=None, size=None, extra=""):
        if path is not None and size is not None:
            with open(path, "wb") as f:
                f.truncate(size)
        if path is None:
            dev = sh("losetup --find").stdout.split()[-1]
        else:
            # (stdout also holds losetup's warnings: the name is the last line)
            dev = sh("losetup --find --show %s %s" % (extra, path)).stdout.split()[-1]
        made.append(dev)
        return dev

    yield attach
    for dev in made:
        name = os.path.basename(dev)
        if os.path.exists("/sys/block/%s/queue/scheduler" % name):
            write("/sys/block/%s/queue/scheduler" % name, "none")
        sh("losetup -d %s" % dev, check=False)
    sh("rm -rf %s" % TMP, check=False)


def aligned(n):
    return mmap.mmap(-1, max(n, mmap.PAGESIZE))


def try_io(dev, kind, offset, length, flags=0):
    """One read or write; returns the byte count or -errno (never hangs:
    a hang is a test timeout and the hung-task report)."""
    fd = os.open(dev, (os.O_RDONLY if kind == "r" else os.O_WRONLY) | flags)
    try:
        buf = aligned(length)
        view = memoryview(buf)[:length]
        if kind == "r":
            return os.preadv(fd, [view], offset)
        return os.pwritev(fd, [view], offset)
    except OSError as e:
        return -e.errno
    finally:
        os.close(fd)


def assert_idle(dev):
    ac_util.assert_idle_and_balanced(dev)


# ---------------------------------------------------------------- capacity 0

def zero_capacity_io(dev):
    """Every kind of I/O on a device of capacity 0: a read returns nothing,
    a write fails with ENOSPC or EIO-like errors; none hangs."""
    results = {}
    for kind in ("r", "w"):
        for flags, label in ((0, "buffered"), (os.O_DIRECT, "direct")):
            res = try_io(dev, kind, 0, 4096, flags)
            results["%s_%s" % (kind, label)] = res
    print("capacity-0 I/O results:", results)
    for k, v in results.items():
        if k.startswith("r_"):
            assert v == 0 or v < 0, "read of a 0-sector device returned data: %s" % results
        else:
            assert v < 0, "write to a 0-sector device succeeded: %s" % results
    res = sh("dd if=/dev/zero of=%s bs=4k count=4 oflag=direct" % dev, check=False, timeout=60)
    assert res.returncode != 0
    res = sh("dd if=%s of=/dev/null bs=4k count=4 iflag=direct" % dev, check=False, timeout=60)
    assert "0+0 records in" in res.stdout or res.returncode != 0, res.stdout
    sh("blockdev --flushbufs %s" % dev, check=False, timeout=60)
    return results


def test_loop_zero_capacity(ac_loaded, loops):
    # an empty backing file
    path = os.path.join(TMP, "empty.img")
    dev = loops(path, 0)
    name = os.path.basename(dev)
    assert read("/sys/block/%s/size" % name) == "0"
    before = current_scheduler(dev)
    set_scheduler(dev, "ac")
    assert ac_util.state(dev)["capacity"] == 0
    for nr in (8, 1, 64):
        assert ac_util.set_tunable(dev, "nr_channels", nr) == 0
        for mapping in ac_util.MAPPINGS:
            assert ac_util.set_tunable(dev, "mapping", mapping) == 0
            zero_capacity_io(dev)
    assert_idle(dev)
    set_scheduler(dev, "mq-deadline")
    set_scheduler(dev, before)

    # a loop device with no backing file at all, which then gets one while
    # AC runs: capacity 0 -> 8 MiB, then a verified load
    free = loops()
    name = os.path.basename(free)
    if not os.path.exists(free):
        sh("losetup %s %s" % (free, path))   # creates the node
        sh("losetup -d %s" % free)
    assert read("/sys/block/%s/size" % name) == "0"
    set_scheduler(free, "ac")
    zero_capacity_io(free)
    assert_idle(free)
    backing = os.path.join(TMP, "later.img")
    with open(backing, "wb") as f:
        f.truncate(8 << 20)
    sh("losetup %s %s" % (free, backing))
    assert current_scheduler(free) == "ac"
    assert int(read("/sys/block/%s/size" % name)) == 16384
    data = fio(ac_util.fio_cmd(free, "randrw --rwmixread=50", runtime=2, size="8m",
                               iodepth=8).replace("--name=ac ", ""), name="later")
    assert fio_total_ios(data) > 100
    assert ac_util.state(free)["capacity"] == 16384
    assert_idle(free)
    set_scheduler(free, "none")
    sh("losetup -d %s" % free)
    # detached under AC: capacity back to 0, still switchable
    set_scheduler(free, "ac")
    zero_capacity_io(free)
    set_scheduler(free, "none")


# ---------------------------------------------------------------- resize

def test_loop_resized_under_load(ac_loaded, loops):
    path = os.path.join(TMP, "grow.img")
    dev = loops(path, 32 << 20)
    name = os.path.basename(dev)
    set_scheduler(dev, "ac")
    # the verified load stays in the first 16 MiB, which every size keeps
    job = ac_util.fio_background(dev, "randrw --rwmixread=50", runtime=6, size="16m",
                                 iodepth=16, name="resize")
    sizes = [64, 48, 128, 40, 256, 33, 96, 512, 64]
    seen = []
    time.sleep(0.5)
    for mb in sizes:
        os.truncate(path, mb << 20)
        sh("losetup -c %s" % dev)
        cap = int(read("/sys/block/%s/size" % name))
        assert cap == mb * 2048, "capacity %d after resizing to %d MiB" % (cap, mb)
        seen.append(cap)
        # I/O beyond the old end reaches the new sectors
        if mb >= 64:
            off = (mb - 1) << 20
            assert try_io(dev, "w", off, 4096, os.O_DIRECT) == 4096
            assert try_io(dev, "r", off, 4096, os.O_DIRECT) == 4096
        time.sleep(0.4)
    data = json.loads(ac_util.fio_wait(job, timeout=120))
    ios = fio_total_ios(data)
    assert ios > 500
    st = ac_util.state(dev)
    assert st["capacity"] == sizes[-1] * 2048, st
    s = ac_util.stats(dev)
    print("resizes seen by ac: %d, regroups %d, ios %d" % (s["resizes"], s["regroups"], ios))
    assert s["resizes"] >= 3, s
    assert_idle(dev)
    # a switch afterwards works, and back
    set_scheduler(dev, "mq-deadline")
    set_scheduler(dev, "ac")
    sh("dd if=%s of=/dev/null bs=64k count=64 iflag=direct" % dev)
    assert_idle(dev)
    record_counts("edge_resize", resizes=len(sizes), ios_verified=ios)


# ---------------------------------------------------------------- tiny

def check_tiny(dev, sectors, bs, rounds=40):
    """Random writes and read-back of whole sectors, several in flight at once."""
    rng = random.Random(7)
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    shadow = bytearray(sectors * bs)
    try:
        for _ in range(rounds):
            n = rng.randint(1, sectors)
            first = rng.randrange(0, sectors - n + 1)
            payload = os.urandom(n * bs)
            buf = aligned(n * bs)
            buf.write(payload)
            assert os.pwritev(fd, [memoryview(buf)[:n * bs]], first * bs) == n * bs
            shadow[first * bs:(first + n) * bs] = payload
        buf = aligned(sectors * bs)
        assert os.preadv(fd, [memoryview(buf)[:sectors * bs]], 0) == sectors * bs
        assert bytes(buf[:sectors * bs]) == bytes(shadow), "tiny device content differs"
    finally:
        os.close(fd)


def test_tiny_loop_fewer_sectors_than_channels(ac_loaded, loops):
    path = os.path.join(TMP, "tiny.img")
    dev = loops(path, 4 * 512, extra="--sector-size 512")
    name = os.path.basename(dev)
    assert read("/sys/block/%s/size" % name) == "4"
    set_scheduler(dev, "ac")
    ios = 0
    for nr, mapping, stripe in [(8, "range", 64), (64, "range", 64), (8, "stripe", 1),
                                (3, "stripe", 1), (1, "range", 64)]:
        for k, v in (("nr_channels", nr), ("mapping", mapping), ("stripe_kb", stripe)):
            assert ac_util.set_tunable(dev, k, v) == 0
        check_tiny(dev, 4, 512)
        # and a concurrent load with verification
        data = fio("--filename=%s --direct=1 --ioengine=libaio --iodepth=8 --rw=randrw"
                   " --bs=512 --size=2k --loops=40 --verify=crc32c --verify_fatal=1"
                   " --verify_backlog=4 --verify_state_save=0" % dev, name="tiny")
        ios += fio_total_ios(data)
        assert_idle(dev)
        # beyond the end: refused, nothing stranded
        assert try_io(dev, "w", 4 * 512, 512, os.O_DIRECT) == -errno.ENOSPC
        assert try_io(dev, "r", 4 * 512, 512, os.O_DIRECT) == 0
        assert_idle(dev)
    set_scheduler(dev, "none")
    record_counts("edge_tiny_loop", ios_verified=ios)


def test_tiny_null_blk(ac_loaded, configfs_nullb):
    dev = configfs_nullb("actiny", size=1, blocksize=512, memory_backed=1, hw_queue_depth=4)
    sectors = int(read("/sys/block/%s/size" % os.path.basename(dev)))
    assert sectors == 2048
    set_scheduler(dev, "ac")
    ios = 0
    for nr, mapping in [(64, "range"), (64, "stripe"), (7, "range")]:
        assert ac_util.set_tunable(dev, "nr_channels", nr) == 0
        assert ac_util.set_tunable(dev, "mapping", mapping) == 0
        data = fio(ac_util.fio_cmd(dev, "randrw --rwmixread=50", runtime=2, size="1m",
                                   iodepth=16, bs="512").replace("--name=ac ", ""), name="t")
        ios += fio_total_ios(data)
        assert_idle(dev)
    set_scheduler(dev, "none")
    record_counts("edge_tiny_null_blk", ios_verified=ios)


# ---------------------------------------------------------------- zoned

ZONE_MB = 8


def zbd_verify(dev, iodepth):
    """Sequential zone writes (fio zonemode=zbd) over 4 zones, verified."""
    sh("blkzone reset %s" % dev, timeout=120)
    data = fio("--filename=%s --direct=1 --ioengine=libaio --iodepth=%d --zonemode=zbd"
               " --rw=write --bs=16k --size=%dm --verify=crc32c --verify_fatal=1"
               " --do_verify=1 --verify_state_save=0"
               % (dev, iodepth, 4 * ZONE_MB), name="zbd")
    ios = fio_total_ios(data)
    data = fio("--filename=%s --direct=1 --ioengine=libaio --iodepth=%d --zonemode=zbd"
               " --rw=randwrite --bs=4k --offset=%dm --size=%dm --max_open_zones=4"
               " --io_size=8m --verify=crc32c --verify_fatal=1 --verify_state_save=0"
               % (dev, iodepth, 4 * ZONE_MB, 4 * ZONE_MB), name="zbdrand")
    return ios + fio_total_ios(data)


def test_zoned_null_blk(ac_loaded, null_blk):
    dev = null_blk(zoned=1, zone_size=ZONE_MB, zone_nr_conv=0, gb=1)
    name = os.path.basename(dev)
    assert read("/sys/block/%s/queue/zoned" % name) == "host-managed"
    before = current_scheduler(dev)
    listed = "ac" in read("/sys/block/%s/queue/scheduler" % name).replace("[", " ").replace("]", " ").split()
    err = write("/sys/block/%s/queue/scheduler" % name, "ac")
    print("kernel %s: zoned device scheduler %s, ac listed %s, selecting ac: errno %d"
          % (KVER, before, listed, err))
    if KVER == "6.1" and err != 0:
        # refused: clearly (EINVAL, not offered) and harmlessly
        assert err == errno.EINVAL, "refused with errno %d" % err
        assert not listed, "ac offered for a zoned device but refused"
        assert current_scheduler(dev) == before
        ios = zbd_verify(dev, 8 if before == "mq-deadline" else 1)
        record_counts("edge_zoned", kver_result="refused", ios_verified=ios)
        return
    assert err == 0, "ac refused on a zoned device (errno %d) on %s" % (err, KVER)
    assert listed
    assert current_scheduler(dev) == "ac"
    ios = zbd_verify(dev, 8)
    assert_idle(dev)
    # a zone append / reset / finish while AC is attached
    sh("blkzone reset -o 0 -c 1 %s" % dev)
    sh("blkzone finish -o %d -c 1 %s" % (ZONE_MB * 2048, dev), check=False)
    assert_idle(dev)
    set_scheduler(dev, before)
    record_counts("edge_zoned", kver_result="attached", ios_verified=ios)
