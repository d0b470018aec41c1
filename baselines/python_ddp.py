#!/usr/bin/python3
"""PyTorch's Python DDP on the configuration bench_train measures, for the side-by-side ratio.

    mpirun -np 4 --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 \
        /usr/bin/python3 baselines/python_ddp.py --data-dir $DATA_DIR --out ddp.json

VGG-11 (BatchNorm, as dtbench's) on CIFAR-10 binary files, global batch 256 split over the
ranks, SGD lr 0.1 momentum 0.9 weight decay 1e-4, random crop 32 pad 4 + flip, DDP over Gloo
(bucket 25 MiB). The time of an iteration is data + forward + backward (DDP's allreduce
included) + step, the slowest rank's; the figure is the mean of iterations 1..39. Uses
Debian's python3-torch (the same libtorch 1.13 as dtbench).
"""
import argparse
import json
import os
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

CFG = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]
MEAN = np.array([125.3, 123.0, 113.9], dtype=np.float32) / 255
STD = np.array([63.0, 62.1, 66.7], dtype=np.float32) / 255


class Vgg11(nn.Module):
    def __init__(self):
        super().__init__()
        layers, channels = [], 3
        for width in CFG:
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


def load_cifar_train(data_dir):
    records = [np.fromfile(os.path.join(data_dir, "cifar-10-batches-bin", f"data_batch_{i}.bin"),
                           dtype=np.uint8).reshape(-1, 3073) for i in range(1, 6)]
    records = np.concatenate(records)
    return records[:, 1:].reshape(-1, 3, 32, 32), records[:, 0].astype(np.int64)


def make_batch(images, labels, indices, rng):
    padded = np.pad(images[indices], ((0, 0), (0, 0), (4, 4), (4, 4)))
    out = np.empty((len(indices), 3, 32, 32), dtype=np.uint8)
    for k in range(len(indices)):
        dy, dx = rng.integers(0, 9, size=2)
        crop = padded[k, :, dy:dy + 32, dx:dx + 32]
        out[k] = crop[:, :, ::-1] if rng.integers(0, 2) else crop
    x = (out.astype(np.float32) / 255 - MEAN[:, None, None]) / STD[:, None, None]
    return torch.from_numpy(x), torch.from_numpy(labels[indices])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", default=os.environ.get("DATA_DIR", "data"))
    parser.add_argument("--global-batch", type=int, default=256)
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--master", default="127.0.0.1:29531")
    parser.add_argument("--out", default="")
    args = parser.parse_args()

    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", 0))
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", 1))
    local = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE", 1))
    torch.set_num_threads(args.threads or max(1, os.cpu_count() // local))
    dist.init_process_group("gloo", init_method=f"tcp://{args.master}", rank=rank,
                            world_size=world)
    torch.manual_seed(1)
    model = nn.parallel.DistributedDataParallel(Vgg11(), bucket_cap_mb=25)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    images, labels = load_cifar_train(args.data_dir)
    order = np.random.default_rng(1).permutation(len(labels))
    rng = np.random.default_rng(100 + rank)

    times = []
    for it in range(args.iterations):
        start = time.perf_counter()
        first = it * args.global_batch + rank
        x, y = make_batch(images, labels, order[first:first + args.global_batch:world], rng)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        elapsed = torch.tensor([time.perf_counter() - start])
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
        times.append(elapsed.item())
    timed = times[1:40]
    if rank == 0:
        result = {"baseline": "python_ddp", "torch": torch.__version__, "world_size": world,
                  "global_batch": args.global_batch, "threads": torch.get_num_threads(),
                  "iteration_s": times, "mean_1_39_s": sum(timed) / len(timed)}
        print(f"Average time per iteration (iterations 1-{len(timed)}): "
              f"{result['mean_1_39_s']:.4f} s")
        if args.out:
            with open(args.out, "w") as f:
                json.dump(result, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
