#pragma once
// Checks of the distributed trainer that run the same on any Communicator (Gloo ranks as
// threads in trainer_test.cpp, OpenMPI ranks as processes in mpi_main.cpp).
#include <string>
#include <vector>

#include "comm/communicator.h"
#include "record/config.h"

namespace dtbench::testing {

// LeNet-5 on a small generated MNIST in data_dir: global batch 24, one thread, no evaluation.
TrainConfig tiny_lenet_config(const std::string& data_dir);

// The global training losses of the first `iterations` iterations with this strategy and
// mode on comm's ranks.
std::vector<double> losses_with(Communicator& comm, TrainConfig config, const std::string& sync,
                                const std::string& mode, int iterations);

// The largest |a[i] - b[i]|; 1e9 when the lengths differ.
double max_difference(const std::vector<double>& a, const std::vector<double>& b);

// The strategies whose losses must match the single-process run (every one but none and the
// lossy ones).
std::vector<std::string> synchronising_strategies();

// The lossy strategies in training (docs/compression.md): local_sgd with H = 1 and topk with
// k = 100% give allreduce's losses (to 1e-4); local_sgd with H = 4 over an epoch whose steps do not
// divide by 4 passes the replica check (it averages before). Returns what went wrong, one line
// each. Collective.
std::vector<std::string> lossy_training_problems(Communicator& comm, const std::string& data_dir);

}  // namespace dtbench::testing
