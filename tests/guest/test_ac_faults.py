# SPDX-License-Identifier: GPL-2.0
"""Faults a shipped scheduler must survive (issue 15), each with AC active
and I/O under way.  Every test ends with every request completed or failed
back to its submitter (fio returns), AC's books balanced (nothing queued,
every unit's occupancy 0), the kernel log clean (conftest's guard) and the
module unloadable.

On every kernel:
- a CPU taken offline and back, repeatedly, under verified I/O on a
  two-queue device;
- the device deleted (null_blk through configfs) with I/O in flight;
- I/O errors (null_blk bad blocks) on requests AC holds back under caps;
- nr_requests changed (the queue frozen each time) while caps hold requests.

On the debug kernel (make check-debug; skipped elsewhere, a failure there if
the kernel lacks what it needs):
- injected timeouts and requeues (null_blk fault injection), lost
  completions (fail_io_timeout) and failed submissions (fail_make_request);
- every slab allocation of 'echo ac > scheduler', of the switch away and of
  tunable writes failed in turn (fail-nth): the write fails cleanly, the
  queue keeps working under the scheduler the core chose, and the old
  tunable value is kept."""

import json
import mmap
import os
import subprocess
import time

import pytest

import ac_util
import ssdsim_util as ssd
from ac_test_util import record_counts, wait_for
from conftest import (CONFIGFS, DEBUG_KERNEL, current_scheduler, fio, read, scheduler_path,
                      set_scheduler, sh, write)

CPU1 = "/sys/devices/system/cpu/cpu1/online"
# null_blk completing from a timer 200 us after dispatch: requests stay at
# the device long enough for AC's caps to hold others back (the default
# completes them before the next dispatch)
SLOW = dict(irqmode=2, completion_nsec=200000)
DEBUGFS = "/sys/kernel/debug"


def require(path, what):
    """Skip without @path, except on the debug kernel, which must have it."""
    if os.path.exists(path):
        return
    if DEBUG_KERNEL:
        pytest.fail("the debug kernel lacks %s (%s)" % (what, path))
    pytest.skip("needs %s: the debug kernel's (make check-debug)" % what)


def fio_errors_allowed(dev, rw, runtime, extra=""):
    """An unverified fio run that counts I/O errors instead of stopping at
    the first, as far as fio does: (I/Os, errors).  fio returning at all
    means every request it submitted came back; its exit status reflects
    the errors, so only its report is read."""
    # continue_on_error goes on past EIO; ETIMEDOUT (a request the block
    # layer timed out) is named too, by number as fio-3.33 wants (EIO 5,
    # ETIMEDOUT 110), though a job was still seen to stop on it
    cmd = ("fio --output-format=json --name=err --filename=%s --direct=1 --ioengine=libaio"
           " --rw=%s --bs=4k --iodepth=32 --time_based --runtime=%d --size=48m"
           " --continue_on_error=io --ignore_error=5,110:5,110 %s"
           % (dev, rw, runtime, extra))
    res = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, timeout=300)
    start = res.stdout.find("{")
    assert start >= 0, "fio wrote no report (%d): %s" % (res.returncode, res.stderr[-2000:])
    data = json.loads(res.stdout[start:])
    ios = errs = 0
    for job in data["jobs"]:
        ios += job["read"]["total_ios"] + job["write"]["total_ios"]
        # errors fio went on past, or the one it stopped on ("error" holds
        # the first error either way): each reached the submitter
        errs += max(job["total_err"], 1 if job["error"] else 0)
    return ios, errs


def ac_with_caps(dev):
    """AC on @dev as 2 channels x 2 dies with unit_depth 1: at most four
    requests at the device, so the caps hold the rest back."""
    ac_util.load()
    set_scheduler(dev, "ac")
    for name, value in (("nr_channels", 2), ("dies_per_channel", 2), ("unit_depth", 1)):
        assert ac_util.set_tunable(dev, name, value) == 0, name


