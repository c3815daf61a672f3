# SPDX-License-Identifier: GPL-2.0
"""Helpers for the AC scheduler's guest tests: load and unload the module,
its tunables (defaults and ranges, as ac-tunables.h declares them), its debugfs
state, module autoloading, and verified fio loads."""

import contextlib
import json
import os
import shutil
import subprocess
import sys

import pytest

from ac_test_util import wait_for
from conftest import (insmod, module_loaded, module_path, read, rmmod,
                      set_scheduler, sh, write)

MODULE = "ac_iosched"
KO = "ac-iosched.ko"

# name: (default, min, max), read from ac-tunables.h (tests/tunables.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from tunables import module_table  # noqa: E402

NUMERIC_TUNABLES = module_table()
# nr_channels x dies_per_channel is at most this (ac-policy.h)
MAX_UNITS = 256
MAPPINGS = ["range", "stripe"]
TUNABLES = sorted(list(NUMERIC_TUNABLES) + ["mapping"])

TYPES = ["read_sync", "read_async", "write_sync", "write_async"]


def disk(dev):
    return os.path.basename(dev)


def load():
    if not module_loaded(MODULE):
        insmod(KO)


def unload(check=True):
    return rmmod(MODULE, check=check)


def iosched_dir(dev):
    return "/sys/block/%s/queue/iosched" % disk(dev)


def tunable(dev, name):
    return read(os.path.join(iosched_dir(dev), name))


def set_tunable(dev, name, value):
    """Write @value (no newline added); return 0 or the errno."""
    return write(os.path.join(iosched_dir(dev), name), str(value))


def active_mapping(text):
    """'[range] stripe' -> 'range'."""
    words = [w.strip("[]") for w in text.split() if w.startswith("[")]
    assert len(words) == 1, "no single active word in %r" % text
    return words[0]


# debugfs (debugfs.c): tables, "name value" files and request lists.
DEBUGFS_TABLES = (["units", "state", "stats"]
                  + ["%s_fifo" % t for t in TYPES] + ["dispatch"])
# The lines of debugfs "state", in order.
STATE_KEYS = (["async_depth", "async_depth_limits", "units", "capacity",
               "dev_slots", "at_device", "dir", "phase_left", "starved",
               "proc", "batch_writes", "last_read", "last_write", "sorted"]
              + ["queued_%s" % t for t in TYPES]
              + ["cap_waiting", "writes_waiting", "reads_out", "writes_out",
                 "write_limit", "write_base_us", "read_ceiling"])
# The counters of the stats table (debugfs.c), in order.
STATS_COUNTERS = (["dispatched_%s" % t for t in TYPES]
                  + ["expired_%s" % t for t in TYPES]
                  + ["read_rounds", "write_batches", "starved_switches",
                     "proc_fallbacks", "writes_held", "reads_idle",
                     "reads_busy", "cap_holds", "cap_spare",
                     "cap_skips",
                     "cap_expired", "sync_read_expired", "write_expired",
                     "expired_waits", "inserted",
                     "head_inserts", "head_dispatched", "merged",
                     "merges_refused", "retyped", "regroups",
                     "resizes", "completed", "requeued"])


def debugfs_dir(dev):
    return "/sys/kernel/debug/block/%s/sched" % disk(dev)


def _int_or_str(val):
    try:
        return int(val)
    except ValueError:
        return val


def debugfs_pairs(dev, name):
    """A debugfs file of 'key value' lines as a dict (ints where possible)."""
    out = {}
    for line in read(os.path.join(debugfs_dir(dev), name)).splitlines():
        key, _, val = line.partition(" ")
        out[key] = _int_or_str(val)
    return out


def stats(dev):
    return debugfs_pairs(dev, "stats")


def state(dev):
    """debugfs "state": {name: value}, one snapshot."""
    return debugfs_pairs(dev, "state")


def assert_idle_and_balanced(dev):
    """With no I/O in flight: nothing queued anywhere, and every request
    the scheduler was given has been freed exactly once.  A request's end
    reaches the task waiting for it before the block layer frees the
    request (finish_request uncounts it there): the last frees get two
    seconds."""
    wait_for(lambda: stats(dev)["inserted"] == stats(dev)["completed"]
             and state(dev)["at_device"] == 0, timeout=2.0, step=0.02)
    st = state(dev)
    assert st["sorted"] == 0, st
    for t in TYPES:
        assert st["queued_" + t] == 0, st
    s = stats(dev)
    assert s["inserted"] == s["completed"], s
    assert st["at_device"] == 0, st
    for u, d in enumerate(units(dev)):
        assert [d[t] for t in TYPES] == [0, 0, 0, 0], (u, d)
        assert d["rflag"] == "ZERO" and d["wflag"] == "ZERO", (u, d)
        assert d["at_device"] == 0, "unit %d still counts %d reads" % (u, d["at_device"])


