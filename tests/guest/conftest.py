# SPDX-License-Identifier: GPL-2.0
"""Shared fixtures of the guest suite (runs as root inside a QEMU guest
started by scripts/ac-vm; see CONTRIBUTING.md for the environment).

Every test is also checked against the kernel log: a WARN, BUG, Oops, KFENCE
report, hung task, ... that appears while a test runs fails that test (the
host checks the whole log again after the run)."""

import glob
import json
import os
import subprocess
import sys
import time

import pytest

REPO = os.environ.get("AC_REPO", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
import klog_guard  # noqa: E402

KVER = os.environ.get("AC_KVER", "")
# the lockdep/KASAN kernel (make check-debug): several times slower
DEBUG_KERNEL = KVER.endswith("-debug")
MODDIR = os.environ.get("AC_MODDIR", "")
OUT = os.environ.get("AC_OUT", "/tmp")
STOCK_SCHEDULERS = ["none", "mq-deadline", "kyber", "bfq"]

# Tests whose subject is the same code on every kernel run on 6.12 (and its
# debug kernel) only in make check, for CI time: the emulated SSD's timing
# model, the harness's stock-scheduler controls, and the policy's measured
# behaviour (dispatch order, latency bounds, which dies reads go to), whose
# kernel paths (insert, dispatch, merge, requeue, completion, caps) the
# other tests run on every kernel.  Where a test repeats one kernel path
# with different inputs (patterns, tunables), the other kernels run a few
# of its cases (primary_only marks the rest).  AC_EVERY_KERNEL=1 runs
# everything everywhere.
PRIMARY_SERIES = "6.12"


# Each failure as it happens, for the host: pytest prints its report only at
# the end, so a run killed at its time limit lost the messages of the
# failures before (scripts/ac-vm reads this file when there is no JUnit).
FAILURES_FILE = "failures.txt"


def pytest_runtest_logreport(report):
    if not report.failed:
        return
    lines = report.longreprtext.strip().splitlines() or ["?"]
    said = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
    with open(os.path.join(OUT, FAILURES_FILE), "a") as f:
        f.write("%s (%s): %s\n%s\n\n" % (report.nodeid, report.when,
                                          (said or lines[-1:])[0][:300],
                                          report.longreprtext))


def on_primary_kernel():
    return (KVER.replace("-debug", "") == PRIMARY_SERIES
            or os.environ.get("AC_EVERY_KERNEL") == "1")


primary_kernel_only = pytest.mark.skipif(
    not on_primary_kernel(),
    reason="the same code on every kernel: runs on %s (AC_EVERY_KERNEL=1: here too)"
    % PRIMARY_SERIES)


def primary_only(*values):
    """One parametrize case that runs on the primary kernel only (the
    others of its test run on every kernel)."""
    return pytest.param(*values, marks=primary_kernel_only)


def sh(cmd, check=True, timeout=600, **kw):
    """Run a shell command; return CompletedProcess with text output."""
    res = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=timeout, **kw)
    if check and res.returncode != 0:
        raise AssertionError("command failed (%d): %s\n%s" % (res.returncode, cmd, res.stdout[-3000:]))
    return res


def kmsg(text):
    with open("/dev/kmsg", "w") as f:
        f.write(text + "\n")


def read(path):
    with open(path) as f:
        return f.read().strip()


def write(path, value):
    """Write @value to a sysfs file; return 0 or the errno it failed with."""
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        return e.errno
    try:
        os.write(fd, value.encode() if isinstance(value, str) else value)
        return 0
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)


def module_path(rel):
    """Path of one of our built modules (e.g. 'ac-iosched.ko', 'sim/ssdsim.ko')."""
    p = os.path.join(MODDIR, rel)
    if not os.path.exists(p):
        pytest.fail("module %s was not built (AC_MODDIR=%s)" % (rel, MODDIR))
    return p


def module_loaded(name):
    return os.path.exists("/sys/module/" + name.replace("-", "_"))


def insmod(rel, *params, check=True):
    return sh("insmod %s %s" % (module_path(rel), " ".join(params)), check=check)


def rmmod(name, check=True):
    if not module_loaded(name):
        return None
    return sh("rmmod %s" % name, check=check)


def disk_name(dev):
    return os.path.basename(dev)


def scheduler_path(dev):
    return "/sys/block/%s/queue/scheduler" % disk_name(dev)


def current_scheduler(dev):
    text = read(scheduler_path(dev))
    for word in text.split():
        if word.startswith("["):
            return word.strip("[]")
    return None


def set_scheduler(dev, name):
    err = write(scheduler_path(dev), name)
    assert err == 0, "setting scheduler %s on %s failed: errno %d" % (name, dev, err)
    assert current_scheduler(dev) == name


def fio(*args, name="job", timeout=900):
    """Run fio with JSON output; return the parsed result.  A verify error
    or an I/O error fails the test (fio exits non-zero)."""
    cmd = "fio --output-format=json --name=%s %s" % (name, " ".join(args))
    res = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, timeout=timeout)
    if res.returncode != 0:
        raise AssertionError("fio failed (%d): %s\n%s\n%s" % (res.returncode, cmd,
                                                             res.stdout[-2000:], res.stderr[-2000:]))
    text = res.stdout
    start = text.find("{")
    data = json.loads(text[start:])
    for job in data["jobs"]:
        assert job["error"] == 0, "fio job %s error %d" % (job["jobname"], job["error"])
    return data


