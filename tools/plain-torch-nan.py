#!/usr/bin/env python3
# LeNet-5 on MNIST in plain PyTorch, without any of dtbench's code, one thread, with every
# convolution's and linear layer's output and every gradient checked for NaN or infinity after
# each step: whether an intermittent NaN is the installed PyTorch's own (docs/testing.md).
# A fresh model every PER_MODEL steps, as each benchmark of bench_train starts one.
#   usage: tools/plain-torch-nan.py DATA_DIR STEPS [SEED [PER_MODEL [BATCH]]]
# Prints a line per step found not finite, then "STEPS steps, N with a NaN"; exit 1 when N > 0.
import gzip
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def idx(path):
    """An MNIST file in its official IDX format, as a uint8 tensor."""
    with gzip.open(path) as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return torch.frombuffer(bytearray(raw[4 + 4 * ndim:]), dtype=torch.uint8).reshape(dims)


class LeNet5(nn.Module):
    """dtbench's LeNet-5 (trainers/models/lenet5.cpp): tanh, average pooling, 32x32 input."""

    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 6, 5), nn.Conv2d(6, 16, 5)
        self.conv3 = nn.Conv2d(16, 120, 5)
        self.fc1, self.fc2 = nn.Linear(120, 84), nn.Linear(84, 10)

    def forward(self, x, bad):
        def check(name, t):
            if not torch.isfinite(t).all():
                bad.append(name)
            return t

        x = F.avg_pool2d(torch.tanh(check("conv1", self.conv1(x))), 2)
        x = F.avg_pool2d(torch.tanh(check("conv2", self.conv2(x))), 2)
        x = torch.tanh(check("conv3", self.conv3(x))).flatten(1)
        return check("fc2", self.fc2(torch.tanh(check("fc1", self.fc1(x)))))


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: tools/plain-torch-nan.py DATA_DIR STEPS [SEED [PER_MODEL [BATCH]]]")
    data_dir, steps = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    per_model = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    batch = int(sys.argv[5]) if len(sys.argv) > 5 else 64
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    images = idx(f"{data_dir}/mnist/train-images-idx3-ubyte.gz").float()
    labels = idx(f"{data_dir}/mnist/train-labels-idx1-ubyte.gz").long()
    # MNIST's normalisation, padded from 28 to 32 with the value of a black pixel.
    images = F.pad((images / 255.0 - 0.1307) / 0.3081, (2, 2, 2, 2), value=-0.1307 / 0.3081)
    images = images.unsqueeze(1).contiguous()
    found, step, began = 0, 0, time.time()
    while step < steps:
        model = LeNet5()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        for iteration in range(per_model):
            step += 1
            pick = torch.randint(0, images.shape[0], (batch,))
            bad = []
            opt.zero_grad(set_to_none=False)
            loss = F.cross_entropy(model(images[pick], bad), labels[pick])
            loss.backward()
            bad += [f"grad {n}" for n, p in model.named_parameters()
                    if not torch.isfinite(p.grad).all()]
            if bad:
                found += 1
                print(f"step {step} (iteration {iteration}): not finite: {', '.join(bad)}",
                      flush=True)
                break  # a fresh model: a NaN in the weights would repeat in every later step
            opt.step()
            if step >= steps:
                break
    print(f"torch {torch.__version__}: {step} steps, {found} with a NaN, "
          f"{time.time() - began:.0f} s")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
