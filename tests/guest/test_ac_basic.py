# SPDX-License-Identifier: GPL-2.0
"""AC basics: load, select, defaults, unload; rmmod refused while in use;
autoload by name; verified I/O; every tunable fuzzed; the sub-group layout
changed at random under a verified load; every debugfs file, with I/O held
in the scheduler."""

import json
import os
import random
import subprocess
import time

import pytest

import ac_util
import ssdsim_util as ssd
from ac_util import (MAPPINGS, NUMERIC_TUNABLES, TUNABLES, ac_device,
                     active_mapping, set_tunable, tunable)
from conftest import (KVER, current_scheduler, fio, fio_total_ios, insmod, module_loaded,
                      primary_only, read, rmmod, load_scsi_debug, set_scheduler, sh)

EINVAL = 22


@pytest.fixture
def ac_module():
    """AC loaded for the test, unloaded after (devices are gone by then:
    request this fixture before null_blk)."""
    ac_util.load()
    yield
    ac_util.unload(check=False)


def test_load_select_defaults_unload(ac_module, null_blk):
    dev = null_blk()
    assert "ac" in read("/sys/block/nullb0/queue/scheduler").replace("[", " ").replace("]", " ").split()
    set_scheduler(dev, "ac")
    assert sorted(os.listdir(ac_util.iosched_dir(dev))) == TUNABLES
    for name, (default, _, _) in NUMERIC_TUNABLES.items():
        assert tunable(dev, name) == str(default), name
    assert tunable(dev, "mapping") == "[range] stripe"
    sh("dd if=/dev/zero of=%s bs=64k count=64 oflag=direct" % dev)
    sh("dd if=%s of=/dev/null bs=64k count=64 iflag=direct" % dev)
    ac_util.assert_idle_and_balanced(dev)
    set_scheduler(dev, "none")
    ac_util.unload()
    assert not module_loaded(ac_util.MODULE)


def test_rmmod_refused_while_in_use(ac_module, null_blk):
    dev = null_blk()
    set_scheduler(dev, "ac")
    res = ac_util.unload(check=False)
    assert res.returncode != 0, "rmmod succeeded while nullb0 uses ac"
    assert module_loaded(ac_util.MODULE)
    assert current_scheduler(dev) == "ac"
    sh("dd if=%s of=/dev/null bs=4k count=256 iflag=direct" % dev)
    set_scheduler(dev, "none")
    ac_util.unload()


def test_autoload_by_name(null_blk):
    """'echo ac > scheduler' loads the module through request_module
    ("ac-iosched"), which MODULE_ALIAS and the module name both answer."""
    ac_util.unload(check=False)
    assert not module_loaded(ac_util.MODULE)
    info = sh("modinfo -F alias %s" % ac_util.module_path(ac_util.KO)).stdout.split()
    assert "ac-iosched" in info
    dev = null_blk()
    with ac_util.module_autoload():
        set_scheduler(dev, "ac")
    assert module_loaded(ac_util.MODULE)
    sh("dd if=%s of=/dev/null bs=4k count=256 iflag=direct" % dev)
    set_scheduler(dev, "none")
    ac_util.unload()


# The thesis's patterns (spec section 7), a few seconds each, verified.
# Writing patterns verify as they go; reading ones first lay down verifiable
# data, then read it back (fio --verify_only replays the same offsets).
PATTERNS = {
    "seqwrite": "write",
    "randwrite": "randwrite",
    "seqread": "read",
    "randread": "randread",
    "rand50": "randrw --rwmixread=50",
    "rand90": "randrw --rwmixread=90",
}


# I/Os of each writing pattern: a count, not a time (see ac_util.fio_cmd()).
VERIFY_IOS = 2048


def fill_then_read(dev, rw):
    job = ("--filename=%s --direct=1 --ioengine=libaio --iodepth=16 --rw=%s"
           " --bs=4k --size=16m --randrepeat=1 --verify=crc32c --verify_fatal=1"
           " --verify_state_save=0" % (dev, rw.replace("read", "write")))
    fio(job + " --do_verify=0", name="rd")
    return fio(job + " --verify_only=1", name="rd")