def fio_total_ios(data):
    return sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in data["jobs"])


def load_scsi_debug(params, timeout=30.0):
    """(Re)load scsi_debug with @params; its disk.  No udev in the guest:
    the disk driver is loaded here, the disk found through sysfs once its
    device node exists."""
    if module_loaded("scsi_debug"):
        sh("rmmod scsi_debug")
    sh("modprobe sd_mod")
    sh("modprobe scsi_debug " + params)
    pattern = "/sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*"
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = glob.glob(pattern)
        if found and os.path.exists("/dev/" + os.path.basename(found[0])):
            return "/dev/" + os.path.basename(found[0])
        time.sleep(0.2)
    pytest.fail("no scsi_debug disk appeared")


@pytest.fixture
def null_blk():
    """A factory of null_blk devices made with module parameters; the module
    is removed afterwards.  Returns the device path."""
    made = []

    def make(**params):
        assert not module_loaded("null_blk"), "null_blk already loaded"
        opts = {"nr_devices": 1, "gb": 1, "bs": 4096, "memory_backed": 1,
                "hw_queue_depth": 64, "submit_queues": 1}
        opts.update(params)
        sh("modprobe null_blk " + " ".join("%s=%s" % kv for kv in opts.items()))
        made.append(True)
        dev = "/dev/nullb0"
        for _ in range(50):
            if os.path.exists(dev):
                break
            time.sleep(0.1)
        assert os.path.exists(dev)
        return dev

    yield make
    if made:
        for _ in range(20):
            if rmmod("null_blk", check=False) is None or not module_loaded("null_blk"):
                break
            time.sleep(0.5)


CONFIGFS = "/sys/kernel/config/nullb"


def nullb_dev(item, wait=True):
    """The disk of a configfs null_blk: named after the item on newer
    kernels, nullb<index> on older ones."""
    names = [os.path.basename(item), "nullb" + read(os.path.join(item, "index"))]
    for _ in range(50 if wait else 1):
        for n in names:
            if os.path.exists("/sys/block/%s/queue/scheduler" % n) and os.path.exists("/dev/" + n):
                return "/dev/" + n
        time.sleep(0.1)
    assert not wait, "no disk for %s (tried %s)" % (item, names)
    return None


@pytest.fixture
def configfs_nullb():
    """A null_blk device made through configfs (any size in MiB)."""
    assert not module_loaded("null_blk"), "null_blk already loaded"
    sh("modprobe null_blk nr_devices=0")       # loads configfs too
    sh("mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config")
    assert os.path.isdir(CONFIGFS), "null_blk has no configfs interface"
    made = []

    def make(name, **attrs):
        d = os.path.join(CONFIGFS, name)
        os.mkdir(d)
        made.append(d)
        for k, v in attrs.items():
            assert write(os.path.join(d, k), str(v)) == 0, (k, v)
        assert write(os.path.join(d, "power"), "1") == 0
        return nullb_dev(d)

    yield make
    for d in made:
        dev = nullb_dev(d, wait=False)
        if dev:
            write("/sys/block/%s/queue/scheduler" % os.path.basename(dev), "none")
        write(os.path.join(d, "power"), "0")
        os.rmdir(d)
    for _ in range(20):
        if sh("rmmod null_blk", check=False).returncode == 0:
            break
        time.sleep(0.5)


def _dmesg():
    return sh("dmesg", check=False).stdout


class KernelLogTail:
    """The kernel log's records from now on, read from /dev/kmsg: no dmesg
    process and no copy of the whole log per test (under TCG, with 6000
    records logged, 1.1-1.4 s per test against 0.01-0.02 s)."""

    def __init__(self):
        self.fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)
        self.lost = False

    def read(self):
        """The text of every record since the last call, a line each;
        self.lost if the ring buffer overwrote some before they were read."""
        lines = []
        while True:
            try:
                rec = os.read(self.fd, 16384)
            except BlockingIOError:
                break
            except BrokenPipeError:
                self.lost = True        # the reader was moved past them
                continue
            if not rec:
                break
            # "prio,seq,time,flags;text", then " KEY=value" lines
            lines.append(rec.decode(errors="replace").partition(";")[2].split("\n", 1)[0])
        return lines

    def close(self):
        os.close(self.fd)


@pytest.fixture(autouse=True)
def kernel_log_guard(request):
    """Fail the test during which the kernel reported a problem."""
    tail = KernelLogTail()
    begin = "ac-test: begin %s" % request.node.nodeid
    kmsg(begin)
    try:
        yield
        kmsg("ac-test: end %s" % request.node.nodeid)
        new = "\n".join(tail.read())
        if tail.lost:
            # records overwritten before they were read: the whole log
            # since this test's begin marker, as dmesg still has it
            text = _dmesg()
            new = text[text.rfind(begin):] if begin in text else text
    finally:
        tail.close()
    reports = klog_guard.scan(new)
    if reports:
        pytest.fail("kernel log reports during the test:\n" + "\n".join(reports[:20]), pytrace=False)
