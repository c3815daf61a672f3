# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of the harness itself: the tool's interface, the kernel
log guard on known reports, a hung guest being killed and reported, and the
guest dying with the tool however the tool ends."""

import os
import shlex
import signal
import subprocess
import sys
import time

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
    # bench hands every option to bench/compare, --help included
    want = "usage: bench/compare" if cmd == "bench" else "usage: ac-vm " + cmd
    assert want in res.stdout


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
    # what the debug kernel (make check-debug) reports
    "KASAN": "[ 9.9] BUG: KASAN: slab-use-after-free in ac_dispatch_request+0x3c/0x90 [ac_iosched]",
    "lockdep circular": "[ 9.9] WARNING: possible circular locking dependency detected",
    "lockdep irq inversion": "[ 9.9] WARNING: possible irq lock inversion dependency detected",
    "lockdep non-static key": "[ 9.9] INFO: trying to register non-static key.",
    "lockdep off": "[ 9.9] turning off the locking correctness validator.",
    "DEBUG_LOCKS_WARN_ON": "[ 9.9] DEBUG_LOCKS_WARN_ON(1)",
    "sleeping in atomic": "[ 9.9] BUG: sleeping function called from invalid context at block/blk-mq.c:100",
    "DEBUG_OBJECTS": "[ 9.9] ODEBUG: free active (active state 0) object: 00000000b6a4d3c2 object type: timer_list",
    "list corruption": "[ 9.9] list_add corruption. prev->next should be next (ffff8881), but was ffff8882.",
}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_guard_catches(kind):
    reports = klog_guard.scan("[ 0.1] booting\n%s\n[ 0.2] fine\n" % SAMPLES[kind])
    assert reports, kind


# WARNINGs of ac-test-warn (the guest's guard self-test) in the 6.x format, as
# 6.12 printed it, and the 7.x one; and reports that name the module's source
# file but are not its WARNING.
SELFTEST_WARNINGS = [
    "[   13.170303] WARNING: CPU: 0 PID: 172 at /root/.cache/ac-iosched/build/6.12/tests/kmod/ac-test-warn.c:14"
    " ac_test_warn_init+0x15/0xff0 [ac_test_warn]",
    SAMPLES["WARNING (7.x format)"],
]
NOT_SELFTEST_WARNINGS = [
    SAMPLES["WARNING"],
    "[    5.1] UBSAN: shift-out-of-bounds in tests/kmod/ac-test-warn.c:14:5",
    "[    5.1] BUG: unable to handle page fault for address: ffffc90000000000 (ac-test-warn)",
]


@pytest.mark.parametrize("line", SELFTEST_WARNINGS)
def test_selftest_warning_recognised(line):
    reports = klog_guard.scan(line)
    assert len(reports) == 1 and klog_guard.is_selftest_warning(reports[0]), reports


@pytest.mark.parametrize("line", NOT_SELFTEST_WARNINGS)
def test_other_report_is_not_the_selftest_warning(line):
    """Naming the module's source file does not make a report its WARNING."""
    reports = klog_guard.scan(line)
    assert len(reports) == 1 and not klog_guard.is_selftest_warning(reports[0]), reports


def _selftest_region(*lines):
    return "\n".join(["[ 1.0] %s" % klog_guard.SELFTEST_BEGIN] + list(lines) +
                     ["[ 2.0] %s" % klog_guard.SELFTEST_END])


def test_selftest_region_accepts_only_its_own_warning():
    """The self-test region passes with ac-test-warn's WARNING and its
    trace; another module's WARNING there is reported even when the region
    names ac_test_warn elsewhere (its load line)."""
    ok = _selftest_region(
        "[ 1.1] ac_test_warn: loading out-of-tree module taints kernel.",
        "[ 1.2] WARNING: CPU: 0 PID: 172 at tests/kmod/ac-test-warn.c:14 "
        "ac_test_warn_init+0x15/0xff0 [ac_test_warn]",
        "[ 1.3] Call Trace:")
    assert klog_guard.scan(ok) == []
    other = _selftest_region(
        "[ 1.1] ac_test_warn: loading out-of-tree module taints kernel.",
        "[ 1.2] WARNING: CPU: 0 PID: 172 at block/blk-mq.c:100 blk_mq_foo+0x15/0x50",
        "[ 1.3] Call Trace:")
    assert any(r.startswith("WARNING") for r in klog_guard.scan(other))


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


