# SPDX-License-Identifier: GPL-2.0
"""AC on a device that places writes as a real SSD does (issue 42): ssdsim
with mapping=ftl programs each written page on the next die in its write
order, whatever the address, and completes commands up to jitter_us late.

- filled by one sequential write, AC told the fill's page stripe (8
  channels x 4 dies, 16 KiB): a verified random mix with AC's tunables
  changed and the scheduler switched under way completes without an error,
  every block it wrote reads back as written;
- then aged (a quarter of the pages rewritten at random, so their
  placement follows write history), the same;
- the counts drain: nothing queued, every unit's reads back to 0, every
  request AC was given freed.
"""

import json
import random
import subprocess
import time

import pytest

import ac_util
import ssdsim_util as ssd
from conftest import DEBUG_KERNEL, fio, set_scheduler, sh, write

SEED = 42
CAPACITY_MB = 64
FTL = dict(channels=8, dies=4, page_kb=16, mapping="ftl", stripe_kb=16, queue_depth=32,
           capacity_mb=CAPACITY_MB, time_scale=10, jitter_us=2000)
TOLD = [("nr_channels", 8), ("dies_per_channel", 4), ("mapping", "stripe"), ("stripe_kb", 16)]
# what the load changes while it runs: values a user might write
CHANGES = [("unit_depth", (0, 1, 2)), ("unit_spare", (0, 1)), ("write_inflight", (0, 2, 8)),
           ("read_lat_ms", (0, 1, 50)), ("dies_per_channel", (1, 4)), ("fifo_batch", (1, 16)),
           ("write_batch", (4, 16))]
RUNTIME = 12 if DEBUG_KERNEL else 5


@pytest.fixture
def ftl_dev():
    ac_util.load()
    dev = ssd.load(**FTL)
    # the fill: one sequential stream through none, pages in address order
    set_scheduler(dev, "none")
    fio("--filename=%s --direct=1 --ioengine=libaio --rw=write --bs=256k --iodepth=4"
        " --size=%dm" % (dev, CAPACITY_MB), name="fill")
    yield dev
    sh("echo none > /sys/block/%s/queue/scheduler" % ssd.disk(dev), check=False)
    ssd.unload()


def told(dev):
    set_scheduler(dev, "ac")
    for name, value in TOLD:
        assert ac_util.set_tunable(dev, name, value) == 0, name


def verified_mix(dev, offset_mb, size_mb, name):
    """A verified 4-64 KiB random read/write job, time-based."""
    cmd = ("fio --output-format=json --name=%s --filename=%s --direct=1 --ioengine=libaio"
           " --iodepth=32 --rw=randrw --rwmixread=70 --bsrange=4k-64k --blockalign=4k"
           " --offset=%dm --size=%dm --time_based --runtime=%d --verify=crc32c"
           " --verify_fatal=1 --verify_backlog=32 --verify_state_save=0"
           % (name, dev, offset_mb, size_mb, RUNTIME))
    return subprocess.Popen(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def churn(dev, jobs, rng):
    """Tunable changes and scheduler switches while @jobs run; counts."""
    sched = "/sys/block/%s/queue/scheduler" % ssd.disk(dev)
    changes = switches = 0
    while any(j.poll() is None for j in jobs):
        if rng.random() < 0.1:
            assert write(sched, rng.choice(["none", "mq-deadline"])) == 0
            time.sleep(rng.uniform(0, 0.2))
            told(dev)
            switches += 1
        else:
            name, values = rng.choice(CHANGES)
            assert ac_util.set_tunable(dev, name, rng.choice(values)) == 0, name
            changes += 1
        time.sleep(rng.uniform(0, 0.1))
    return changes, switches


def run_phase(dev, rng, label):
    told(dev)
    jobs = [verified_mix(dev, 0, CAPACITY_MB // 2, "a"),
            verified_mix(dev, CAPACITY_MB // 2, CAPACITY_MB // 2, "b")]
    changes, switches = churn(dev, jobs, rng)
    total = 0
    for j in jobs:
        out, err = j.communicate(timeout=300)
        assert j.returncode == 0, "fio failed:\n%s\n%s" % (out[-2000:], err[-2000:])
        for job in json.loads(out[out.find("{"):])["jobs"]:
            assert job["error"] == 0
            total += job["read"]["total_ios"] + job["write"]["total_ios"]
    told(dev)
    sh("dd if=%s of=/dev/null bs=64k count=64 iflag=direct" % dev)
    ac_util.assert_idle_and_balanced(dev)
    print("%s: %d verified I/Os, %d tunable changes, %d switches" % (label, total, changes, switches))
    assert total > 500 and changes > 10, (total, changes)
    return total


def test_filled_then_aged_verified_under_changes(ftl_dev):
    dev = ftl_dev
    rng = random.Random(SEED)
    run_phase(dev, rng, "filled")
    # the aging: a quarter of the pages rewritten once at random
    set_scheduler(dev, "none")
    fio("--filename=%s --direct=1 --ioengine=libaio --rw=randwrite --bs=16k --iodepth=32"
        " --size=%dm --io_size=%dm --randseed=%d" % (dev, CAPACITY_MB, CAPACITY_MB // 4, SEED),
        name="age")
    run_phase(dev, rng, "aged")

