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

// A nonblocking operation's span: from launch until it completed, as the backend saw it, else
// until a wait() or test() found it complete.
class TracedRequest : public Request {
 public:
  TracedRequest(std::unique_ptr<Request> inner, TraceLog* log, const char* name, TraceArgs args)
      : inner_(std::move(inner)),
        log_(log),
        name_(name),
        args_(args),
        begin_(TraceLog::Clock::now()) {}
  void wait() override {
    inner_->wait();
    done();
  }
  bool test() override {
    const bool complete = inner_->test();
    if (complete) done();
    return complete;
  }
  std::optional<TraceLog::Clock::time_point> completed_at() const override {
    return inner_->completed_at();
  }

 private:
  void done() {
    if (log_ == nullptr) return;
    const auto end = inner_->completed_at().value_or(TraceLog::Clock::now());
    log_->async_span(name_, "comm", begin_, std::max(begin_, end), args_);
    log_ = nullptr;
  }
  std::unique_ptr<Request> inner_;
  TraceLog* log_;
  const char* name_;
  TraceArgs args_;
  TraceLog::Clock::time_point begin_;
};

}  // namespace

ScopedSpan Communicator::span(const char* name, int64_t bytes) const {
  if (!trace_ || !trace_->recording()) return ScopedSpan(nullptr, name, "comm");
  return ScopedSpan(trace_.get(), name, "comm", {{"bytes", bytes}, {"ranks", size()}});
}

std::unique_ptr<Request> Communicator::traced(std::unique_ptr<Request> request, const char* name,
                                              int64_t bytes) const {
  if (!trace_ || !trace_->recording()) return request;
  return std::make_unique<TracedRequest>(std::move(request), trace_.get(), name,
                                         TraceArgs{{"bytes", bytes}, {"ranks", size()}});
}

// Payload accounting (docs/communicators.md): what this rank must hand over so that the others
// get their result, and what it must receive to get its own; nothing for one rank alone.

void Communicator::allreduce(at::Tensor& t, ReduceOp op) {
  check_buffer(t, "allreduce");
  ScopedSpan op_span = span("allreduce", bytes_of(t));
  do_allreduce(t, op);
  if (size() > 1) count(bytes_of(t), bytes_of(t));
}

void Communicator::reduce(at::Tensor& t, int root) {
  check_buffer(t, "reduce");
  ScopedSpan op_span = span("reduce", bytes_of(t));
  do_reduce(t, root);
  if (size() > 1) rank() == root ? count(0, (size() - 1) * bytes_of(t)) : count(bytes_of(t), 0);
}

void Communicator::broadcast(at::Tensor& t, int root) {
  check_buffer(t, "broadcast");
  ScopedSpan op_span = span("broadcast", bytes_of(t));
  do_broadcast(t, root);
  if (size() > 1) rank() == root ? count(bytes_of(t), 0) : count(0, bytes_of(t));
}

void Communicator::gather(const at::Tensor& in, at::Tensor& out, int root) {
  check_buffer(in, "gather");
  ScopedSpan op_span = span("gather", bytes_of(in));
  do_gather(in, out, root);
  if (size() > 1) rank() == root ? count(0, (size() - 1) * bytes_of(in)) : count(bytes_of(in), 0);
}

void Communicator::scatter(const at::Tensor& in, at::Tensor& out, int root) {
  check_buffer(out, "scatter");
  ScopedSpan op_span = span("scatter", bytes_of(out));
  do_scatter(in, out, root);
  if (size() > 1) {
    rank() == root ? count((size() - 1) * bytes_of(out), 0) : count(0, bytes_of(out));
  }
}

void Communicator::allgather(const at::Tensor& in, at::Tensor& out) {
  check_buffer(in, "allgather");
  ScopedSpan op_span = span("allgather", bytes_of(in));
  do_allgather(in, out);
  if (size() > 1) count(bytes_of(in), (size() - 1) * bytes_of(in));
}

void Communicator::reduce_scatter(const at::Tensor& in, at::Tensor& out) {
  check_buffer(in, "reduce_scatter");
  ScopedSpan op_span = span("reduce_scatter", bytes_of(in));
  do_reduce_scatter(in, out);
  if (size() > 1) count((size() - 1) * bytes_of(out), (size() - 1) * bytes_of(out));
}

void Communicator::barrier() {
  ScopedSpan op_span = span("barrier", 0);
  do_barrier();
}

std::unique_ptr<Request> Communicator::isend(const at::Tensor& t, int peer, int tag) {
  check_buffer(t, "isend");
  count(bytes_of(t), 0);
  return traced(do_isend(t, peer, tag), "isend", bytes_of(t));
}

std::unique_ptr<Request> Communicator::irecv(at::Tensor& t, int peer, int tag) {
  check_buffer(t, "irecv");
  count(0, bytes_of(t));
  return traced(do_irecv(t, peer, tag), "irecv", bytes_of(t));
}

std::unique_ptr<Request> Communicator::iallreduce(at::Tensor& t) {
  check_buffer(t, "iallreduce");
  if (size() > 1) count(bytes_of(t), bytes_of(t));
  return traced(do_iallreduce(t), "iallreduce", bytes_of(t));
}

std::unique_ptr<Communicator> Communicator::split(int color) {
  at::Tensor mine = at::full({1}, color, at::kInt);
  at::Tensor colors = at::empty({size()}, at::kInt);
  do_allgather(mine, colors);  // not payload: how the ranks agree on the new communicators
  const int* all = colors.data_ptr<int>();
  const int new_rank = static_cast<int>(std::count(all, all + rank(), color));
  const int new_size = static_cast<int>(std::count(all, all + size(), color));
  std::unique_ptr<Communicator> part = do_split(color, new_rank, new_size, ++splits_);
  if (part) {
    part->counts_ = counts_;
    part->trace_ = trace_;
  }
  return part;
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
