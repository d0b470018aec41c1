#pragma once
// Checks of every gradient-synchronisation strategy that run the same on any Communicator:
// ranks as threads over Gloo (sync_gloo_test.cpp) and ranks as processes under mpirun
// (mpi_main.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "comm/communicator.h"
#include "sync/grad_sync.h"

namespace dtbench::testing {

using Shapes = std::vector<std::vector<int64_t>>;

// Sizes that break naive chunking: empty, one element, odd, fewer elements than ranks.
Shapes awkward_shapes();
// The 34 gradient tensors of VGG-11, 9,231,114 elements.
Shapes vgg11_shapes();

// Runs strategy `name` for two steps on parameters of these shapes, each rank's gradient
// element a seeded function of (rank, step, tensor, element). Returns the largest error of
// any synchronised gradient against the reference (mean or sum over ranks, computed in double
// on every rank), relative to the largest reference magnitude; -1 if a step's finish()
// answered wrongly whether a gradient is to be applied (stale mode: not on the first step).
// A strategy that plans from time gets a Timeline after the first step.
double strategy_error(Communicator& comm, const std::string& name, SyncMode mode,
                      Aggregate aggregate, const Shapes& shapes, double bucket_mb = 0.001);
// The same with every option given (the compressing strategies' own).
double strategy_error(Communicator& comm, const std::string& name, const SyncOptions& options,
                      const Shapes& shapes);

// One step of sync on params: each gets the gradient grads[i] through backward (so that overlap
// mode's hooks fire), then finish() runs; returns what finish() answered.
bool step_with(GradSync& sync, std::vector<at::Tensor>& params,
               const std::vector<at::Tensor>& grads);

// The gradient rank r produces for tensor i at step s: values in [-1, 1).
at::Tensor seeded_gradient(int r, int s, size_t i, const std::vector<int64_t>& shape);

// Every (strategy, mode) pair the catalogue of methods offers that forms the exact aggregate:
// "none" and the lossy strategies (compression, local SGD) excluded.
std::vector<std::pair<std::string, SyncMode>> all_strategy_modes();

// Every operation of the Communicator on every type it carries (kCarriedTypes): results,
// payload counted in the type's own bytes, texts of different lengths, exact maxima of
// doubles. Returns what went wrong, one line each; empty when all is right. Collective.
std::vector<std::string> typed_operation_problems(Communicator& comm);

// Communicator::split: by parity, each part ranked in order and summing its own ranks only,
// its payload counted in the whole's traffic(); a negative color gets no communicator.
// Returns what went wrong, one line each. Collective.
std::vector<std::string> split_problems(Communicator& comm);

// Whether a strategy runs over this backend and aggregate (c10d_ddp: Gloo, mean only).
bool supports(const std::string& strategy, const std::string& backend, Aggregate aggregate);

}  // namespace dtbench::testing
