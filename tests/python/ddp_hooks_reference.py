#!/usr/bin/python3
"""PyTorch's own DDP communication hooks (the python3-torch of the stack: 1.13 or 2.6) (fp16_compress_hook, powerSGD_hook) on seeded
gradients, as the reference for dtbench's fp16 and powersgd strategies (python_hooks_test.sh).

  reference: ddp_hooks_reference.py run --hook H --ranks N --dir D [--iterations T] [--rank-r R]
                                     [--start S]
      N gloo processes on loopback; rank r writes D/rank<r>/in<t>.bin (its gradients of step t,
      parameters in model order, float32) and D/rank<r>/want<t>.bin (what the hook left).
  compare:   ddp_hooks_reference.py compare --dir D --ranks N --iterations T --tolerance X
      reads D/rank<r>/got<t>.bin (dtbench's, written by dtbench_hook_replay) and prints the
      largest relative difference per step; exits 1 above the tolerance.

The hooks get a stand-in for DDP's GradBucket: one bucket holding every parameter in reverse
model order, as DDP (and dtbench's bucketed engine) packs them, gradients viewing the buffer.
"""
import argparse
import os
import socket
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

# PyTorch 2.x's TCPStore serves through libuv unless told not to; Debian's torch is built without
# it (1.13 ignores the variable).
os.environ.setdefault("USE_LIBUV", "0")
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook

# LeNet-5's parameters and one more (84, 120): shapes PowerSGD compresses, shapes it does not,
# and two of a shape (they share a group).
SHAPES = [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,), (120, 256), (120,), (84, 120), (84,),
          (84, 120), (10, 84), (10,)]


class Bucket:
    """What the hooks call of torch.distributed.GradBucket."""

    def __init__(self, grads):
        ordered = list(reversed(grads))
        self._buffer = torch.cat([g.reshape(-1) for g in ordered])
        self._grads, at = [], 0
        for g in ordered:
            self._grads.append(self._buffer[at:at + g.numel()].view(g.shape))
            at += g.numel()

    def buffer(self):
        return self._buffer

    def gradients(self):
        return self._grads

    def index(self):
        return 0

    def is_last(self):
        return True

    def in_model_order(self):
        return torch.cat([g.reshape(-1) for g in reversed(self._grads)])


def seeded_gradients(rank, step):
    g = torch.Generator().manual_seed(1000 * rank + step)
    return [torch.randn(shape, generator=g) for shape in SHAPES]


def run_rank(rank, args, port):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=args.ranks)
    out = os.path.join(args.dir, f"rank{rank}")
    os.makedirs(out, exist_ok=True)
    state = powerSGD_hook.PowerSGDState(process_group=None, matrix_approximation_rank=args.rank_r,
                                        start_powerSGD_iter=args.start)
    for step in range(args.iterations):
        grads = seeded_gradients(rank, step)
        torch.cat([g.reshape(-1) for g in grads]).numpy().tofile(f"{out}/in{step}.bin")
        bucket = Bucket(grads)
        if args.hook == "fp16":
            default_hooks.fp16_compress_hook(None, bucket).wait()
        else:
            powerSGD_hook.powerSGD_hook(state, bucket).wait()
        bucket.in_model_order().numpy().tofile(f"{out}/want{step}.bin")
    # Every rank leaves together: with PyTorch 2.6, rank 0 (the store's host) hung in
    # destroy_process_group in 2 of 8 runs once rank 1 had left it.
    dist.barrier()
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(args):
    os.makedirs(args.dir, exist_ok=True)
    with open(os.path.join(args.dir, "shapes.txt"), "w") as f:
        for shape in SHAPES:
            f.write(" ".join(str(d) for d in shape) + "\n")
    torch.set_num_threads(1)
    mp.start_processes(run_rank, args=(args, free_port()), nprocs=args.ranks, join=True,
                       start_method="fork")


def compare(args):
    worst = 0.0
    for step in range(args.iterations):
        diff, scale = 0.0, 1e-30
        for rank in range(args.ranks):
            base = os.path.join(args.dir, f"rank{rank}")
            want = np.fromfile(f"{base}/want{step}.bin", dtype=np.float32).astype(np.float64)
            got = np.fromfile(f"{base}/got{step}.bin", dtype=np.float32).astype(np.float64)
            if want.shape != got.shape:
                print(f"step {step} rank {rank}: {got.size} values, the reference has {want.size}")
                return 1
            diff = max(diff, float(np.abs(got - want).max()))
            scale = max(scale, float(np.abs(want).max()))
        print(f"step {step}: largest difference {diff / scale:.3g} of the largest value")
        worst = max(worst, diff / scale)
    verdict = "within" if worst <= args.tolerance else "ABOVE"
    print(f"{args.ranks} ranks: largest relative difference {worst:.3g}, {verdict} the tolerance "
          f"{args.tolerance:g}")
    return 0 if worst <= args.tolerance else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--hook", choices=["fp16", "powersgd"], required=True)
    r.add_argument("--rank-r", type=int, default=1)
    r.add_argument("--start", type=int, default=2)
    c = sub.add_parser("compare")
    c.add_argument("--tolerance", type=float, required=True)
    for p in (r, c):
        p.add_argument("--ranks", type=int, required=True)
        p.add_argument("--dir", required=True)
        p.add_argument("--iterations", type=int, default=5)
    args = parser.parse_args()
    return run(args) if args.command == "run" else compare(args)


if __name__ == "__main__":
    sys.exit(main())