# Every pattern on the primary kernel; three (reads, writes, the mix) on
# the others.
EVERY_KERNEL_PATTERNS = ("randread", "seqwrite", "rand50")


@pytest.mark.parametrize("pattern", [p if p in EVERY_KERNEL_PATTERNS else primary_only(p)
                                     for p in sorted(PATTERNS)])
def test_fio_verify_direct(ac_module, null_blk, pattern):
    dev = ac_device(null_blk, submit_queues=2)
    rw = PATTERNS[pattern]
    if rw in ("read", "randread"):
        data = fill_then_read(dev, rw)
        assert sum(j["read"]["total_ios"] for j in data["jobs"]) == 16 * 256
    else:
        data = fio(ac_util.fio_cmd(dev, rw, ios=VERIFY_IOS).replace("--name=ac ", ""),
                   name="ac")
        assert fio_total_ios(data) >= VERIFY_IOS
    ac_util.assert_idle_and_balanced(dev)


def test_fio_verify_buffered(ac_module, null_blk):
    dev = ac_device(null_blk)
    data = fio(ac_util.fio_cmd(dev, "randrw --rwmixread=70", ios=VERIFY_IOS,
                               direct=0, extra="--fsync=32").replace("--name=ac ", ""),
               name="buf")
    assert fio_total_ios(data) >= VERIFY_IOS
    sh("sync")
    ac_util.assert_idle_and_balanced(dev)


def bad_inputs(name):
    if name == "mapping":
        return ["", "\n", "rang", "ranges", "RANGE", "range stripe", "0", "1",
                "-1", "stripe\n\n", " range", "[range]"]
    _, lo, hi = NUMERIC_TUNABLES[name]
    bad = ["\n", "abc", "-1", "-0x1", "1.5", "0x10", "1e3", "12abc", "12 13",
           " 12", "12\n\n", "4294967296", "18446744073709551616",
           "99999999999999999999999", str(hi + 1)]
    if lo > 0:
        bad.append(str(lo - 1))
    return bad


