# SPDX-License-Identifier: GPL-2.0
"""Helpers of the order, latency, edge and stress tests of AC: the block
layer's tracepoints read from tracefs (what the device was really given, in
what order), channel arithmetic as the spec defines it, run statistics, and
the counts the issue's closing note needs ($AC_OUT/counts.jsonl)."""

import json
import os
import re
import subprocess
import time

from conftest import OUT, KVER, read, write

TRACEFS_CANDIDATES = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"]

# block_rq_insert and block_rq_issue share one format:
#   "<maj>,<min> <rwbs> <bytes> (<cmd>) <sector> + <nr_sector> [...]"
_EVENT_RE = re.compile(
    r"\s(\d+\.\d+): (block_rq_(?:insert|issue)): (\d+),(\d+) (\S+) "
    r"(\d+) \((.*?)\) (\d+) \+ (\d+)")


# block_rq_complete and block_rq_requeue print no byte count:
#   "<maj>,<min> <rwbs> (<cmd>) <sector> + <nr_sector> ..."
# (requeues were not parsed before: the pattern above never matched them)
_COMPLETE_RE = re.compile(
    r"\s(\d+\.\d+): block_rq_(complete|requeue): (\d+),(\d+) (\S+) \((.*?)\) (\d+) \+ (\d+)")


def record_counts(test, **counts):
    """Print @counts and append them as one JSON line to $AC_OUT/counts.jsonl."""
    entry = {"test": test, "kver": KVER}
    entry.update(counts)
    line = json.dumps(entry, sort_keys=True)
    print("COUNTS " + line)
    with open(os.path.join(OUT, "counts.jsonl"), "a") as f:
        f.write(line + "\n")


def tracefs():
    for path in TRACEFS_CANDIDATES:
        if os.path.exists(os.path.join(path, "events/block/block_rq_issue")):
            return path
    subprocess.run("mount -t tracefs none /sys/kernel/tracing", shell=True)
    path = TRACEFS_CANDIDATES[0]
    assert os.path.exists(os.path.join(path, "events/block/block_rq_issue")), \
        "no block_rq_issue tracepoint in tracefs"
    return path


def kernel_devt(dev):
    """The kernel's dev_t of block device @dev (MKDEV: major << 20 | minor),
    as a tracepoint filter compares it."""
    st = os.stat(dev)
    return (os.major(st.st_rdev) << 20) | os.minor(st.st_rdev)


class Event:
    __slots__ = ("ts", "kind", "rwbs", "sector", "nr", "write", "read")

    def __init__(self, ts, kind, rwbs, sector, nr):
        self.ts = ts
        self.kind = kind            # 'insert', 'issue' or 'requeue'
        self.rwbs = rwbs
        self.sector = sector
        self.nr = nr
        self.write = "W" in rwbs
        self.read = "R" in rwbs

    def __repr__(self):
        return "%s %s %d+%d" % (self.kind, self.rwbs, self.sector, self.nr)


def parse_trace(text, dev):
    """Events of @dev in trace order (the tracepoint filter already keeps
    other devices out; this checks again)."""
    st = os.stat(dev)
    major, minor = os.major(st.st_rdev), os.minor(st.st_rdev)
    out = []
    for line in text.splitlines():
        m = _EVENT_RE.search(line)
        if m:
            if int(m.group(3)) != major or int(m.group(4)) != minor:
                continue
            out.append(Event(float(m.group(1)), m.group(2)[len("block_rq_"):],
                             m.group(5), int(m.group(8)), int(m.group(9))))
            continue
        m = _COMPLETE_RE.search(line)
        if m and int(m.group(3)) == major and int(m.group(4)) == minor:
            out.append(Event(float(m.group(1)), m.group(2), m.group(5),
                             int(m.group(7)), int(m.group(8))))
    return out


