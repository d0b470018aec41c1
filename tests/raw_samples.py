"""The timed iterations of a results directory's training runs, read from the raw samples."""
import glob
import gzip
import json
import os
import statistics


def percentile(values, q):
    """numpy's default: linear between order statistics."""
    v = sorted(values)
    k = (len(v) - 1) * q / 100
    i = int(k)
    return v[i] + (v[min(i + 1, len(v) - 1)] - v[i]) * (k - i)


def timed_on(results, ranks):
    """Per (sync, backend) on `ranks` ranks: each repetition's mean of iterations 1..39, and
    those iterations of every repetition pooled."""
    means, pooled = {}, {}
    for result in glob.glob(os.path.join(results, "experiments/*/*/rep-*/result.json*")):
        with (gzip.open(result) if result.endswith(".gz") else open(result)) as f:
            r = json.load(f)
        if "config" not in r or r["config"]["world_size"] != ranks:
            continue
        key = (r["config"]["sync"], r["config"]["backend"])
        timed = r["iterations"]["total_s"][1:40]
        means.setdefault(key, []).append(statistics.fmean(timed))
        pooled.setdefault(key, []).extend(timed)
    return means, pooled
