# SPDX-License-Identifier: GPL-2.0
"""The tunables' defaults and ranges are said in four places: the module's
one list (ac-tunables.h), the guest tests' table (tests/guest/ac_util.py,
which the guest suite checks against a loaded module), README's table and
docs/ac-iosched.rst's headings.
They must agree: a default changed in one place only is a default the
user, the tests or the module do not have (28cde82 changed the policy's
init and not the list, and nothing but a benchmark noticed)."""

import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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
            continue            # a word (mapping): README's row is checked below
        out[name] = (value(default, defs), value(lo, defs), value(hi, defs))
    return out


def guest_table():
    # only the table: ac_util imports guest-only helpers
    with open(os.path.join(REPO, "tests", "guest", "ac_util.py")) as f:
        src = f.read()
    m = re.search(r"^NUMERIC_TUNABLES = (\{.*?^\})", src, re.M | re.S)
    return eval(m.group(1))     # noqa: S307 (a literal dict in our own file)


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
    assert len(t) >= 15 and t["read_sync_expire"] == (500, 1, 3600000)
    assert t["stripe_kb"] == (64, 1, 1 << 20)


def test_guest_table_matches_the_module_list():
    assert guest_table() == module_table()


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
