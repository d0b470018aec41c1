#!/usr/bin/python3
"""PyTorch's Python DDP on the configuration of a dtbench training experiment.

    mpirun -np 4 --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 \\
        /usr/bin/python3 baselines/python_ddp.py --data-dir $DATA_DIR --master 127.0.0.1:29531 \\
        --out ddp.json

`dtbench run` launches it as the experiment kind python_ddp, with the hosts, ranks, threads and
data of the other experiments. VGG-11 on CIFAR-10 (random crop 32 pad 4 + flip; SGD lr 0.1,
momentum 0.9, weight decay 1e-4) or LeNet-5 on MNIST (SGD lr 0.01), the global batch split
over the ranks as dtbench splits it (rank r takes positions r, r+n, ... of the epoch's
permutation), DistributedDataParallel over Gloo with bucket_cap_mb. An iteration is data +
forward + backward (DDP's allreduce runs inside it) + step; its time is the slowest rank's.
It writes a dtbench.run/2 record (sync "python_ddp", backend "gloo"), so the report reads it
like any other run. Uses Debian's python3-torch, the same libtorch as dtbench, which has no
MPI backend: the record says so (system.torch_mpi_available).
"""
import argparse
import datetime
import gzip
import json
import os
import resource
import socket
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

# PyTorch 2.x's TCPStore serves through libuv unless told not to; Debian's torch is built without
# it (1.13 ignores the variable).
os.environ.setdefault("USE_LIBUV", "0")

VGG_CFG = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]
CIFAR_MEAN = np.array([125.3, 123.0, 113.9], dtype=np.float32) / 255
CIFAR_STD = np.array([63.0, 62.1, 66.7], dtype=np.float32) / 255


class Vgg11(nn.Module):
    def __init__(self):
        super().__init__()
        layers, channels = [], 3
        for width in VGG_CFG:
            if width == "M":
                layers.append(nn.MaxPool2d(2, 2))
            else:
                layers += [nn.Conv2d(channels, width, 3, padding=1), nn.BatchNorm2d(width),
                           nn.ReLU(inplace=True)]
                channels = width
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(512, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 6, 5), nn.Conv2d(6, 16, 5)
        self.conv3, self.fc1, self.fc2 = nn.Conv2d(16, 120, 5), nn.Linear(120, 84), nn.Linear(84, 10)

    def forward(self, x):
        x = F.avg_pool2d(torch.tanh(self.conv1(x)), 2)
        x = F.avg_pool2d(torch.tanh(self.conv2(x)), 2)
        x = torch.flatten(torch.tanh(self.conv3(x)), 1)
        return self.fc2(torch.tanh(self.fc1(x)))


def load_cifar(data_dir):
    files = [os.path.join(data_dir, "cifar-10-batches-bin", f"data_batch_{i}.bin")
             for i in range(1, 6)]
    records = np.concatenate([np.fromfile(f, dtype=np.uint8).reshape(-1, 3073) for f in files])
    return records[:, 1:].reshape(-1, 3, 32, 32), records[:, 0].astype(np.int64), files


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * k:8 + 4 * k], "big") for k in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load_mnist(data_dir):
    def find(stem):
        for name in (stem + ".gz", stem):
            path = os.path.join(data_dir, "mnist", name)
            if os.path.exists(path):
                return path
        raise SystemExit(f"python_ddp: error: no {stem}[.gz] in {data_dir}/mnist")
    images, labels = find("train-images-idx3-ubyte"), find("train-labels-idx1-ubyte")
    return read_idx(images)[:, None], read_idx(labels).astype(np.int64), [images, labels]


