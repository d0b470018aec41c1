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

}  // namespace dtbench