def verified(dev, rw, runtime=2, size="32m"):
    """A verified fio run on @dev; its I/O count."""
    data = fio(ac_util.fio_cmd(dev, rw, runtime=runtime, size=size).replace("--name=ac ", ""),
               name="v")
    return sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in data["jobs"])


def finish(dev):
    """The end of every scenario: books balanced, AC leaves, unloads."""
    sh("sync")
    ac_util.assert_idle_and_balanced(dev)
    set_scheduler(dev, "none")
    ac_util.unload()


@pytest.fixture
def cpu1_back():
    yield
    if os.path.exists(CPU1) and read(CPU1) != "1":
        write(CPU1, "1")


def test_cpu_offline_and_back_under_io(null_blk, cpu1_back):
    """Each hardware queue of the device serves one CPU; taking CPU 1
    offline drains its queue (the core waits for every request AC holds
    for it) while verified fio keeps submitting from the other."""
    if not os.path.exists(CPU1):
        pytest.skip("CPU 1 cannot go offline here")
    dev = null_blk(submit_queues=2, hw_queue_depth=32, **SLOW)
    ac_with_caps(dev)
    jobs = [ac_util.fio_background(dev, "randrw --rwmixread=70", runtime=10, iodepth=32,
                                   name="a", extra="--offset=0 --size=32m"),
            ac_util.fio_background(dev, "randwrite", runtime=10, iodepth=8, bs="16k",
                                   name="b", extra="--offset=32m --size=32m")]
    time.sleep(0.5)
    cycles = 0
    while all(j.poll() is None for j in jobs) and cycles < 6:
        assert write(CPU1, "0") == 0
        time.sleep(0.4)
        assert write(CPU1, "1") == 0
        time.sleep(0.4)
        cycles += 1
    total = ac_util.fio_wait_all(jobs)
    assert cycles >= 3, "fio ended after %d offline cycles" % cycles
    s = ac_util.stats(dev)
    print("%d verified I/Os over %d offline cycles, cap_holds %d" % (total, cycles,
                                                                    s["cap_holds"]))
    finish(dev)
    record_counts("fault_cpu_offline", ios_verified=total, cycles=cycles)


