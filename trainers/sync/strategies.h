#pragma once
// The data movement of each per-tensor strategy, one file each (docs/strategies.md gives the
// steps and bytes on the wire). Each leaves the SUM over ranks in t on every rank.
#include <ATen/core/Tensor.h>

#include "comm/communicator.h"

namespace dtbench {

void gather_scatter_sum(at::Tensor& t, Communicator& comm);
void reduce_broadcast_sum(at::Tensor& t, Communicator& comm);
void allreduce_sum(at::Tensor& t, Communicator& comm);
void allgather_sum(at::Tensor& t, Communicator& comm);
void ring_reduce_sum(at::Tensor& t, Communicator& comm);
void ring_allreduce_sum(at::Tensor& t, Communicator& comm);

// A buffer of numel elements kept by the calling thread from call to call, grown when a call
// needs more (its contents are whatever the last call left). The strategies that gather n
// copies of a tensor use it: allocating them afresh on every call had the kernel fault in
// every page of each large one on every iteration (measured with --trace on VGG-11; see
// docs/measurements.md).
at::Tensor reused_buffer(int64_t numel, const at::TensorOptions& options);

}  // namespace dtbench
