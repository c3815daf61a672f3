# SPDX-License-Identifier: GPL-2.0
"""The benchmark's floor elevator (bench/floor, issue 16) loads, carries
verified I/O on null_blk, switches away and unloads: a floor that cannot
load would leave every null_blk row of the comparison without its
reference."""

import ac_util
from conftest import fio, insmod, module_loaded, rmmod, set_scheduler

FLOOR_IOS = 4096


def test_floor_elevator_runs_verified_io(null_blk):
    dev = null_blk(submit_queues=2)
    insmod("bench/floor/floor-iosched.ko")
    try:
        set_scheduler(dev, "floor")
        # a fixed number of I/Os, not a time: a loaded host or the debug
        # kernel does a fraction of the I/Os in the same seconds
        data = fio(ac_util.fio_cmd(dev, "randrw", iodepth=32, ios=FLOOR_IOS).replace("--name=ac ", ""),
                   name="floor")
        ios = sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in data["jobs"])
        assert ios >= FLOOR_IOS, ios
        set_scheduler(dev, "none")
    finally:
        rmmod("floor_iosched")
    assert not module_loaded("floor_iosched")
