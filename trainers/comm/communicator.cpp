#include "comm/communicator.h"

#include <ATen/ATen.h>

#include <fmt/core.h>

#include <algorithm>

namespace dtbench {
namespace {

int64_t bytes_of(const at::Tensor& t) {
  return t.numel() * static_cast<int64_t>(t.element_size());
}

bool carried(at::ScalarType type) {
  for (at::ScalarType c : kCarriedTypes) {
    if (c == type) return true;
  }
  return false;
}

void check_buffer(const at::Tensor& t, const char* what) {
  if (t.defined() && (!t.is_contiguous() || !carried(t.scalar_type()) || !t.is_cpu())) {
    throw std::invalid_argument(fmt::format(
        "{}: needs a contiguous CPU tensor of float32, float64, float16, int32, int64 or uint8 "
        "(got {})",
        what, t.defined() ? c10::toString(t.scalar_type()) : "undefined"));
  }
}

}  // namespace

// Payload accounting (docs/communicators.md): what this rank must hand over so that the others
// get their result, and what it must receive to get its own; nothing for one rank alone.

void Communicator::allreduce(at::Tensor& t, ReduceOp op) {
  check_buffer(t, "allreduce");
  do_allreduce(t, op);
  if (size() > 1) count(bytes_of(t), bytes_of(t));
}

void Communicator::reduce(at::Tensor& t, int root) {
  check_buffer(t, "reduce");
  do_reduce(t, root);
  if (size() > 1) rank() == root ? count(0, (size() - 1) * bytes_of(t)) : count(bytes_of(t), 0);
}

void Communicator::broadcast(at::Tensor& t, int root) {
  check_buffer(t, "broadcast");
  do_broadcast(t, root);
  if (size() > 1) rank() == root ? count(bytes_of(t), 0) : count(0, bytes_of(t));
}

void Communicator::gather(const at::Tensor& in, at::Tensor& out, int root) {
  check_buffer(in, "gather");
  do_gather(in, out, root);
  if (size() > 1) rank() == root ? count(0, (size() - 1) * bytes_of(in)) : count(bytes_of(in), 0);
}

void Communicator::scatter(const at::Tensor& in, at::Tensor& out, int root) {
  check_buffer(out, "scatter");
  do_scatter(in, out, root);
  if (size() > 1) {
    rank() == root ? count((size() - 1) * bytes_of(out), 0) : count(0, bytes_of(out));
  }
}

void Communicator::allgather(const at::Tensor& in, at::Tensor& out) {
  check_buffer(in, "allgather");
  do_allgather(in, out);
  if (size() > 1) count(bytes_of(in), (size() - 1) * bytes_of(in));
}

void Communicator::reduce_scatter(const at::Tensor& in, at::Tensor& out) {
  check_buffer(in, "reduce_scatter");
  do_reduce_scatter(in, out);
  if (size() > 1) count((size() - 1) * bytes_of(out), (size() - 1) * bytes_of(out));
}

void Communicator::barrier() {
  do_barrier();
}

std::unique_ptr<Request> Communicator::isend(const at::Tensor& t, int peer, int tag) {
  check_buffer(t, "isend");
  count(bytes_of(t), 0);
  return do_isend(t, peer, tag);
}

std::unique_ptr<Request> Communicator::irecv(at::Tensor& t, int peer, int tag) {
  check_buffer(t, "irecv");
  count(0, bytes_of(t));
  return do_irecv(t, peer, tag);
}

std::unique_ptr<Request> Communicator::iallreduce(at::Tensor& t) {
  check_buffer(t, "iallreduce");
  if (size() > 1) count(bytes_of(t), bytes_of(t));
  return do_iallreduce(t);
}

void max_over_ranks(Communicator& comm, std::vector<double>& values) {
  if (values.empty() || comm.size() == 1) return;
  at::Tensor t = at::empty({static_cast<int64_t>(values.size())}, at::kDouble);
  double* data = t.data_ptr<double>();
  std::copy(values.begin(), values.end(), data);
  comm.allreduce(t, ReduceOp::max);
  std::copy(data, data + values.size(), values.begin());
}

}  // namespace dtbench