# Stands in for qemu-system-x86_64 (AC_VM_QEMU): answers vng's version probe,
# otherwise records its pid and sleeps, booting nothing.  The pid is the
# host's, from /proc/self/stat ($$ would be the one in the guest's PID
# namespace, if it has one).
STUB_SLEEP = "4242"
QEMU_STUB = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "QEMU emulator version 7.2.0"; exit 0; fi
read -r pid _ < /proc/self/stat
echo $pid > %(pid)s.tmp && mv %(pid)s.tmp %(pid)s
exec sleep """ + STUB_SLEEP + "\n"


def stub_start(pid):
    """Start time of process @pid if it is the stub's sleep, else None (a
    zombie is gone)."""
    try:
        with open("/proc/%d/cmdline" % pid) as f:
            cmdline = f.read().split("\0")
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except (FileNotFoundError, ProcessLookupError):
        # gone before the open, or between the open and the read (ESRCH:
        # CI hit it at the fixture's teardown once)
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    if fields[0] in "ZX" or cmdline[:2] != ["sleep", STUB_SLEEP]:
        return None
    return fields[19]


@pytest.fixture
def stub_guest(tmp_path):
    """Start 'ac-vm run' with the QEMU stub; return (ac-vm's Popen, a
    function telling whether the stub still runs) once the stub runs.
    Whatever survives the test is killed afterwards."""
    stub, pidfile = tmp_path / "qemu-stub", tmp_path / "qemu.pid"
    stub.write_text(QEMU_STUB % {"pid": shlex.quote(str(pidfile))})
    stub.chmod(0o755)
    log = open(tmp_path / "ac-vm.log", "w+")

    def default_signals():  # as from a terminal, even if pytest runs with some ignored
        for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
            signal.signal(s, signal.SIG_DFL)

    proc = subprocess.Popen([AC_VM, "--out", str(tmp_path / "out"), "run", "6.12", "--no-build",
                             "--timeout", "900", "--", "true"],
                            env=dict(os.environ, AC_VM_QEMU=str(stub)), stdout=log,
                            stderr=subprocess.STDOUT, preexec_fn=default_signals)
    pid = start = None
    try:
        deadline = time.time() + 1800  # ac-vm waits its turn if another guest runs
        while not pidfile.exists():
            log.seek(0)
            assert proc.poll() is None, "ac-vm ended before the stub ran:\n" + log.read()[-3000:]
            assert time.time() < deadline, "the stub never ran:\n" + log.read()[-3000:]
            time.sleep(0.2)
        pid = int(pidfile.read_text())
        while not stub_start(pid):  # between its pid file and exec
            assert time.time() < deadline, "pid %d is not the stub's sleep" % pid
            time.sleep(0.1)
        start = stub_start(pid)
        yield proc, lambda: stub_start(pid) == start
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if start and stub_start(pid) == start:
            os.kill(pid, signal.SIGKILL)
        log.close()


def gone_within(alive, seconds):
    deadline = time.time() + seconds
    while alive() and time.time() < deadline:
        time.sleep(0.1)
    return not alive()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP],
                         ids=lambda s: s.name)
def test_guest_dies_with_ac_vm_on_signal(stub_guest, tmp_path, sig):
    """A signal that ends ac-vm (make check stopped, ^C, a closed terminal)
    takes the guest's QEMU down with it; the console log is kept."""
    proc, alive = stub_guest
    assert alive()
    proc.send_signal(sig)
    rc = proc.wait(timeout=30)
    assert gone_within(alive, 5), "QEMU outlived ac-vm (%s)" % sig.name
    assert rc == 128 + sig
    assert [d for d, _, f in os.walk(tmp_path / "out") if "console.log" in f]


def test_guest_dies_with_ac_vm_on_sigkill(stub_guest):
    """Even a SIGKILLed ac-vm, which cleans nothing up, takes QEMU down."""
    proc, alive = stub_guest
    assert alive()
    proc.kill()
    proc.wait(timeout=30)
    assert gone_within(alive, 5), "QEMU outlived a SIGKILLed ac-vm"


def test_long_guest_command_runs(tmp_path):
    """A guest command too long for the kernel command line (vng passes it
    there, 2048 bytes in all) still runs: it overflowed that line and the
    guest died at boot before ac-vm sent such commands through a script."""
    long_cmd = "echo long-command-ran; : " + "x" * 1800
    res = ac_vm("--out", str(tmp_path), "run", "6.12", "--no-build", "--timeout", "300",
                "--", long_cmd)
    assert res.returncode == 0, res.stdout[-3000:]
    assert "long-command-ran" in res.stdout, res.stdout[-3000:]


