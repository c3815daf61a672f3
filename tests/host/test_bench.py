# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of the benchmark's report: the goals computed from known
figures, and biolatency's text output read back into histograms."""

import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(REPO, "bench")


def load_script(name):
    """A bench script (no .py suffix) as a module, without running main()."""
    path = os.path.join(BENCH, name)
    loader = importlib.machinery.SourceFileLoader(name.replace("-", "_"), path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


# As libbpf-tools' biolatency -Q -F prints it (spacing as the tool's).
BIOLATENCY_TEXT = """Tracing block device I/O... Hit Ctrl-C to end.

flags = Sync-Write
     usecs               : count    distribution
         0 -> 1          : 0        |                                        |
      4096 -> 8191       : 3        |****                                    |
     65536 -> 131071     : 30       |****************************************|

flags = Read
     usecs               : count    distribution
      8192 -> 16383      : 12       |******                                  |
    524288 -> 1048575    : 80       |****************************************|
"""


def test_biolatency_text_is_read_into_histograms():
    gb = load_script("guest-bench")
    hists = gb.biolatency_parse(BIOLATENCY_TEXT)
    assert hists == {"Sync-Write": {4096: 3, 65536: 30}, "Read": {8192: 12, 524288: 80}}


def test_biolatency_directions_and_percentiles():
    sm = load_script("summarize")
    assert sm.bio_direction("Sync-Write") == "write"
    assert sm.bio_direction("ReadAhead-Read") == "read"
    assert sm.bio_direction("Flush") is None
    hist = {8192: 12, 524288: 80}
    assert sm.bio_percentile(hist, 0.10) == 16.383     # 12 of 92 in the first bucket
    assert sm.bio_percentile(hist, 0.50) == 1048.575
    assert sm.bio_percentile({}, 0.5) is None


def fio_json(read_iops, p99_ms):
    return {"fio version": "fio-3.33", "jobs": [{
        "read": {"total_ios": int(read_iops * 4), "bw_bytes": read_iops * 4096, "iops": read_iops,
                 "io_bytes": read_iops * 4 * 4096,
                 "clat_ns": {"mean": p99_ms * 5e5, "N": int(read_iops * 4),
                             "percentile": {"50.000000": p99_ms * 4e5, "99.000000": p99_ms * 1e6,
                                            "99.900000": p99_ms * 1.2e6}}},
        "write": {"total_ios": 0, "io_bytes": 0},
        "usr_cpu": 1.0, "sys_cpu": 2.0, "job_runtime": 4000}]}


def make_results(root, iops):
    """A results directory of null_blk randread-direct with @iops[sched] =
    [IOPS of each repetition]."""
    for sched, reps in iops.items():
        d = os.path.join(root, "raw", "nullb", "randread-direct")
        os.makedirs(d, exist_ok=True)
        for rep, v in enumerate(reps, 1):
            base = os.path.join(d, "r%d-%s" % (rep, sched))
            with open(base + ".json", "w") as f:
                json.dump(fio_json(v, 2.0), f)
            with open(base + ".meta.json", "w") as f:
                json.dump({"device": "nullb", "workload": "randread-direct", "scheduler": sched,
                           "rep": rep, "order": 0, "status": "ok"}, f)
    with open(os.path.join(root, "run.json"), "w") as f:
        json.dump({"plan": {"schedulers": list(iops), "reps": 3, "runtime": 4, "ramp": 1}}, f)


def test_goals_are_ratios_of_medians(tmp_path):
    make_results(str(tmp_path), {
        "none": [1000, 900, 1100],          # median 1000
        "mq-deadline": [950, 940, 990],     # median 950
        "ac": [960, 980, 2000],             # median 980
    })
    res = subprocess.run([sys.executable, os.path.join(BENCH, "summarize"), str(tmp_path)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert res.returncode == 0, res.stdout
    summary = json.load(open(os.path.join(str(tmp_path), "summary.json")))
    goals = {g["against"]: g for g in summary["goals"]}
    assert goals["none"]["measured"] == 0.98 and goals["none"]["met"] is True
    assert goals["mq-deadline"]["measured"] == round(980 / 950, 4)
    assert goals["mq-deadline"]["met"] is True
    md = open(os.path.join(str(tmp_path), "summary.md")).read()
    assert "| randread-direct | 1000 [900-1100] | 950 [940-990] | 980 [960-2000] |" in md


def test_a_loss_is_reported_as_not_met(tmp_path):
    make_results(str(tmp_path), {"none": [1000, 1000, 1000], "mq-deadline": [990, 990, 990],
                                 "ac": [800, 810, 790]})
    subprocess.run([sys.executable, os.path.join(BENCH, "summarize"), str(tmp_path)], check=True,
                   stdout=subprocess.DEVNULL, timeout=120)
    summary = json.load(open(os.path.join(str(tmp_path), "summary.json")))
    assert [g["met"] for g in summary["goals"]] == [False, False]
    md = open(os.path.join(str(tmp_path), "summary.md")).read()
    assert "0.80 loss vs none" in md


def finished_results(tmp_path, plan, boot, status="0", finished="2026-11-23T17:38:02+00:00"):
    """A results directory holding boot 1 as bench/compare collects it."""
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "boot1-status").write_text(status + "\n")
    (raw / "boot1-dmesg.txt").write_text("[ 1.0] ssdsim: loaded\n")
    gplan = {k: v for k, v in plan.items() if k != "boots"}
    gplan["devices"] = boot["devices"]
    (raw / "boot1-guest.json").write_text(json.dumps({"plan": gplan, "finished": finished}))
    return str(tmp_path)


def test_resume_keeps_only_a_complete_boot_of_the_same_plan(tmp_path):
    cmp = load_script("compare")
    boot = {"devices": [{"name": "ssdsim-stripe", "workloads": ["randread-direct"]}]}
    plan = {"reps": 5, "runtime": 4, "ramp": 1, "schedulers": ["none", "ac"], "boots": [boot]}
    results = finished_results(tmp_path, plan, boot)
    assert cmp.finished_boot(results, 0, boot, plan)["finished"]
    assert cmp.finished_boot(results, 1, boot, plan) is None             # never ran
    other = dict(plan, reps=3)
    assert cmp.finished_boot(results, 0, boot, other) is None            # other repetitions
    more = {"devices": [{"name": "ssdsim-stripe", "workloads": ["randread-direct", "seqread-direct"]}]}
    assert cmp.finished_boot(results, 0, more, plan) is None             # other workloads


def test_resume_runs_again_a_boot_that_failed(tmp_path):
    cmp = load_script("compare")
    boot = {"devices": [{"name": "nullb", "workloads": ["randread-direct"]}]}
    plan = {"reps": 5, "runtime": 4, "ramp": 1, "schedulers": ["none", "ac"], "boots": [boot]}
    assert cmp.finished_boot(finished_results(tmp_path, plan, boot, status="1"), 0, boot, plan) is None


def test_resume_needs_the_kernel_log_of_a_kept_boot(tmp_path):
    cmp = load_script("compare")
    boot = {"devices": [{"name": "nullb", "workloads": ["randread-direct"]}]}
    plan = {"reps": 5, "runtime": 4, "ramp": 1, "schedulers": ["none", "ac"], "boots": [boot]}
    results = finished_results(tmp_path, plan, boot)
    os.remove(os.path.join(results, "raw", "boot1-dmesg.txt"))
    assert cmp.finished_boot(results, 0, boot, plan) is None


def test_a_kept_boot_has_its_kernel_log_checked(tmp_path):
    cmp = load_script("compare")
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "boot1-dmesg.txt").write_text("[ 1.0] ssdsim: loaded\n")
    (raw / "boot2-dmesg.txt").write_text(
        "[ 9.5] WARNING: CPU: 1 PID: 77 at block/blk-mq.c:1234 blk_mq_foo+0x1/0x2\n")
    g = {"started": "2026-11-23T16:18:38+00:00", "finished": "2026-11-23T17:38:02+00:00"}
    clean = cmp.kept_boot(str(tmp_path), 0, {"devices": [{"name": "ssdsim-stripe"}]}, g)
    warned = cmp.kept_boot(str(tmp_path), 1, {"devices": [{"name": "nullb"}]}, g)
    assert clean["kept_from_earlier_run"] and clean["kernel_log_reports"] == []
    assert warned["kernel_log_reports"]
    sm = load_script("summarize")
    lines = sm.boot_notes({"boots": [clean, warned]})
    assert len(lines) == 2 and "kept from an earlier run" in lines[0]