def test_null_blk_deleted_under_io(configfs_nullb):
    """power=0 deletes the disk while fio has 32 requests in flight and AC
    holds more: fio gets its I/O back (data or errors) and ends; the
    elevator goes with the disk, so AC unloads."""
    ac_util.load()
    dev = configfs_nullb("acgone", size=128, memory_backed=1, blocksize=4096,
                         hw_queue_depth=16, submit_queues=2, **SLOW)
    ac_with_caps(dev)
    verified(dev, "randrw")
    item = os.path.join(CONFIGFS, "acgone")
    # allow_file_create=0: a fio that opened the path only after the
    # delete must fail, not write a regular file in /dev
    proc = subprocess.Popen("fio --output-format=json --name=gone --filename=%s --direct=1"
                            " --ioengine=libaio --iodepth=32 --rw=randrw --bs=4k --size=64m"
                            " --time_based --runtime=60 --allow_file_create=0" % dev,
                            shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    stat = "/sys/block/%s/stat" % os.path.basename(dev)

    def ios():
        f = read(stat).split()
        return int(f[0]) + int(f[4])
    base = ios()
    assert wait_for(lambda: ios() > base + 2000, timeout=60), "fio never got going"
    assert proc.poll() is None, "fio ended before the device went away"
    t0 = time.monotonic()
    assert write(os.path.join(item, "power"), "0") == 0
    print("power=0 took %.1f s; disk %s" % (time.monotonic() - t0, os.path.exists(
        "/sys/block/%s" % os.path.basename(dev))))
    out, err = proc.communicate(timeout=120)
    ended = time.monotonic() - t0
    print("fio ended %.1f s after the delete, status %d: %s" % (ended, proc.returncode,
                                                                 err.strip()[-300:]))
    assert proc.returncode != 0, "fio ran on against a deleted disk"
    assert ended < 50
    assert not os.path.exists("/sys/block/%s" % os.path.basename(dev))
    ac_util.unload()
    record_counts("fault_null_blk_deleted", seconds_to_end=round(ended, 1))


def test_io_errors_on_held_requests(configfs_nullb):
    """Bad blocks on every fourth MiB: requests AC held under caps fail
    when they reach the device; each error is completed, uncounted and
    returned; afterwards verified I/O still works."""
    ac_util.load()
    dev = configfs_nullb("acbad", size=64, memory_backed=1, blocksize=4096,
                         hw_queue_depth=16, **SLOW)
    ac_with_caps(dev)
    item = os.path.join(CONFIGFS, "acbad")
    for mib in range(0, 64, 4):
        first = mib * 2048
        assert write(os.path.join(item, "badblocks"), "+%d-%d" % (first, first + 255)) == 0
    ios, errs = fio_errors_allowed(dev, "randrw", runtime=4)
    s = ac_util.stats(dev)
    print("%d I/Os, %d errors, cap_holds %d" % (ios, errs, s["cap_holds"]))
    assert errs > 0 and ios > errs
    assert s["cap_holds"] > 0
    ac_util.assert_idle_and_balanced(dev)
    assert write(os.path.join(item, "badblocks"), "-0-131071") == 0
    verified(dev, "randrw", size="48m")
    finish(dev)
    record_counts("fault_io_errors", ios=ios, errors=errs, cap_holds=s["cap_holds"])


def test_nr_requests_changed_while_caps_hold(ssdsim_matched):
    """Each nr_requests write freezes the queue: the core waits for every
    request, including those AC holds behind a busy die, then resizes the
    tags.  Verified load throughout, completions in random order."""
    dev = ssdsim_matched
    path = "/sys/block/%s/queue/nr_requests" % ssd.disk(dev)
    jobs = [ac_util.fio_background(dev, "randrw --rwmixread=70", runtime=8, iodepth=64,
                                   name="a", extra="--offset=0 --size=32m"),
            ac_util.fio_background(dev, "randwrite", runtime=8, iodepth=16, bs="16k",
                                   name="b", extra="--offset=32m --size=32m")]
    time.sleep(1)
    holds = ac_util.stats(dev)["cap_holds"]
    changes = 0
    for n in (32, 128, 16, 256, 64, 8, 512, 64):
        if any(j.poll() is not None for j in jobs):
            break
        assert write(path, str(n)) == 0, n
        assert read(path) == str(n)
        changes += 1
        time.sleep(0.3)
    total = ac_util.fio_wait_all(jobs)
    held = ac_util.stats(dev)["cap_holds"] - holds
    print("%d verified I/Os, %d nr_requests changes, %d cap holds meanwhile"
          % (total, changes, held))
    assert changes >= 5 and held > 0
    finish(dev)
    record_counts("fault_nr_requests_frozen", ios_verified=total, changes=changes)


@pytest.fixture
def ssdsim_matched():
    dev = ssd.load(channels=8, dies=4, mapping="stripe", stripe_kb=64, page_kb=4,
                   queue_depth=32, time_scale=10, capacity_mb=128, jitter_us=5000)
    ac_util.load()
    set_scheduler(dev, "ac")
    for name, value in (("nr_channels", 8), ("dies_per_channel", 4), ("mapping", "stripe"),
                        ("stripe_kb", 64), ("unit_depth", 1)):
        assert ac_util.set_tunable(dev, name, value) == 0, name
    yield dev
    write(scheduler_path(dev), "none")
    ssd.unload()
    ac_util.unload(check=False)


# ------------------------------------------------------------ debug kernel

def fault_attr(name, **values):
    d = os.path.join(DEBUGFS, name)
    for k, v in values.items():
        assert write(os.path.join(d, k), str(v)) == 0, (name, k, v)


def test_injected_timeouts_requeues_and_failures(null_blk):
    """null_blk drops the completion of some requests (the block layer's
    timeout completes them with an error after 1 s) and requeues others;
    fail_io_timeout loses completions; fail_make_request fails bios before
    they reach AC.  All while caps hold requests back: 8 channels x 2 dies,
    2 requests per die, so that a few requests waiting for their timeout
    do not hold every unit."""
    require(os.path.join(DEBUGFS, "fail_io_timeout"), "fail_io_timeout")
    require(os.path.join(DEBUGFS, "fail_make_request"), "fail_make_request")
    dev = null_blk(submit_queues=2, hw_queue_depth=16, timeout="1,2,0,20",
                   requeue="1,5,0,-1", **SLOW)
    disk = os.path.basename(dev)
    assert os.path.exists("/sys/module/null_blk/parameters/timeout"), \
        "null_blk was built without fault injection"
    assert write("/sys/block/%s/queue/io_timeout" % disk, "1000") == 0
    ac_util.load()
    set_scheduler(dev, "ac")
    for name, value in (("nr_channels", 8), ("dies_per_channel", 2), ("unit_depth", 2)):
        assert ac_util.set_tunable(dev, name, value) == 0, name
    for name in ("fail_io_timeout", "fail_make_request"):
        fault_attr(name, probability=2, interval=1, times=20, space=0, verbose=0)
    assert write("/sys/block/%s/io-timeout-fail" % disk, "1") == 0
    assert write("/sys/block/%s/make-it-fail" % disk, "1") == 0
    try:
        ios, errs = fio_errors_allowed(dev, "randrw", runtime=10)
    finally:
        write("/sys/block/%s/io-timeout-fail" % disk, "0")
        write("/sys/block/%s/make-it-fail" % disk, "0")
    s = ac_util.stats(dev)
    left = {n: read(os.path.join(DEBUGFS, n, "times")) for n in ("fail_io_timeout",
                                                                "fail_make_request")}
    timed_out = sh("dmesg | grep -c 'timed out'", check=False).stdout.strip()
    print("%d I/Os, %d errors, requeued %d, cap_holds %d; injections left %s; %s timeouts"
          % (ios, errs, s["requeued"], s["cap_holds"], left, timed_out))
    assert errs > 0 and ios > errs
    assert s["requeued"] > 0
    ac_util.assert_idle_and_balanced(dev)
    finish(dev)
    record_counts("fault_injected", ios=ios, errors=errs, requeued=s["requeued"])


class FailNth:
    """Fail the n-th fault-injection point (slab allocation) this thread
    reaches: /proc/thread-self/fail-nth.  Opened before use, so opening
    costs no allocation inside the window."""

    def __init__(self):
        self.fd = os.open("/proc/thread-self/fail-nth", os.O_RDWR)

    def arm(self, n):
        os.write(self.fd, b"%d" % n)

    def injected(self):
        """Whether the armed failure happened (the file reads 0), then
        disarms it."""
        left = int(os.pread(self.fd, 32, 0).strip() or b"0")  # (no lseek here)
        os.write(self.fd, b"0")
        return left == 0

    def close(self):
        os.close(self.fd)


def sweep(fail, what, prepare, attempt, check, limit=3000):
    """prepare(), then attempt() with fail-nth armed at 1, 2, ... until an
    attempt reaches no injection point; check(errno, injected) after each,
    disarmed.  Only attempt() runs armed: it must be one system call on an
    open file.  Returns the number of failures injected."""
    for n in range(1, limit):
        prepare()
        fail.arm(n)
        err = attempt()
        injected = fail.injected()
        check(err, injected)
        if not injected:
            assert err == 0, "%s failed (errno %d) with no fault injected" % (what, err)
            return n - 1
    pytest.fail("%s still reached an injection point after %d" % (what, limit))


def write_fd(fd, value):
    """One write(2) of @value at offset 0; 0 or the errno."""
    try:
        os.pwrite(fd, value.encode(), 0)
        return 0
    except OSError as e:
        return e.errno


def verified_io(dev, seed):
    """A direct write and read-back of one 64 KiB block."""
    data = os.urandom(65536)
    off = (seed % 256) * 65536
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    try:
        buf = mmap.mmap(-1, 65536)
        buf.write(data)
        assert os.pwritev(fd, [buf], off) == 65536
        back = mmap.mmap(-1, 65536)
        assert os.preadv(fd, [back], off) == 65536
        assert back[:] == data
    finally:
        os.close(fd)


def test_allocation_failures_in_switch_and_tunables(null_blk):
    """failslab through fail-nth: every slab allocation reached by 'echo ac
    > scheduler' (from mq-deadline), by the switch from AC back to
    mq-deadline, and by writes of layout tunables, failed one at a time.
    A failed write returns an error; the queue runs on under the scheduler
    the core kept or fell back to ("none" after a failed switch is the
    core's documented fallback) and verified I/O works; a failed tunable
    write keeps the old value.  Then AC unloads."""
    require(os.path.join(DEBUGFS, "failslab"), "failslab")
    require("/proc/thread-self/fail-nth", "fail-nth")
    # probability 0: nothing fails but the armed n-th point of this thread;
    # sleeping allocations count too (the default skips them)
    fault_attr("failslab", probability=0, verbose=0, **{"ignore-gfp-wait": "N"})
    ac_util.load()
    dev = null_blk(submit_queues=2, hw_queue_depth=32)
    fail = FailNth()
    counts = {}
    seq = [0]
    fd = os.open(scheduler_path(dev), os.O_WRONLY)
    try:
        def check_switch(target):
            def check(err, injected):
                now = current_scheduler(dev)
                if err:
                    assert injected, "the switch failed (errno %d), nothing injected" % err
                    assert now in ("none", "mq-deadline", "ac"), now
                else:
                    assert now == target, (now, target)
                seq[0] += 1
                verified_io(dev, seq[0])
            return check

        counts["switch_to_ac"] = sweep(
            fail, "echo ac", lambda: set_scheduler(dev, "mq-deadline"),
            lambda: write_fd(fd, "ac"), check_switch("ac"))
        counts["switch_from_ac"] = sweep(
            fail, "echo mq-deadline", lambda: set_scheduler(dev, "ac"),
            lambda: write_fd(fd, "mq-deadline"), check_switch("mq-deadline"))
        set_scheduler(dev, "ac")
        for name, values in (("nr_channels", ("4", "16")), ("mapping", ("stripe", "range")),
                             ("dies_per_channel", ("2", "4"))):
            tfd = os.open(os.path.join(ac_util.iosched_dir(dev), name), os.O_WRONLY)
            st = {"i": 0}

            def value(name=name):
                text = ac_util.tunable(dev, name)
                return ac_util.active_mapping(text) if name == "mapping" else text

            def prepare(st=st, values=values, value=value):
                st["old"] = value()
                st["new"] = values[st["i"] % 2]
                st["i"] += 1

            def check(err, injected, st=st, value=value, name=name):
                assert value() == (st["old"] if err else st["new"]), (name, err, st)
                seq[0] += 1
                verified_io(dev, seq[0])

            try:
                counts[name] = sweep(fail, "writing " + name, prepare,
                                     lambda tfd=tfd, st=st: write_fd(tfd, st["new"]), check)
            finally:
                os.close(tfd)
    finally:
        os.close(fd)
        fail.close()
    print("failures injected: %s" % counts)
    assert counts["switch_to_ac"] > 0, "no allocation failed inside 'echo ac'"
    verified(dev, "randrw")
    finish(dev)
    record_counts("fault_failslab", **counts)