@pytest.mark.parametrize("sep", [[], ["--"]])
def test_bench_passes_options_through(sep):
    """'ac-vm bench --dry-run' reaches bench/compare (argparse's REMAINDER
    refused a leading option), with or without a '--'."""
    res = subprocess.run([AC_VM, "bench"] + sep + ["--dry-run", "--reps", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stdout[-2000:]
    assert "estimated duration" in res.stdout and "1 repetitions" in res.stdout, res.stdout[-2000:]


def ac_vm_module():
    """scripts/ac-vm imported as a module (it has no .py suffix)."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("ac_vm_script", AC_VM)
    spec = importlib.util.spec_from_loader("ac_vm_script", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("stats,ok", [(" debug_locks:                             1\n", True),
                                      (" debug_locks:                             0\n", False),
                                      ("garbage\n", False)])
def test_run_fails_when_lockdep_switched_off(tmp_path, stats, ok):
    """A debug run whose lockdep ended switched off (its first report, or
    out of room) checked nothing after that: the run fails."""
    (tmp_path / "status").write_text("0\n")
    (tmp_path / "dmesg.txt").write_text("[ 0.1] clean\n")
    (tmp_path / "lockdep_stats").write_text(stats)
    good, reasons = ac_vm_module().judge("6.12-debug", str(tmp_path), False, "")
    assert good == ok, reasons


# Stands in for qemu-system-x86_64: answers vng's version probe, otherwise
# fails at once, as a guest that crashes before running anything.
QEMU_CRASH_STUB = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "QEMU emulator version 7.2.0"; exit 0; fi
exit 1
"""


def test_test_goes_on_after_a_broken_kernel(tmp_path):
    """A kernel whose guest breaks outside any test counts one failure, and
    the next kernel still runs with the --env given (CI once died there with
    a TypeError: the count had replaced the --env dict)."""
    stub = tmp_path / "qemu-crash"
    stub.write_text(QEMU_CRASH_STUB)
    stub.chmod(0o755)
    res = subprocess.run([AC_VM, "--out", str(tmp_path / "out"), "test", "6.12", "6.1",
                          "--no-build", "--timeout", "120", "--env", "AC_PROBE=1"],
                         env=dict(os.environ, AC_VM_QEMU=str(stub)), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=3600)
    assert "Traceback" not in res.stdout, res.stdout[-3000:]
    assert res.returncode == 1, res.stdout[-3000:]
    lines = res.stdout.strip().splitlines()
    assert lines[-1] == "0 passed, 2 failed", res.stdout[-3000:]
    assert any(ln.startswith("6.12 ") and "FAILED" in ln for ln in lines), res.stdout[-3000:]
    assert any(ln.startswith("6.1 ") and "FAILED" in ln for ln in lines), res.stdout[-3000:]


BOOT_OOPS = """[    2.889839] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[    2.893460] Call Trace:
[    2.896632] Kernel panic - not syncing: Fatal exception in interrupt
"""


@pytest.mark.parametrize("console,files,died", [
    (BOOT_OOPS, [], True),
    ("[    1.0] clean boot\n", [], False),
    ("[    3.1] ac-vm: guest 6.12.95 up; running: true\n" + BOOT_OOPS, [], False),
    (BOOT_OOPS, ["output.log"], False),
    (BOOT_OOPS, ["status"], False),
])
def test_died_at_boot_only_before_the_command(tmp_path, console, files, died):
    """A guest is booted again only when it died before its command began:
    a kernel report, and neither guest-run's first line nor any file of the
    command's.  A death after that is the run's, and fails it."""
    for f in files:
        (tmp_path / f).write_text("0\n")
    reports = ac_vm_module().died_at_boot(str(tmp_path), False, console)
    assert bool(reports) == died, reports
    assert not ac_vm_module().died_at_boot(str(tmp_path), True, console)


# Stands in for qemu-system-x86_64: a guest whose kernel dies at boot, and
# counts its boots.
QEMU_OOPS_STUB = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "QEMU emulator version 7.2.0"; exit 0; fi
echo boot >> %(count)s
printf '%%s' %(oops)s
exit 1
"""


def test_guest_dead_at_boot_is_booted_once_more(tmp_path):
    """A guest that dies at boot is booted a second time, once, said so,
    its first console kept; dead again, the run fails."""
    stub, count = tmp_path / "qemu-oops", tmp_path / "boots"
    stub.write_text(QEMU_OOPS_STUB % {"count": shlex.quote(str(count)),
                                      "oops": shlex.quote(BOOT_OOPS)})
    stub.chmod(0o755)
    res = subprocess.run([AC_VM, "--out", str(tmp_path / "out"), "run", "6.12", "--no-build",
                          "--timeout", "120", "--", "true"],
                         env=dict(os.environ, AC_VM_QEMU=str(stub)), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=3600)
    assert res.returncode == 1, res.stdout[-3000:]
    assert count.read_text().count("boot") == 2, res.stdout[-3000:]
    assert "died at boot, before its command ran" in res.stdout, res.stdout[-3000:]
    runs = list((tmp_path / "out").glob("run-6.12-2*"))
    assert len(runs) == 1
    assert "Oops: int3" in (runs[0] / "console-died-at-boot.log").read_text()
    assert (runs[0] / "boot-retried").exists()


# Stands in for qemu-system-x86_64: a guest that comes up with a kernel
# report already in its log, as tests/guest/guest-run finds it (it writes
# boot-report and runs nothing), on the boots listed; on the others a guest
# whose command ran and passed.
QEMU_REPORT_STUB = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "QEMU emulator version 7.2.0"; exit 0; fi
echo boot >> %(count)s
n=$(wc -l < %(count)s)
for d in %(out)s/run-6.12-2*/; do
    case " %(report_on)s " in
    *" $n "*)
        echo "[    8.2] BUG: KASAN: wild-memory-access in do_raw_spin_lock+0x122/0x270"
        echo "BUG: [    8.2] BUG: KASAN: wild-memory-access in do_raw_spin_lock" > "$d/boot-report"
        echo "[    8.2] BUG: KASAN: wild-memory-access in do_raw_spin_lock" > "$d/dmesg.txt"
        echo "debug_locks: 0" > "$d/lockdep_stats" ;;
    *)
        echo "[    9.0] ac-vm: guest 6.12.95 up; running: true"
        echo "[    9.0] ac-vm: guest 6.12.95 up; running: true" > "$d/dmesg.txt"
        echo "debug_locks: 1" > "$d/lockdep_stats"
        : > "$d/output.log"
        echo 0 > "$d/status" ;;
    esac
done
exit 1
"""


@pytest.mark.parametrize("report_on,ok", [("1", True), ("1 2", False)])
def test_guest_reported_at_boot_is_booted_once_more(tmp_path, report_on, ok):
    """A guest whose kernel reported before the command (guest-run then runs
    nothing) is booted a second time, once, said so, with the first boot's
    console, report, log and lockdep state kept apart; reported again, the
    run fails and says so."""
    stub, count, out = tmp_path / "qemu-report", tmp_path / "boots", tmp_path / "out"
    stub.write_text(QEMU_REPORT_STUB % {"count": shlex.quote(str(count)),
                                        "out": shlex.quote(str(out)),
                                        "report_on": report_on})
    stub.chmod(0o755)
    res = subprocess.run([AC_VM, "--out", str(out), "run", "6.12", "--no-build",
                          "--timeout", "120", "--", "true"],
                         env=dict(os.environ, AC_VM_QEMU=str(stub)), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=3600)
    assert res.returncode == (0 if ok else 1), res.stdout[-3000:]
    assert count.read_text().count("boot") == 2, res.stdout[-3000:]
    assert "reported at boot, before its command ran" in res.stdout, res.stdout[-3000:]
    runs = list(out.glob("run-6.12-2*"))
    assert len(runs) == 1
    assert "KASAN" in (runs[0] / "console-reported-at-boot.log").read_text()
    assert "KASAN" in (runs[0] / "boot-report-first").read_text()
    assert "debug_locks: 0" in (runs[0] / "lockdep_stats-first").read_text()
    assert (runs[0] / "boot-retried").exists()
    if ok:
        assert "lockdep switched itself off" not in res.stdout, res.stdout[-3000:]
    else:
        assert "the kernel reported at boot, before the command, which did not run" in res.stdout
        assert "on both boots" in res.stdout, res.stdout[-3000:]


def test_early_failures_only_without_junit(tmp_path):
    """The failures the guest's conftest recorded as they happened are
    reported when the run left no JUnit file (killed at its time limit),
    and only then."""
    (tmp_path / "failures.txt").write_text(
        "tests/guest/test_floor.py::test_floor_elevator_runs_verified_io (call): "
        "AssertionError: 512\ndef test_floor_elevator_runs_verified_io(null_blk):\n"
        "E       AssertionError: 512\n\n")
    got = ac_vm_module().early_failures(str(tmp_path))
    assert got == ["failure tests/guest/test_floor.py::test_floor_elevator_runs_verified_io "
                   "(call, before the run was cut short): AssertionError: 512"], got
    (tmp_path / "junit.xml").write_text("<testsuite tests='1'/>")
    assert ac_vm_module().early_failures(str(tmp_path)) == []