def units(dev):
    """debugfs units: one dict per unit, in unit order."""
    out = []
    for line in read(os.path.join(debugfs_dir(dev), "units")).splitlines():
        f = line.split()
        assert len(f) == 16 and f[0:7:2] == ["unit", "channel", "die", "read"], line
        assert f[10] == "write" and f[14] == "at_device", line
        assert f[9] in ("ZERO", "PEND", "END") and f[13] in ("ZERO", "PEND", "PROC"), line
        assert int(f[1]) == len(out), line
        out.append({"channel": int(f[3]), "die": int(f[5]),
                    "read_sync": int(f[7]), "read_async": int(f[8]), "rflag": f[9],
                    "write_sync": int(f[11]), "write_async": int(f[12]), "wflag": f[13],
                    "at_device": int(f[15])})
    return out


def channels(dev, us=None):
    """What is queued per unit: {unit: {type: queued, "rflag": f, "wflag": f}},
    from @us (a units() reading) or a new reading."""
    keep = list(TYPES) + ["rflag", "wflag"]
    return {u: {k: d[k] for k in keep} for u, d in enumerate(units(dev) if us is None else us)}


def occupancy(dev, us=None):
    """Our reads at the device per unit: {unit: ((channel, die), reads)},
    from @us (a units() reading) or a new reading."""
    return {u: ((d["channel"], d["die"]), d["at_device"])
            for u, d in enumerate(units(dev) if us is None else us)}


def ac_device(make_null_blk, **params):
    """A null_blk device with AC selected (module loaded if needed)."""
    load()
    dev = make_null_blk(**params)
    set_scheduler(dev, "ac")
    return dev


@contextlib.contextmanager
def module_autoload(ko_rel=KO):
    """Let the kernel's request_module("ac-iosched") find our module.

    The guest's /lib/modules is read-only, so a private module root with
    only our module (and its depmod data) is made in /tmp, and the kernel's
    modprobe helper becomes a wrapper that tries that root first."""
    krel = os.uname().release
    root = "/tmp/ac-modroot"
    moddir = os.path.join(root, "lib/modules", krel, "extra")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(moddir)
    shutil.copy(module_path(ko_rel), moddir)
    sh("depmod -b %s %s" % (root, krel))
    modprobe = sh("command -v modprobe").stdout.strip()
    wrapper = "/tmp/ac-modprobe"
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\n%s -d %s \"$@\" 2>/dev/null || exec %s \"$@\"\n"
                % (modprobe, root, modprobe))
    os.chmod(wrapper, 0o755)
    old = read("/proc/sys/kernel/modprobe")
    assert write("/proc/sys/kernel/modprobe", wrapper) == 0
    try:
        yield root
    finally:
        write("/proc/sys/kernel/modprobe", old)
        shutil.rmtree(root, ignore_errors=True)


FIO_VERIFY = ("--verify=crc32c --verify_fatal=1 --do_verify=1"
              " --verify_backlog=128 --verify_state_save=0")


def fio_cmd(dev, rw, runtime=3, size="64m", bs="4k", iodepth=16, direct=1,
            extra="", name="ac", ios=0):
    """A verified fio job line (for fio() or a background run): time-based,
    or with @ios a fixed number of I/Os, however long they take (a test
    that asserts how much I/O was done must not depend on the kernel's
    speed: the debug kernel does a third of the stock one's in a time)."""
    if ios:
        amount = "--number_ios=%d" % ios
    else:
        amount = "--time_based --runtime=%d" % runtime
    return ("--name=%s --filename=%s --direct=%d --ioengine=libaio"
            " --iodepth=%d --rw=%s --bs=%s --size=%s %s %s %s"
            % (name, dev, direct, iodepth, rw, bs, size, amount, FIO_VERIFY, extra))


def fio_background(dev, rw, runtime, **kw):
    """Start a verified fio job; returns the Popen (stdout: JSON)."""
    cmd = "fio --output-format=json " + fio_cmd(dev, rw, runtime=runtime, **kw)
    return subprocess.Popen(cmd, shell=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def fio_wait(proc, timeout=300):
    out, err = proc.communicate(timeout=timeout)
    if proc.returncode != 0:
        pytest.fail("fio failed (%d):\n%s\n%s" % (proc.returncode, out[-2000:],
                                                  err[-2000:]))
    return out


def fio_wait_all(jobs, timeout=180):
    """Wait for background fio jobs (fio_background()); all must succeed
    without an error.  Their I/O count."""
    total = 0
    for j in jobs:
        for job in json.loads(fio_wait(j, timeout=timeout))["jobs"]:
            assert job["error"] == 0
            total += job["read"]["total_ios"] + job["write"]["total_ios"]
    return total