def good_inputs(name):
    if name == "mapping":
        return ["stripe", "range\n", "stripe\n", "range"]
    default, lo, hi = NUMERIC_TUNABLES[name]
    return [str(lo), "%d\n" % hi, str((lo + hi) // 2), "%d\n" % default]


# Every tunable on the primary kernel.  The store path is one table and
# one parser on every kernel; the others run a numeric tunable, one in
# milliseconds, the two whose product is bounded and the mapping.
EVERY_KERNEL_TUNABLES = ("read_sync_expire", "nr_channels", "dies_per_channel", "unit_depth",
                         "mapping")


@pytest.mark.parametrize("name", [n if n in EVERY_KERNEL_TUNABLES else primary_only(n)
                                  for n in TUNABLES])
def test_sysfs_refuses_bad_input(ac_module, null_blk, name):
    dev = ac_device(null_blk)
    if name == "dies_per_channel":
        # its whole range fits only with few channels (channels x dies <= 256)
        assert set_tunable(dev, "nr_channels", 4) == 0
    before = tunable(dev, name)
    for bad in bad_inputs(name):
        if bad == "":
            continue  # a zero-length write never reaches the store method
        err = set_tunable(dev, name, bad)
        assert err == EINVAL, "%s accepted %r (errno %d)" % (name, bad, err)
        assert tunable(dev, name) == before, "%s changed by %r" % (name, bad)
    for good in good_inputs(name):
        assert set_tunable(dev, name, good) == 0, "%s refused %r" % (name, good)
        now = tunable(dev, name)
        if name == "mapping":
            assert active_mapping(now) == good.strip()
            assert sorted(now.replace("[", "").replace("]", "").split()) == MAPPINGS
        else:
            assert now == good.strip()
    sh("dd if=%s of=/dev/null bs=4k count=64 iflag=direct" % dev)


def test_layout_changes_under_load(ac_module, null_blk):
    """nr_channels, mapping, stripe_kb and the queue depth changed at
    random while fio writes and verifies on two hardware queues: nothing
    lost, corrupted, stranded or miscounted."""
    dev = ac_device(null_blk, submit_queues=2)
    rng = random.Random(int(os.environ.get("AC_SEED", "5")))
    jobs = [ac_util.fio_background(dev, "randrw --rwmixread=50", runtime=6,
                                   iodepth=32, name="a", extra="--offset=0 --size=32m"),
            ac_util.fio_background(dev, "write", runtime=6, iodepth=8, bs="16k",
                                   name="b", extra="--offset=32m --size=32m")]
    changes = 0
    end = time.monotonic() + 5
    while time.monotonic() < end:
        what = rng.choice(["nr_channels", "mapping", "stripe_kb", "nr_requests",
                           "expire"])
        if what == "nr_channels":
            err = set_tunable(dev, what, rng.randint(1, 64))
        elif what == "mapping":
            err = set_tunable(dev, what, rng.choice(MAPPINGS))
        elif what == "stripe_kb":
            err = set_tunable(dev, what, rng.choice([1, 4, 64, 96, 1024]))
        elif what == "expire":
            err = set_tunable(dev, "read_sync_expire", rng.choice([1, 10, 500]))
        else:
            err = ac_util.write("/sys/block/%s/queue/nr_requests" % ac_util.disk(dev),
                                str(rng.choice([4, 16, 64, 128])))
        assert err == 0, (what, err)
        changes += 1
        time.sleep(rng.uniform(0.005, 0.05))
    total = 0
    for job in jobs:
        data = json.loads(ac_util.fio_wait(job))
        total += fio_total_ios(data)
    assert total > 1000
    assert changes > 20
    assert ac_util.stats(dev)["regroups"] > 0
    ac_util.assert_idle_and_balanced(dev)


# The emulated SSD, slow and shallow: it holds 2 commands of about 0.6 s
# each (read 50 us, program 50 us, transfer 10 us, times 10000), so that
# with 24 requests outstanding most of them wait in AC's FIFOs for seconds,
# and nothing moves for a few hundred ms between two of its completions.
HELD_SSD = dict(channels=2, dies=2, page_kb=4, mapping="stripe", stripe_kb=64,
                capacity_mb=64, queue_depth=2, read_us=50, program_us=50,
                xfer_us=10, time_scale=10000)
# AC told that geometry, with tunables off their defaults so that the
# debugfs values are seen to follow sysfs.
HELD_AC = [("nr_channels", 2), ("dies_per_channel", 2), ("mapping", "stripe"),
           ("stripe_kb", 64), ("fifo_batch", 8), ("write_batch", 4),
           ("writes_starved", 3), ("unit_depth", 2), ("write_inflight", 7)]


def dispatched_between(before, after):
    """Requests AC's policy dispatched between two readings of the stats."""
    return sum(after["dispatched_" + t] - before["dispatched_" + t] for t in ac_util.TYPES)


@pytest.fixture
def held_ssd():
    """An ssdsim device (HELD_SSD) with AC selected and told its geometry,
    and room for 64 requests in the scheduler; ssdsim removed after."""
    ssd.load(**HELD_SSD)
    dev = "/dev/ssdsim0"
    try:
        set_scheduler(dev, "ac")
        for name, value in HELD_AC:
            assert set_tunable(dev, name, value) == 0, name
        assert ac_util.write("/sys/block/%s/queue/nr_requests" % ac_util.disk(dev), "64") == 0
        yield dev
    finally:
        sh("echo none > /sys/block/ssdsim0/queue/scheduler", check=False)
        ssd.unload()


def debugfs_file(dev, name):
    return read(os.path.join(ac_util.debugfs_dir(dev), name))


def parse_debugfs(dev):
    """Every file parsed as its kind: {"values", "stats", "channels",
    "occupancy", "fifo": {type: [lines]}, "dispatch": [lines]}."""
    lines = debugfs_file(dev, "state").splitlines()
    assert [ln.split()[0] for ln in lines] == ac_util.STATE_KEYS, lines
    st = ac_util.state(dev)
    words = {"dir": ["read", "write"],
             "async_depth_limits": ["queue", "bitmap", "word"]}
    for name, val in st.items():
        if name in words:
            assert val in words[name], (name, val)
        else:
            assert isinstance(val, int), (name, val)
            assert val >= (-1 if name == "proc" else 0), (name, val)
    assert st["cap_waiting"] in (0, 1) and st["writes_waiting"] in (0, 1), st
    lines = debugfs_file(dev, "stats").splitlines()
    assert [ln.split()[0] for ln in lines] == ac_util.STATS_COUNTERS, lines
    s = ac_util.stats(dev)
    assert all(isinstance(v, int) and v >= 0 for v in s.values()), s
    us = ac_util.units(dev)     # one reading: the two views agree
    ch = ac_util.channels(dev, us)
    occ = ac_util.occupancy(dev, us)
    nr = int(tunable(dev, "nr_channels"))
    assert sorted(ch) == sorted(occ) == list(range(st["units"])), (ch, occ)
    for u, ((c, d), _) in occ.items():
        assert (c, d) == (u % nr, u // nr), (u, c, d)
    fifo = {t: debugfs_file(dev, t + "_fifo").splitlines() for t in ac_util.TYPES}
    # blk_mq_debugfs_rq_show(): one request a line, its op in it
    for t, reqs in fifo.items():
        for line in reqs:
            assert (".op=READ" if t.startswith("read") else ".op=WRITE") in line, (t, line)
    return {"values": st, "stats": s, "channels": ch, "occupancy": occ, "fifo": fifo,
            "dispatch": debugfs_file(dev, "dispatch").splitlines()}


def stable_snapshot(dev):
    """parse_debugfs() taken between two equal readings of the counters
    (all but completed, which moves without changing any list): no request
    was inserted, merged, dispatched or requeued meanwhile, so the files
    agree with each other.  None if something moved."""
    def moving(s):
        return {k: v for k, v in s.items() if k != "completed"}
    before = moving(ac_util.stats(dev))
    snap = parse_debugfs(dev)
    if moving(snap["stats"]) != before or moving(ac_util.stats(dev)) != before:
        return None
    return snap


def check_counts(snap):
    """The lists, the one-value counts and the counters agree."""
    st, s = snap["values"], snap["stats"]
    for t in ac_util.TYPES:
        assert len(snap["fifo"][t]) == st["queued_" + t], (t, snap)
        assert sum(u[t] for u in snap["channels"].values()) == st["queued_" + t], (t, snap)
    assert sum(len(f) for f in snap["fifo"].values()) == st["sorted"], snap
    # every request AC was given is queued, dispatched, merged away, or
    # went to the dispatch list (requeues come back there uncounted)
    dispatched = sum(s["dispatched_" + t] for t in ac_util.TYPES)
    assert s["inserted"] == (st["sorted"] + dispatched + s["merged"]
                             + s["head_inserts"] - s["requeued"]), s
    assert len(snap["dispatch"]) == s["head_inserts"] - s["head_dispatched"], snap


def check_values_follow_sysfs(dev, st):
    units = int(tunable(dev, "nr_channels")) * int(tunable(dev, "dies_per_channel"))
    assert st["units"] == units, st
    assert st["capacity"] == int(read("/sys/block/%s/size" % ac_util.disk(dev))), st


def test_debugfs_readable(ac_module, held_ssd):
    """Every file of the list is there and parses; one-value files follow
    sysfs; with I/O held in the scheduler the FIFOs show it and agree with
    the counts; after the run the counters balance, against the device's."""
    dev = held_ssd
    assert sorted(os.listdir(ac_util.debugfs_dir(dev))) == sorted(ac_util.DEBUGFS_TABLES)
    idle = parse_debugfs(dev)
    check_values_follow_sysfs(dev, idle["values"])
    check_counts(idle)
    assert idle["values"]["sorted"] == 0
    # a layout change through sysfs shows at once
    assert set_tunable(dev, "unit_depth", 3) == 0
    assert set_tunable(dev, "nr_channels", 4) == 0
    assert parse_debugfs(dev)["values"]["units"] == 4 * int(tunable(dev, "dies_per_channel"))
    assert set_tunable(dev, "nr_channels", dict(HELD_AC)["nr_channels"]) == 0
    ssd.reset_stats(dev)
    before = ac_util.stats(dev)

    job = subprocess.Popen(
        "fio --output-format=json --name=held --filename=%s --direct=1"
        " --ioengine=libaio --rw=randrw --rwmixread=50 --bs=4k --size=16m"
        " --iodepth=24 --time_based --runtime=3" % dev,
        shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    held = None
    tries = 0
    end = time.monotonic() + 20
    while time.monotonic() < end and job.poll() is None:
        snap = stable_snapshot(dev)
        tries += 1
        if snap and snap["values"]["sorted"] >= 8 and \
                snap["fifo"]["read_sync"] and snap["fifo"]["write_sync"]:
            held = snap
            break
        time.sleep(0.05)
    out, err = job.communicate(timeout=300)
    assert job.returncode == 0, (out[-2000:], err[-2000:])
    assert held is not None, "no stable snapshot with queued reads and writes in %d tries" % tries
    check_counts(held)
    check_values_follow_sysfs(dev, held["values"])
    print("held: %d queued (%s) after %d tries" % (
        held["values"]["sorted"],
        ", ".join("%s %d" % (t, len(held["fifo"][t])) for t in ac_util.TYPES), tries))

    ios = fio_total_ios(json.loads(out[out.find("{"):]))
    ac_util.assert_idle_and_balanced(dev)
    after = parse_debugfs(dev)
    check_counts(after)
    s = after["stats"]
    assert all(s[k] >= before[k] for k in s), (before, s)
    dispatched = dispatched_between(before, s)
    assert s["dispatched_read_sync"] > before["dispatched_read_sync"], s
    assert s["dispatched_write_sync"] > before["dispatched_write_sync"], s
    inserted = s["inserted"] - before["inserted"]
    assert 0 < inserted <= ios, (inserted, ios)
    assert s["completed"] == s["inserted"] and s["head_inserts"] == s["head_dispatched"], s
    # every command the device saw was dispatched by AC (none requeued)
    dev_st = ssd.stats(dev)
    if s["requeued"] == before["requeued"]:
        assert dev_st["reads"] + dev_st["writes"] + dev_st["flushes"] == \
            dispatched + s["head_dispatched"] - before["head_dispatched"], (dev_st, s)
    assert dev_st["max_inflight"] <= HELD_SSD["queue_depth"], dev_st


# How each supported kernel limits async requests (verified in its source):
# 6.1 counts shallow_depth per sbitmap word; Debian's 6.12.95 has the 6.17
# change to a whole-bitmap count backported, which no compile probe can see
# (AC measures it at module init); 7.x has the queue's own async_depth.
EXPECTED_DEPTH_MODE = {"6.1": "word", "6.12": "bitmap", "7.2": "queue"}


def test_async_depth_limit(ac_module, null_blk):
    """Writes and async requests may use 3/4 of the scheduler tags."""
    dev = ac_device(null_blk)
    nr_path = "/sys/block/%s/queue/nr_requests" % ac_util.disk(dev)
    st = ac_util.state(dev)
    mode = st["async_depth_limits"]
    if KVER in EXPECTED_DEPTH_MODE:
        assert mode == EXPECTED_DEPTH_MODE[KVER], st
    for nr in [int(read(nr_path)), 64, 16]:
        assert ac_util.write(nr_path, str(nr)) == 0
        depth = ac_util.state(dev)["async_depth"]
        if mode == "queue":
            assert int(read("/sys/block/%s/queue/async_depth" % ac_util.disk(dev))) == depth
            assert depth == max(nr * 3 // 4, 1), (nr, depth)
        elif mode == "bitmap":
            assert depth == max(nr * 3 // 4, 1), (nr, depth)
        else:
            assert 0 < depth < nr, (nr, depth)
        fio(ac_util.fio_cmd(dev, "randrw", runtime=1, iodepth=64).replace("--name=ac ", ""),
            name="depth")
    ac_util.assert_idle_and_balanced(dev)


def test_limit_depth_without_hctx(ac_module, null_blk):
    """Kernels 6.2-6.10 call limit_depth before data->hctx is set.  A test
    module (tests/kmod/ac-test-nohctx.c) clears it around every call of
    AC's limit_depth: writes must still get their tag share,
    and nothing may oops (the log guard).  The probe must have fired."""
    dev = ac_device(null_blk)
    insmod("tests/kmod/ac-test-nohctx.ko")
    try:
        fio(ac_util.fio_cmd(dev, "randrw", runtime=2, iodepth=64).replace("--name=ac ", ""),
            name="nohctx")
        sh("dd if=%s of=/dev/null bs=1M count=32 status=none" % dev)
        calls = int(read("/sys/module/ac_test_nohctx/parameters/calls"))
        limited = int(read("/sys/module/ac_test_nohctx/parameters/limited"))
    finally:
        rmmod("ac_test_nohctx")
    print("limit_depth calls without hctx %d, async ones limited %d" % (calls, limited))
    assert calls > 100 and limited > 0, (calls, limited)
    ac_util.assert_idle_and_balanced(dev)


def test_async_depth_of_user_kept(ac_module, null_blk):
    """7.x: queue/async_depth that a user set survives a switch to AC;
    the core's value (none's, or mq-deadline's: no limit) gets AC's 3/4."""
    dev = ac_device(null_blk)
    path = "/sys/block/%s/queue/async_depth" % ac_util.disk(dev)
    if not os.path.exists(path):
        pytest.skip("no queue/async_depth before 7.x (AC sets shallow_depth itself)")
    nr = int(read("/sys/block/%s/queue/nr_requests" % ac_util.disk(dev)))
    assert int(read(path)) == max(nr * 3 // 4, 1)
    set_scheduler(dev, "mq-deadline")
    assert int(read(path)) == int(read("/sys/block/%s/queue/nr_requests" % ac_util.disk(dev)))
    assert ac_util.write(path, "10") == 0
    set_scheduler(dev, "ac")
    assert int(read(path)) == 10
    assert ac_util.state(dev)["async_depth"] == 10
    set_scheduler(dev, "none")
    set_scheduler(dev, "ac")
    nr = int(read("/sys/block/%s/queue/nr_requests" % ac_util.disk(dev)))
    assert int(read(path)) == max(nr * 3 // 4, 1)


def test_requeue_by_scsi_retries(ac_module):
    """A SCSI disk whose every 23rd command fails with a transport error:
    the midlayer retries it through blk_mq_requeue_request().  Requeued
    requests must come back, be counted once, and data must verify."""
    try:
        dev = load_scsi_debug("dev_size_mb=64 every_nth=23 opts=16 max_queue=16")
        set_scheduler(dev, "ac")
        data = fio(ac_util.fio_cmd(dev, "randrw --rwmixread=50", runtime=3,
                                   size="32m").replace("--name=ac ", ""), name="rq")
        assert fio_total_ios(data) > 200
        s = ac_util.stats(dev)
        print("requeued %d, inserted %d, head inserts %d" % (
            s["requeued"], s["inserted"], s["head_inserts"]))
        assert s["requeued"] > 0, s
        ac_util.assert_idle_and_balanced(dev)
        set_scheduler(dev, "none")
    finally:
        for _ in range(20):
            if sh("rmmod scsi_debug", check=False).returncode == 0:
                break
            time.sleep(0.5)