def cifar_batch(images, labels, indices, rng):
    padded = np.pad(images[indices], ((0, 0), (0, 0), (4, 4), (4, 4)))
    out = np.empty((len(indices), 3, 32, 32), dtype=np.uint8)
    for k in range(len(indices)):
        dy, dx = rng.integers(0, 9, size=2)
        crop = padded[k, :, dy:dy + 32, dx:dx + 32]
        out[k] = crop[:, :, ::-1] if rng.integers(0, 2) else crop
    x = (out.astype(np.float32) / 255 - CIFAR_MEAN[:, None, None]) / CIFAR_STD[:, None, None]
    return torch.from_numpy(x), torch.from_numpy(labels[indices])


def mnist_batch(images, labels, indices, rng):
    x = np.pad(images[indices], ((0, 0), (0, 0), (2, 2), (2, 2))).astype(np.float32)
    x = (x / 255 - 0.1307) / 0.3081
    return torch.from_numpy(x), torch.from_numpy(labels[indices])


MODELS = {  # model -> (class, dataset, loader, batch maker, learning rate, momentum, weight decay)
    "vgg11": (Vgg11, "cifar10", load_cifar, cifar_batch, 0.1, 0.9, 1e-4),
    "lenet5": (LeNet5, "mnist", load_mnist, mnist_batch, 0.01, 0.9, 1e-4),
}


def malloc_settings():
    """As dtbench's system.malloc says it: glibc's defaults unless the environment sets them."""
    names = ("GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")
    given = [f"{n}={os.environ[n]}" for n in names if n in os.environ]
    return f"environment ({' '.join(given)})" if given else "glibc default"


def cpu_kernel_settings():
    """As dtbench's system.cpu_kernels says it: oneDNN's own choice unless the environment
    holds it lower."""
    value = os.environ.get("ONEDNN_MAX_CPU_ISA", "")
    return f"environment (ONEDNN_MAX_CPU_ISA={value})" if value else "oneDNN default"


def nic_counters():
    counters = {}
    with open("/proc/net/dev") as f:
        for line in f.readlines()[2:]:
            name, fields = line.split(":", 1)
            values = fields.split()
            counters[name.strip()] = (int(values[8]), int(values[0]))  # (sent, received)
    return counters


def rank_usage(rank, wall0, usage0, nic0, times, faults, payload):
    usage = resource.getrusage(resource.RUSAGE_SELF)
    wall = time.perf_counter() - wall0
    user, system = usage.ru_utime - usage0.ru_utime, usage.ru_stime - usage0.ru_stime
    nic = {}
    for name, (sent, received) in nic_counters().items():
        before = nic0.get(name, (0, 0))
        nic[name] = {"sent_bytes": sent - before[0], "received_bytes": received - before[1]}
    cores = os.cpu_count()
    return {"rank": rank, "host": socket.gethostname(), "wall_s": wall, "user_s": user,
            "sys_s": system, "cpu_utilisation": (user + system) / wall / cores,
            "peak_rss_bytes": usage.ru_maxrss * 1024, "cores": cores,
            "payload_sent_bytes": payload, "payload_received_bytes": payload, "nic": nic,
            "iteration_s": times, "iteration_minor_faults": faults}


def cpu_list(cpus):
    """The CPUs as ranges, as /proc/PID/status's Cpus_allowed_list (and dtbench) writes them."""
    runs, cpus = [], sorted(cpus)
    for cpu in cpus:
        if runs and cpu == runs[-1][1] + 1:
            runs[-1][1] = cpu
        else:
            runs.append([cpu, cpu])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def launcher_local_ranks(env):
    """The launcher's count of ranks on this node, as dtbench's common/thread_share.cpp reads it."""
    if env.get("OMPI_COMM_WORLD_LOCAL_SIZE"):
        return int(env["OMPI_COMM_WORLD_LOCAL_SIZE"]), "OMPI_COMM_WORLD_LOCAL_SIZE"
    per_node, node = env.get("SLURM_STEP_TASKS_PER_NODE"), env.get("SLURM_NODEID")
    if per_node and node:
        counts = []
        for part in per_node.split(","):
            tasks, _, repeat = part.partition("(x")
            counts += [int(tasks)] * (int(repeat.rstrip(")")) if repeat else 1)
        if int(node) < len(counts):
            return counts[int(node)], "SLURM_STEP_TASKS_PER_NODE"
    if env.get("PMIX_LOCAL_SIZE"):
        return int(env["PMIX_LOCAL_SIZE"]), "PMIX_LOCAL_SIZE"
    return 0, ""


