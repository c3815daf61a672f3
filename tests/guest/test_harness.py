# SPDX-License-Identifier: GPL-2.0
"""The harness proves itself: the kernel log guard sees a WARN, the stock
schedulers carry real, verified I/O on null_blk in this guest, and on the
debug kernel its checkers are armed."""

import json
import random
import re
import subprocess

import pytest

import ac_util
from conftest import (DEBUG_KERNEL, STOCK_SCHEDULERS, KernelLogTail, fio, fio_total_ios, insmod,
                      klog_guard, kmsg, module_path, primary_kernel_only, rmmod, set_scheduler, sh)


def test_guard_catches_warn():
    """Load a module that WARNs and check that the guard reports exactly
    that.  The markers tell the run-wide guard to accept this one report."""
    tail = KernelLogTail()      # what the per-test guard reads
    try:
        kmsg(klog_guard.SELFTEST_BEGIN)
        try:
            insmod("tests/kmod/ac-test-warn.ko")
        finally:
            kmsg(klog_guard.SELFTEST_END)
        rmmod("ac_test_warn")
        lines = tail.read()
    finally:
        tail.close()
    assert not tail.lost
    region = "\n".join(l for l in lines if klog_guard.SELFTEST_BEGIN not in l
                       and klog_guard.SELFTEST_END not in l)
    reports = klog_guard.scan(region)
    assert any(klog_guard.is_selftest_warning(r) for r in reports), reports
    assert any(r.startswith("Call Trace") for r in reports), reports
    # ... and the bracketed region as a whole is accepted, nothing else is.
    assert klog_guard.scan("\n".join(lines)) == []


def test_guard_rejects_other_reports_in_selftest_region():
    text = "\n".join([klog_guard.SELFTEST_BEGIN,
                      "WARNING: CPU: 0 PID: 1 at block/blk-mq.c:1 foo",
                      "Call Trace:", klog_guard.SELFTEST_END])
    assert klog_guard.scan(text)


@primary_kernel_only
@pytest.mark.parametrize("sched", STOCK_SCHEDULERS)
def test_stock_scheduler_verify(null_blk, sched):
    """Each stock scheduler carries a verified random read/write load."""
    dev = null_blk()
    set_scheduler(dev, sched)
    data = fio("--filename=%s --direct=1 --ioengine=libaio --iodepth=16 --rw=randrw"
               " --bs=4k --size=32m --verify=crc32c --verify_fatal=1 --do_verify=1"
               " --verify_backlog=256" % dev)
    assert fio_total_ios(data) >= 32 * 256


@primary_kernel_only
def test_stock_scheduler_switching_under_load(null_blk):
    """Switch among the stock schedulers while fio writes and verifies:
    nothing is lost or corrupted, and fio sees no error."""
    dev = null_blk()
    job = subprocess.Popen(
        "fio --name=sw --filename=%s --direct=1 --ioengine=libaio --iodepth=32"
        " --rw=randwrite --bs=4k --size=48m --verify=crc32c --verify_fatal=1"
        " --do_verify=1 --output-format=json" % dev, shell=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rng = random.Random(1)
    switches = 0
    while job.poll() is None:
        set_scheduler(dev, rng.choice(STOCK_SCHEDULERS))
        switches += 1
    out, err = job.communicate()
    assert job.returncode == 0, err[-2000:]
    data = json.loads(out[out.find("{"):])
    assert data["jobs"][0]["error"] == 0
    assert data["jobs"][0]["write"]["total_ios"] == 48 * 256
    assert switches >= 5, "fio ended before the scheduler could be switched"


def test_debug_kernel_checks_armed():
    """On the debug kernel (make check-debug), the checkers are on and see
    AC: KASAN initialised, lockdep validating and tracking AC's own lock
    after I/O went through AC, AC's module built with KASAN's checks.
    Without this a debug run could pass by checking nothing."""
    if not DEBUG_KERNEL:
        pytest.skip("only on the debug kernel (make check-debug)")
    assert "KernelAddressSanitizer initialized" in sh("dmesg").stdout
    # 4-level paging (scripts/ac-vm, SERIES): on 5-level a boot-time
    # interrupt could make KASAN report and lockdep switch itself off
    assert "no5lvl" in open("/proc/cmdline").read().split()
    ac_util.load()
    sh("modprobe null_blk nr_devices=1")
    try:
        set_scheduler("/dev/nullb0", "ac")
        sh("dd if=/dev/nullb0 of=/dev/null bs=4k count=256 iflag=direct")
        # (lockdep forgets a module's lock classes when it is unloaded)
        classes = open("/proc/lockdep").read()
        set_scheduler("/dev/nullb0", "none")
    finally:
        rmmod("null_blk")
        ac_util.unload(check=False)
    stats = open("/proc/lockdep_stats").read()
    assert re.search(r"debug_locks:\s*1\b", stats), stats
    assert "&ad->lock" in classes, "lockdep never saw AC's lock"
    with open(module_path(ac_util.KO), "rb") as f:
        assert b"__asan_" in f.read(), "ac-iosched.ko carries no KASAN checks"


def test_tsc_trusted_and_sched_clock_stable():
    """The guest runs on the TSC it booted with (scripts/ac-vm passes
    tsc=reliable): without it a busy host made the clocksource watchdog mark
    the TSC unstable mid-run, and the sched_clock key switched under load
    killed a guest on the transient int3 of its text patch."""
    assert "tsc=reliable" in open("/proc/cmdline").read().split()
    cs = "/sys/devices/system/clocksource/clocksource0/current_clocksource"
    assert open(cs).read().strip() == "tsc"
    log = sh("dmesg").stdout
    assert "Marking TSC unstable" not in log, log[-2000:]
    assert "sched_clock: Marking unstable" not in log, log[-2000:]
