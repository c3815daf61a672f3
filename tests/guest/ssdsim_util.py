# SPDX-License-Identifier: GPL-2.0
"""Helpers for the ssdsim guest tests: load the module with parameters, read
its debugfs statistics, and time direct I/O from several threads at once."""

import mmap
import os
import subprocess
import threading
import time

MODULE = "ssdsim"
DEBUGFS = "/sys/kernel/debug/ssdsim"


def sh(cmd, check=True, timeout=600):
    res = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=timeout)
    if check and res.returncode != 0:
        raise AssertionError("command failed (%d): %s\n%s" % (res.returncode, cmd, res.stdout[-3000:]))
    return res


def ko_path():
    """The built module: $SSDSIM_KO if set (ad-hoc runs), else $AC_MODDIR/sim/ssdsim.ko."""
    p = os.environ.get("SSDSIM_KO") or os.path.join(os.environ.get("AC_MODDIR", ""), "sim/ssdsim.ko")
    assert os.path.exists(p), "ssdsim.ko not found at %s (AC_MODDIR=%s)" % (p, os.environ.get("AC_MODDIR"))
    return p


def loaded():
    return os.path.exists("/sys/module/" + MODULE)


def insmod(check=True, **params):
    args = " ".join("%s=%s" % (k, _quote(v)) for k, v in params.items())
    return sh("insmod %s %s" % (ko_path(), args), check=check)


def _quote(v):
    v = str(v)
    return "'%s'" % v if any(c in v for c in " ;,") else v


def unload(timeout=30.0):
    """rmmod, retrying while something still holds a device; True if gone."""
    end = time.monotonic() + timeout
    while loaded():
        if sh("rmmod " + MODULE, check=False).returncode == 0:
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.2)
    return True


def load(**params):
    """(Re)load ssdsim with @params; return the first device's path."""
    assert unload(), "ssdsim still loaded"
    insmod(**params)
    dev = "/dev/ssdsim0"
    for _ in range(100):
        if os.path.exists(dev):
            return dev
        time.sleep(0.05)
    raise AssertionError("%s did not appear" % dev)


def disk(dev):
    return os.path.basename(dev)


def _pairs(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            out[k] = v
    return out


def params(dev):
    """The device's effective parameters (debugfs params), numbers as int."""
    return {k: int(v) if v.isdigit() else v for k, v in _pairs("%s/%s/params" % (DEBUGFS, disk(dev))).items()}


def stats(dev):
    """{'inflight': n, ..., 'channel': [{ops, busy_ns, wait_ns}...], 'die': {(c, d): {...}}}"""
    st = {"channel": {}, "die": {}}
    with open("%s/%s/stats" % (DEBUGFS, disk(dev))) as f:
        for line in f:
            w = line.split()
            if w[0] in ("channel", "die"):
                key = int(w[1]) if w[0] == "channel" else tuple(int(x) for x in w[1].split("."))
                st[w[0]][key] = {w[i]: int(w[i + 1]) for i in range(2, len(w), 2)}
            else:
                st[w[0]] = int(w[1])
    return st


def reset_stats(dev):
    with open("%s/%s/stats" % (DEBUGFS, disk(dev)), "w") as f:
        f.write("0\n")


def model_ms(dev):
    """(read_ms, write_ms) of one page at an idle device, from its parameters."""
    p = params(dev)
    return ((p["read_ns"] + p["xfer_ns"]) / 1e6, (p["xfer_ns"] + p["program_ns"]) / 1e6)


def timed_io(dev, ops, delays=None):
    """Run @ops [(kind 'r'|'w', offset, length)] from one thread each, all
    released together (op i after delays[i] seconds); return (wall seconds,
    [latency seconds per op]).  Direct I/O: each op is one command."""
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    delays = delays or [0.0] * len(ops)
    start = threading.Barrier(len(ops) + 1)
    lat = [None] * len(ops)
    errors = []

    def worker(i, kind, off, length):
        buf = mmap.mmap(-1, length)
        if kind == "w":
            buf.write(os.urandom(length))
        start.wait()
        if delays[i]:
            time.sleep(delays[i])
        t = time.monotonic()
        try:
            n = os.preadv(fd, [buf], off) if kind == "r" else os.pwritev(fd, [buf], off)
            assert n == length, "short I/O: %d of %d" % (n, length)
        except Exception as e:  # reported to the caller
            errors.append(e)
        lat[i] = time.monotonic() - t

    threads = [threading.Thread(target=worker, args=(i,) + tuple(op)) for i, op in enumerate(ops)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.monotonic()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    os.close(fd)
    assert not errors, errors
    return wall, lat


def best_wall(dev, ops, n=3):
    """timed_io() @n times; the run with the smallest wall time.  The model
    is a lower bound and TCG noise only adds, so the minimum is the cleanest
    measurement of it."""
    return min((timed_io(dev, ops) for _ in range(n)), key=lambda r: r[0])


def median_latency(dev, kind, offset, length, n=5):
    vals = sorted(timed_io(dev, [(kind, offset, length)])[1][0] for _ in range(n))
    return vals[len(vals) // 2]


def batch_reads(dev, n, bs, gap):
    """@n direct reads of @bs bytes at 0, bs + gap, 2 * (bs + gap), ...,
    handed to the kernel in one io_submit (fio, libaio): unless the queue
    depth is smaller, all @n are at the device before a slow one completes.
    The gaps keep neighbours from being merged into one command."""
    fio_jobs(dev, [dict(rw="read:%d" % gap, bs=bs, iodepth=n, iodepth_batch_submit=n,
                        number_ios=n, size=n * (bs + gap))],
             dict(ioengine="libaio", direct=1))


def completion_offsets(dev, job, common, logdir):
    """Run one fio @job with a per-I/O completion latency log; return the
    I/Os' offsets in the order they completed (fio logs each completion as it
    reaps it)."""
    prefix = os.path.join(logdir, "clat")
    fio_jobs(dev, [dict(job, write_lat_log=prefix, log_offset=1)], common)
    with open(prefix + "_clat.1.log") as f:
        return [int(line.split(",")[4]) for line in f if line.strip()]


def fio_jobs(dev_or_dir, jobs, common, timeout=600):
    """Run fio with the @jobs (each a dict of options, run one after the other)
    against a device (filename) or a directory; fail on any error."""
    target = "--directory=%s" % dev_or_dir if os.path.isdir(dev_or_dir) else "--filename=%s" % dev_or_dir
    args = ["fio", "--output-format=terse", target] + ["--%s=%s" % kv for kv in common.items()]
    for i, job in enumerate(jobs):
        args.append("--name=job%d" % i)
        if i:
            args.append("--stonewall")
        args += ["--%s=%s" % kv for kv in job.items()]
    res = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    assert res.returncode == 0, "fio failed (%d): %s\n%s" % (res.returncode, " ".join(args), res.stdout[-3000:])
    return res.stdout