def share_threads(asked, env):
    """dtbench's rule (common/thread_share.h): the cores of this rank's cpuset (capped by Slurm's
    CPUs on the node) shared by the ranks on the same machine (kernel boot id) with the same
    cpuset, found among every rank whatever launched them. After init_process_group."""
    with open("/proc/sys/kernel/random/boot_id") as f:
        machine = f.read().strip()
    cpus = os.sched_getaffinity(0)
    cpuset = cpu_list(cpus)
    cores = len(cpus)
    slurm_cpus = int(env.get("SLURM_CPUS_ON_NODE", "0") or 0)
    capped = 0 < slurm_cpus < cores
    cores = slurm_cpus if capped else cores
    places = [None] * dist.get_world_size()
    dist.all_gather_object(places, f"{machine} {cpuset}")
    sharing = max(1, places.count(f"{machine} {cpuset}"))
    local, source = launcher_local_ranks(env)
    return {"threads": asked or max(1, cores // sharing),
            "source": "option" if asked else "shared", "cores": cores,
            "cores_from": "SLURM_CPUS_ON_NODE" if capped else "cpuset", "cpuset": cpuset,
            "ranks_sharing": sharing, "launcher_local_ranks": local, "launcher_source": source}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="vgg11", choices=sorted(MODELS))
    parser.add_argument("--data-dir", default=os.environ.get("DATA_DIR", "data"))
    parser.add_argument("--global-batch", type=int, default=0, help="0: the model's (256, 64)")
    parser.add_argument("--max-iters", type=int, default=40)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bucket-mb", type=float, default=25)
    parser.add_argument("--master", default="127.0.0.1:29531")
    parser.add_argument("--timeout-s", type=int, default=300)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    make_model, dataset, load, make_batch, lr, momentum, weight_decay = MODELS[args.model]
    global_batch = args.global_batch or (256 if args.model == "vgg11" else 64)

    # Started by mpirun (OpenMPI's variables) or by srun (Slurm's: SLURM_STEP_TASKS_PER_NODE is
    # like "2(x2)", the tasks on each node of the step).
    env = os.environ
    rank = int(env.get("OMPI_COMM_WORLD_RANK", env.get("SLURM_PROCID", 0)))
    world = int(env.get("OMPI_COMM_WORLD_SIZE", env.get("SLURM_STEP_NUM_TASKS", 1)))
    if global_batch % world != 0:
        raise SystemExit(f"python_ddp: error: global batch {global_batch} does not divide by "
                         f"{world} ranks")
    wall0, usage0, nic0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF), nic_counters()
    dist.init_process_group("gloo", init_method=f"tcp://{args.master}", rank=rank,
                            world_size=world, timeout=datetime.timedelta(seconds=args.timeout_s))
    threads = share_threads(args.threads, env)
    torch.set_num_threads(threads["threads"])
    torch.manual_seed(args.seed)
    model = nn.parallel.DistributedDataParallel(make_model(), bucket_cap_mb=args.bucket_mb)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum,
                                weight_decay=weight_decay)
    images, labels, files = load(args.data_dir)
    order = np.random.default_rng(args.seed).permutation(len(labels))
    rng = np.random.default_rng(100 + rank)
    gradient_bytes = sum(p.numel() * p.element_size() for p in model.parameters())

    phases = {name: [] for name in ("data", "forward", "backward", "sync", "optimizer")}
    total, losses, own_times, own_faults = [], [], [], []
    own_phases = {name: [] for name in phases}
    steps = len(labels) // global_batch
    for it in range(min(args.max_iters, steps)):
        faults0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t0 = time.perf_counter()
        first = it * global_batch + rank
        x, y = make_batch(images, labels, order[first:first + global_batch:world], rng)
        t1 = time.perf_counter()
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        t2 = time.perf_counter()
        loss.backward()
        t3 = time.perf_counter()
        optimizer.step()
        t4 = time.perf_counter()
        own_faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults0)
        own_times.append(t4 - t0)
        # DDP's Reducer sums the buckets inside backward: no sync phase of its own.
        for name, value in zip(phases, (t1 - t0, t2 - t1, t3 - t2, 0.0, t4 - t3)):
            own_phases[name].append(value)
        # Outside the timed region, as dtbench does: phase means and the global loss over
        # ranks, and the slowest rank's iteration time.
        sums = torch.tensor([loss.item(), t1 - t0, t2 - t1, t3 - t2, 0.0, t4 - t3],
                            dtype=torch.float64)
        dist.all_reduce(sums)
        slowest = torch.tensor([t4 - t0], dtype=torch.float64)
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
        losses.append(sums[0].item() / world)
        for name, value in zip(phases, sums[1:].tolist()):
            phases[name].append(value / world)
        total.append(slowest.item())
    timed = total[1:40]
    if rank == 0 and timed:
        print(f"Average time per iteration (iterations 1-{len(timed)}): "
              f"{sum(timed) / len(timed):.4f} s", flush=True)
    mine = rank_usage(rank, wall0, usage0, nic0, own_times, own_faults,
                      gradient_bytes * len(total))
    mine["threads"] = threads
    mine["phase_s"] = own_phases
    everyone = [None] * world
    dist.all_gather_object(everyone, mine)
    if rank == 0 and args.out:
        record = {
            "schema": "dtbench.run/2",
            "config": {"model": args.model, "dataset": dataset, "data_dir": args.data_dir,
                       "epochs": 1, "max_iters": args.max_iters, "global_batch": global_batch,
                       "lr": lr, "momentum": momentum, "weight_decay": weight_decay,
                       "threads": args.threads, "seed": args.seed, "log_interval": 20,
                       "eval": False, "eval_limit": 0, "eval_batch": 1000, "out": args.out,
                       "world_size": world, "rank": 0, "master": args.master,
                       "sync": "python_ddp", "backend": "gloo", "aggregate": "mean",
                       "mode": "overlap", "bucket_mb": args.bucket_mb,
                       "timeout_s": args.timeout_s, "slow_rank": -1, "slow_ms": 0.0,
                       "fault": "", "train_limit": 0, "trace": "", "powersgd_rank": 1,
                       "powersgd_start": 10, "topk_fraction": 0.01, "local_sgd_period": 8,
                       "ranks_per_host": 0},
            "system": {"engine": "PyTorch DistributedDataParallel (Python)",
                       "torch": torch.__version__,
                       "torch_mpi_available": dist.is_mpi_available(),
                       "malloc": malloc_settings(),
                       "cpu_kernels": cpu_kernel_settings(),
                       "train_files": files},
            "threads": torch.get_num_threads(),
            "bucket_bytes": [],
            "plan_inputs": None,
            "links": [],
            "iterations": {"epoch": [1] * len(total), "step": list(range(1, len(total) + 1)),
                           "loss": losses, **{f"{k}_s": v for k, v in phases.items()},
                           "total_s": total},
            "evaluations": [],
            "ranks": everyone,
        }
        partial = args.out + ".tmp"
        with open(partial, "w") as f:
            json.dump(record, f, indent=1)
        os.replace(partial, args.out)
        print(f"Result record: {args.out}", flush=True)
    # Every rank waits for rank 0's record, then leaves at once: tearing Gloo down at exit can
    # spin (seen with torch 1.13: a rank at 100% CPU after its peers had gone).
    dist.barrier()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