class BlockTrace:
    """Record block_rq_insert, block_rq_issue and block_rq_requeue (and
    block_rq_complete if asked) of one device while the body of the
    with-statement runs.  The ring buffer does not overwrite (the earliest
    events are kept) and uses the global clock, so that the events of both
    CPUs are merged in one order.

    The events are enabled once per boot and left enabled; tracing_on and
    the filters select what is recorded.  Enabling or disabling an event
    patches kernel text (a static key and ftrace's probes), and under QEMU's
    TCG a vCPU has been caught in the transient int3 of that patching and
    hung the guest (docs/decisions.md, "Test infrastructure"): one switch
    per boot instead of two per traced test."""

    EVENTS = ("block_rq_insert", "block_rq_issue", "block_rq_requeue", "block_rq_complete")

    def __init__(self, dev, buffer_kb=16384, completions=False):
        self.completions = completions
        self.dev = dev
        self.buffer_kb = buffer_kb
        self.t = tracefs()
        self.events = []
        self.dropped = 0

    def _w(self, name, value):
        err = write(os.path.join(self.t, name), value)
        assert err == 0, "tracefs %s <- %r: errno %d" % (name, value, err)

    def __enter__(self):
        self._w("tracing_on", "0")
        self.saved = {"trace_clock": [w.strip("[]") for w in read(os.path.join(self.t, "trace_clock")).split()
                                      if w.startswith("[")][0],
                      "buffer_size_kb": read(os.path.join(self.t, "buffer_size_kb")).split()[0]}
        self._w("buffer_size_kb", str(self.buffer_kb))
        self._w("trace_clock", "global")
        self._w("options/overwrite", "0")
        self._w("trace", "\n")
        for ev in self.EVENTS:
            base = "events/block/%s/" % ev
            # dev 0 is no block device: the completions nobody asked for
            # stay out of the buffer
            wanted = self.completions or ev != "block_rq_complete"
            self._w(base + "filter", "dev == %d" % (kernel_devt(self.dev) if wanted else 0))
            if read(os.path.join(self.t, base + "enable")).strip() != "1":
                self._w(base + "enable", "1")
        self._w("tracing_on", "1")
        return self

    def __exit__(self, *exc):
        self._w("tracing_on", "0")
        for cpu in os.listdir(os.path.join(self.t, "per_cpu")):
            stats = read(os.path.join(self.t, "per_cpu", cpu, "stats"))
            for line in stats.splitlines():
                key, _, val = line.partition(":")
                if key.strip() in ("overrun", "dropped events"):
                    self.dropped += int(val.strip() or 0)
        with open(os.path.join(self.t, "trace")) as f:
            text = f.read()
        self.events = parse_trace(text, self.dev)
        self._w("trace", "\n")
        self._w("options/overwrite", "1")
        self._w("trace_clock", self.saved["trace_clock"])
        self._w("buffer_size_kb", self.saved["buffer_size_kb"])
        return False

    def dump(self, name):
        """Save the parsed events to $AC_OUT/trace-<name>.txt (evidence)."""
        path = os.path.join(OUT, "trace-%s.txt" % name)
        with open(path, "w") as f:
            for e in self.events:
                f.write("%.6f %s %s %d %d\n" % (e.ts, e.kind, e.rwbs, e.sector, e.nr))
        return path

    def issues(self):
        return [e for e in self.events if e.kind == "issue"]


# ---------------------------------------------------------------- channels

def capacity_sectors(dev):
    return int(read("/sys/block/%s/size" % os.path.basename(dev)))


