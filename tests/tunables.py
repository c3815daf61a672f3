# SPDX-License-Identifier: GPL-2.0
"""The tunables as ac-tunables.h declares them, the one place each default
and range is written: read by the guest tests (tests/guest/ac_util.py) and
checked against the docs by tests/host/test_tunables_table.py."""

import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# kernel constants the limits use
KERNEL = {"SZ_1K": 1 << 10, "SZ_1G": 1 << 30}


def defines():
    out = dict(KERNEL)
    for name in ("ac-iosched.h", "ac-policy.h", "sysfs.c"):
        with open(os.path.join(REPO, name)) as f:
            for m in re.finditer(r"^#define\s+(AC_\w+)\s+(.+?)\s*$", f.read(), re.M):
                out[m.group(1)] = m.group(2)
    return out


def value(expr, defs, depth=0):
    """A C constant expression of numbers, AC_* and SZ_* names, + - * / ()."""
    assert depth < 10, expr
    expr = re.sub(r"\b(\d+)[uU]\b", r"\1", str(expr))
    expr = re.sub(r"\b([A-Z]\w+)\b", lambda m: "(%d)" % value(defs[m.group(1)], defs, depth + 1), expr)
    assert re.fullmatch(r"[\d\s()+\-*/]+", expr), expr
    return int(eval(expr.replace("/", "//")))   # noqa: S307 (digits and operators only)


def module_table():
    defs = defines()
    with open(os.path.join(REPO, "ac-tunables.h")) as f:
        text = f.read()
    out = {}
    for m in re.finditer(r"^AC_TUNABLE\((\w+),\s*[^,]+,\s*\"[^\"]*\",\s*(\w+),\s*(\w+),\s*(\w+),\s*(\w+),",
                         text, re.M):
        name, lo, hi, default, words = m.groups()
        if words != "NULL":
            continue            # a word: mapping
        out[name] = (value(default, defs), value(lo, defs), value(hi, defs))
    return out
