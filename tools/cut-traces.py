#!/usr/bin/env python3
"""Copies a results directory into tests/fixtures/results/ as a test fixture: everything but the
traces as it is; of the traces, only those `dtbench predict` reads (the blocking runs of exact
methods, without a slowed rank or a bottleneck, whose compute it profiles), each cut to the
events it reads (the data, forward, backward and iteration spans, the gradient-ready instants)
and gzip-compressed.

    tools/cut-traces.py results/reference/NAME tests/fixtures/results/NAME
"""
import gzip, json, os, shutil, sys

LOSSY = {"fp16", "powersgd", "topk", "local_sgd"}
SPANS = {"data", "forward", "backward", "iteration"}


def profiled(result_path):
    """result_path: result.json, or result.json.gz beside it as committed results keep it."""
    if not os.path.exists(result_path):
        result_path += ".gz"
    try:
        with (gzip.open if result_path.endswith(".gz") else open)(result_path) as f:
            c = json.load(f)["config"]
    except (OSError, KeyError, ValueError):
        return False
    return (c.get("mode") == "blocking" and c.get("sync") not in LOSSY
            and c.get("slow_rank", -1) < 0)


def cut(src, dst):
    trace = json.load(open(src))
    keep = [e for e in trace["traceEvents"]
            if (e.get("ph") == "X" and e.get("name") in SPANS)
            or (e.get("ph") == "i" and e.get("name") == "gradient ready")]
    with gzip.open(dst, "wt", compresslevel=9) as out:
        json.dump({"traceEvents": keep, "displayTimeUnit": trace.get("displayTimeUnit", "ms")},
                  out, separators=(",", ":"))


def main(src, dst):
    for root, _, files in os.walk(src):
        target = os.path.join(dst, os.path.relpath(root, src))
        status = os.path.join(root, "status.json")
        bottleneck = False
        if os.path.exists(status):
            network = json.load(open(status)).get("network") or {}
            bottleneck = bool(network.get("bottleneck_rate"))
        for name in files:
            path = os.path.join(root, name)
            if name in ("trace.json", "trace.json.gz"):
                if profiled(os.path.join(root, "result.json")) and not bottleneck:
                    os.makedirs(target, exist_ok=True)
                    cut(path if name == "trace.json" else gzip.open(path), os.path.join(target, "trace.json.gz"))
                continue
            os.makedirs(target, exist_ok=True)
            shutil.copy2(path, os.path.join(target, name))


if __name__ == "__main__":
    main(*sys.argv[1:3])