def channel_fn(dev, nr_channels, mapping, stripe_kb=64):
    """The spec's sub-group of a start sector (section 2) on @dev."""
    cap = capacity_sectors(dev)
    if mapping == "range":
        per = cap // nr_channels
        assert per > 0
        return lambda sector: min(sector // per, nr_channels - 1)
    stripe = stripe_kb * 2
    return lambda sector: (sector // stripe) % nr_channels


def runs(seq):
    """Lengths of the runs of equal consecutive values of @seq."""
    out = []
    prev = object()
    for v in seq:
        if out and v == prev:
            out[-1] += 1
        else:
            out.append(1)
        prev = v
    return out


def read_spread(events, chan, warmup=0.1):
    """How reads were spread over channels, from the trace.

    Returns a dict:
      pairs, differ: consecutive issued reads, and those on different channels;
      eligible, eligible_differ: the pairs for which, when the second read
        was issued, some read of another channel than the first's was queued
        (inserted and not yet issued, reconstructed from the trace), and of
        those, the ones on different channels.  AC's rule (spec 4.2) says all
        eligible pairs differ.
      covered: fraction of issued reads whose insert was seen.
    The first @warmup fraction of the issues is skipped (ramp-up)."""
    queued = {}          # channel -> reads inserted, not issued
    pending = {}         # sector -> times inserted and not issued
    issues = [e for e in events if e.kind == "issue" and e.read]
    skip = int(len(issues) * warmup)
    seen = 0
    res = dict(pairs=0, differ=0, eligible=0, eligible_differ=0, covered=0.0)
    prev = None
    idx = 0
    for e in events:
        if not e.read:
            continue
        c = chan(e.sector)
        if e.kind == "insert":
            pending[e.sector] = pending.get(e.sector, 0) + 1
            queued[c] = queued.get(c, 0) + 1
            continue
        if e.kind != "issue":
            continue
        others = prev is not None and any(n > 0 for ch, n in queued.items() if ch != prev)
        if pending.get(e.sector):
            pending[e.sector] -= 1
            queued[c] -= 1
            seen += 1
        if idx >= skip and prev is not None:
            res["pairs"] += 1
            res["differ"] += c != prev
            if others:
                res["eligible"] += 1
                res["eligible_differ"] += c != prev
        prev = c
        idx += 1
    res["covered"] = seen / max(1, len(issues))
    res["issued"] = len(issues)
    return res


def read_passed_over(events, chan, warmup=0.1):
    """For each issued read, how many reads of its channel inserted before
    it were still waiting (not issued): 0 for every read when a channel's
    reads leave in arrival order.  Returns the list of these counts, after
    the first @warmup fraction of the issues (ramp-up).  Reads whose insert
    was not seen are left out."""
    waiting = {}         # channel -> sectors inserted, not issued, in order
    issues = [e for e in events if e.kind == "issue" and e.read]
    skip = int(len(issues) * warmup)
    out = []
    idx = 0
    for e in events:
        if not e.read or e.kind not in ("insert", "issue"):
            continue
        q = waiting.setdefault(chan(e.sector), [])
        if e.kind == "insert":
            q.append(e.sector)
            continue
        if e.sector in q:
            rank = q.index(e.sector)
            del q[rank]
            if idx >= skip:
                out.append(rank)
        idx += 1
    return out


def write_runs(events, chan, warmup=0.1):
    """Run lengths of consecutive issued writes on one channel (reads ignored)."""
    ws = [chan(e.sector) for e in events if e.kind == "issue" and e.write]
    return runs(ws[int(len(ws) * warmup):])


def reads_while_write_waits(events):
    """For each write issued after waiting in the scheduler: how many reads
    were issued between its insert and its issue.  Returns the list."""
    waiting = {}     # sector -> [count of reads issued since insert]
    out = []
    for e in events:
        if e.kind == "insert" and e.write:
            waiting.setdefault(e.sector, []).append(0)
        elif e.kind == "issue" and e.read:
            for lst in waiting.values():
                for i in range(len(lst)):
                    lst[i] += 1
        elif e.kind == "issue" and e.write:
            lst = waiting.get(e.sector)
            if lst:
                out.append(lst.pop(0))
                if not lst:
                    del waiting[e.sector]
    return out


def device_occupancy(events):
    """For each write issued: (reads, writes) at the device just after it,
    from block_rq_issue and block_rq_complete.  Requeued requests leave the
    device too."""
    reads = writes = 0
    out = []
    for e in events:
        d = 1 if e.kind == "issue" else -1 if e.kind in ("complete", "requeue") else 0
        if not d or not (e.read or e.write) or not e.nr:
            continue
        if e.write:
            writes = max(0, writes + d)
        else:
            reads = max(0, reads + d)
        if d > 0 and e.write:
            out.append((reads, writes))
    return out


def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def wait_for(pred, timeout=10.0, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()
