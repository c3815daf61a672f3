# SPDX-License-Identifier: GPL-2.0
"""Each compile probe gives the known answer on each supported kernel.

A probe that fails to compile for an unrelated reason (a missing include, a
new default warning) reads as "feature absent" and silently picks the wrong
code path; this pins the answers for the kernels we test (facts from
../shared/docs/elevator-api.md, checked against each kernel's source)."""

import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.environ.get("AC_CACHE", os.path.expanduser("~/.cache/ac-iosched"))

EXPECTED = {
    "6.1": {"ELEVATOR_FEATURES"},
    "6.12": {"INSERT_FLAGS"},
    "7.2": {"INIT_SCHED_EQ", "ALLOC_SCHED_DATA", "INSERT_FLAGS", "DEPTH_UPDATED_Q",
            "BLK_MQ_SET_MIN_SHALLOW_DEPTH", "CONST_ATTRS", "FREEZE_MEMFLAGS",
            "Q_ASYNC_DEPTH"},
}
SCHED_PROBES = set().union(*EXPECTED.values())


def generated(series):
    path = os.path.join(CACHE, "build", series, "compat", "generated", "ac-compat.h")
    if not os.path.exists(path):
        subprocess.run([os.path.join(REPO, "scripts", "ac-vm"), "build", series], check=True,
                       stdout=subprocess.DEVNULL)
    have = set()
    for line in open(path):
        if line.startswith("#define AC_HAVE_"):
            have.add(line.split()[1][len("AC_HAVE_"):])
    return have


@pytest.mark.parametrize("series", sorted(EXPECTED))
def test_probe_answers(series):
    have = generated(series) & SCHED_PROBES
    assert have == EXPECTED[series], "missing %s, unexpected %s" % (
        sorted(EXPECTED[series] - have), sorted(have - EXPECTED[series]))
