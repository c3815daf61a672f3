# SPDX-License-Identifier: GPL-2.0
"""The tunables' defaults and ranges are written once, in ac-tunables.h;
the module, the unit tests and the guest tests read them from there.
README's table and docs/ac-iosched.rst's headings print them, and must
agree: a default said wrongly is one the user does not get."""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests"))
from tunables import module_table  # noqa: E402


def readme_rows():
    """README's tunables table, found by its heading and read by its header
    row: {name: {column: cell}}."""
    with open(os.path.join(REPO, "README.md")) as f:
        text = f.read()
    m = re.search(r"^#+ Tunables\s*$(.*?)(?=^#)", text, re.M | re.S)
    assert m, "README has no Tunables section"
    lines = [ln for ln in m.group(1).splitlines() if ln.startswith("|")]
    assert len(lines) > 2, "README's Tunables section has no table"
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    header = [h.lower() for h in cells[0]]
    out = {}
    for row in cells[2:]:
        name = re.fullmatch(r"`(\w+)`", row[0])
        assert name, row
        out[name.group(1)] = dict(zip(header, row))
    return out


def readme_defaults():
    return {name: row["default"] for name, row in readme_rows().items()}


def readme_ranges():
    """The "lo..hi" of each numeric tunable's unit and range cell; 0/1
    switches may say just "0..1"."""
    out = {}
    for name, row in readme_rows().items():
        m = re.search(r"\b(\d+)\.\.(\d+)\b", row["unit, range"])
        if m:
            out[name] = (int(m.group(1)), int(m.group(2)))
    return out


def rst_defaults():
    """docs/ac-iosched.rst: each tunable's heading says its default,
    "name (unit; default D)" over a line of dashes."""
    with open(os.path.join(REPO, "docs", "ac-iosched.rst")) as f:
        text = f.read()
    return dict(re.findall(r"^(\w+) \([^)\n]*default (\w+)\)\n-{3,}$", text, re.M))


def test_the_module_list_is_read():
    t = module_table()
    assert len(t) >= 13 and t["read_sync_expire"] == (500, 1, 3600000)
    assert t["stripe_kb"] == (64, 1, 1 << 20)



def test_readme_defaults_match_the_module_list():
    readme = readme_defaults()
    mod = module_table()
    assert set(readme) == set(mod) | {"mapping"}
    for name, (default, _, _) in mod.items():
        assert readme[name] == str(default), name
    assert readme["mapping"] == "range"


def test_readme_ranges_match_the_module_list():
    ranges = readme_ranges()
    mod = module_table()
    assert set(ranges) == set(mod)
    for name, (_, lo, hi) in mod.items():
        assert ranges[name] == (lo, hi), name


def test_rst_defaults_match_the_module_list():
    rst = rst_defaults()
    mod = module_table()
    assert set(rst) == set(mod) | {"mapping"}
    for name, (default, _, _) in mod.items():
        assert rst[name] == str(default), name
    assert rst["mapping"] == "range"
