# SPDX-License-Identifier: GPL-2.0
"""The kernel log guard: find every report in a kernel log that must fail a
test run (WARN, BUG, Oops, GPF, KFENCE/KASAN/UBSAN, lockdep, soft lockup,
hung task, RCU stall, call traces, panics).

A guest test that triggers a report on purpose (the guard's own self-test)
brackets it with the markers below; inside them only a report naming the
expected module is accepted, anything else still fails.

Usable as a module (scan) and from the command line:
    python3 klog_guard.py < dmesg.txt   # exit 1 and list reports if any
"""

import re
import sys

PATTERNS = [
    # Any kernel message starting "WARNING: ": 6.x prints "WARNING: CPU: N
    # PID: P at file:line", 7.x "WARNING: file:line at func, CPU#N: comm".
    (r"(^|\] )WARNING: ", "WARNING"),
    (r"\bBUG: ", "BUG"),
    (r"kernel BUG at", "BUG"),
    (r"\bOops\b", "Oops"),
    (r"general protection fault", "general protection fault"),
    (r"\bKFENCE: ", "KFENCE"),
    (r"\bKASAN: |BUG: KASAN", "KASAN"),
    (r"\bUBSAN: ", "UBSAN"),
    (r"soft lockup", "soft lockup"),
    (r"hard LOCKUP", "hard lockup"),
    (r"blocked for more than \d+ seconds", "hung task"),
    (r"rcu: INFO: .*detected stalls|self-detected stall|rcu_.*stall", "RCU stall"),
    (r"possible circular locking dependency|possible recursive locking|"
     r"inconsistent lock state|suspicious RCU usage|lock inversion dependency|"
     r"bad unlock balance|lock held when returning to user space|"
     r"trying to register non-static key|DEBUG_LOCKS_WARN_ON|"
     r"turning off the locking correctness validator", "lockdep"),
    # DEBUG_OBJECTS: a timer/work/rcu_head freed, reused or initialised wrong
    (r"\bODEBUG: ", "debugobjects"),
    (r"Call Trace:", "Call Trace"),
    (r"Kernel panic", "panic"),
    (r"list_(add|del) corruption", "list corruption"),
]
_RE = [(re.compile(p), name) for p, name in PATTERNS]

SELFTEST_BEGIN = "ac-klog-guard: selftest begin"
SELFTEST_END = "ac-klog-guard: selftest end"
# The only report the self-test region may hold: ac-test-warn's own WARN.
SELFTEST_EXPECTED = "ac_test_warn"


def is_selftest_warning(report):
    """Whether @report (one of scan()'s) is a WARNING that names the
    self-test module: by its name, or its source file ac-test-warn.c."""
    return report.startswith("WARNING") and (
        SELFTEST_EXPECTED in report or SELFTEST_EXPECTED.replace("_", "-") in report)


def _reports(lines):
    res = []
    for line in lines:
        for rx, name in _RE:
            if rx.search(line):
                res.append((name, line.strip()))
                break
    return res


def scan(text):
    """Reports in @text that fail a run, each as 'kind: line'."""
    bad = []
    region = None
    for line in text.splitlines():
        if SELFTEST_BEGIN in line:
            region = []
            continue
        if SELFTEST_END in line and region is not None:
            reps = _reports(region)
            warns = [r for r in reps if r[0] == "WARNING"]
            # Accept the self-test's WARN (the WARNING line itself names
            # the module) and its own trace, nothing else.
            expected = len(warns) == 1 and is_selftest_warning("%s: %s" % warns[0])
            if not (expected and
                    all(k in ("WARNING", "Call Trace") for k, _ in reps)):
                bad += reps
            region = None
            continue
        if region is not None:
            region.append(line)
        else:
            bad += _reports([line])
    if region is not None:       # an unterminated region is not accepted
        bad += _reports(region)
    return ["%s: %s" % r for r in bad]


def main():
    reps = scan(sys.stdin.read())
    for r in reps:
        print(r)
    return 1 if reps else 0


if __name__ == "__main__":
    sys.exit(main())
