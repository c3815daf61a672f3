# SPDX-License-Identifier: GPL-2.0
"""scripts/ac-check (make check): the failed tests are named again under
the summary, so the last lines of a CI log say what broke."""

import importlib.machinery
import importlib.util
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_loader = importlib.machinery.SourceFileLoader("ac_check", os.path.join(REPO, "scripts", "ac-check"))
_spec = importlib.util.spec_from_loader(_loader.name, _loader)
check = importlib.util.module_from_spec(_spec)
_loader.exec_module(check)

# What ac-vm test prints at its end, with one test of the 6.1 suite failed
# (FAILED_LINES) or none.
FAILED_LINES = "      failure tests.guest.test_floor::test_floor_elevator_runs_verified_io: AssertionError: 812\n"
GUEST_OUTPUT = """\
6.1   6.1.0-56-amd64           54 passed,   %(failed)d failed,  73 skipped, kernel log clean,  550 s
%(lines)s6.12  6.12.95+deb12-amd64     118 passed,   0 failed,  10 skipped, kernel log clean, 1354 s
172 passed, %(failed)d failed
"""


def run_stage(capsys, text, rc):
    check.passed = check.failed = 0
    check.rows[:] = []
    check.failure_lines[:] = []
    script = "import sys; sys.stdout.write(%r); sys.exit(%d)" % (text, rc)
    check.stage("guest tests 6.1 6.12", [sys.executable, "-c", script], counts=True)
    status = check.summary(0)
    return status, capsys.readouterr().out.splitlines()


def test_failed_tests_named_under_the_summary(capsys):
    status, out = run_stage(capsys, GUEST_OUTPUT % dict(failed=1, lines=FAILED_LINES), 1)
    assert status == 1
    assert out[-1] == "172 passed, 1 failed"
    tail = out[out.index("failed tests:"):]
    assert len(tail) == 3, tail
    assert "test_floor::test_floor_elevator_runs_verified_io: AssertionError: 812" in tail[1]
    assert tail[1].strip().startswith("guest tests 6.1 6.12: failure tests.guest.test_floor")


def test_no_failed_tests_section_when_all_passed(capsys):
    status, out = run_stage(capsys, GUEST_OUTPUT % dict(failed=0, lines=""), 0)
    assert status == 0
    assert "failed tests:" not in out
    assert out[-1] == "172 passed, 0 failed"
