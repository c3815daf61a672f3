# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of the harness itself: the tool's interface, the kernel
log guard on known reports, and a hung guest being killed and reported."""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AC_VM = os.path.join(REPO, "scripts", "ac-vm")
sys.path.insert(0, os.path.join(REPO, "scripts"))
import klog_guard  # noqa: E402


def ac_vm(*args, timeout=900):
    return subprocess.run([AC_VM] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)


@pytest.mark.parametrize("cmd", ["fetch", "build", "run", "shell", "test", "bench", "deps"])
def test_help(cmd):
    res = ac_vm(cmd, "--help")
    assert res.returncode == 0
    assert "usage: ac-vm " + cmd in res.stdout


def test_unknown_series_is_a_clear_error():
    res = ac_vm("build", "5.10")
    assert res.returncode == 2
    assert "unknown kernel series '5.10'" in res.stdout


SAMPLES = {
    "WARNING": "[   12.3] WARNING: CPU: 1 PID: 77 at block/blk-mq.c:123 blk_mq_foo+0x1/0x2",
    "WARNING (7.x format)": "[  431.1] WARNING: tests/kmod/ac-test-warn.c:14 at ac_test_warn_init+0x10/0xff0 [ac_test_warn], CPU#1: insmod/1501",
    "BUG": "[    1.0] BUG: kernel NULL pointer dereference, address: 0000000000000008",
    "Oops": "[    1.0] Oops: 0000 [#1] PREEMPT SMP NOPTI",
    "general protection fault": "[ 1.0] general protection fault, probably for non-canonical address",
    "KFENCE": "[ 1.0] BUG: KFENCE: use-after-free read in ac_dispatch+0x10/0x20",
    "hung task": "[ 60.0] INFO: task fio:123 blocked for more than 20 seconds.",
    "soft lockup": "[ 30.0] watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [fio:99]",
    "RCU stall": "[ 30.0] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
    "Call Trace": "[ 1.0]  Call Trace:",
    "UBSAN": "[ 1.0] UBSAN: shift-out-of-bounds in src/ac-policy.c:10:5",
}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_guard_catches(kind):
    reports = klog_guard.scan("[ 0.1] booting\n%s\n[ 0.2] fine\n" % SAMPLES[kind])
    assert reports, kind


def test_guard_quiet_on_clean_log():
    clean = "\n".join(["[ 0.0] Linux version 6.12.95", "[ 1.0] null_blk: disk nullb0 created",
                       "[ 2.0] ac_iosched: module verification failed: signature and/or required key missing - tainting kernel",
                       "[ 3.0] EXT4-fs (nullb0): mounted filesystem"])
    assert klog_guard.scan(clean) == []


def test_hung_guest_is_killed_and_reported(tmp_path):
    """A guest that never finishes is killed at the time limit, reported as
    a failure, and its console log is kept."""
    res = ac_vm("--out", str(tmp_path), "run", "6.12", "--no-build", "--timeout", "45",
                "--", "sleep 100000")
    assert res.returncode == 1, res.stdout[-3000:]
    assert "did not finish in 45 s" in res.stdout
    assert "guest killed after the time limit" in res.stdout
    consoles = [os.path.join(d, "console.log") for d, _, f in os.walk(tmp_path) if "console.log" in f]
    assert consoles and os.path.getsize(consoles[0]) > 0
    assert "Linux version" in open(consoles[0], errors="replace").read()
