#pragma once
// One Communicator per process: a thin layer over a backend (mpi, gloo, or self for a single
// process). Every operation works on contiguous CPU tensors of one of kCarriedTypes, in their
// own type (a sum of float16 is summed in float16), blocks until this rank's part is done
// (except the i* calls), and counts the payload bytes this rank hands over and receives
// (application level, see docs/communicators.md), so that strategies never count.
#include <ATen/core/Tensor.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/trace_log.h"

namespace dtbench {

struct Traffic {
  int64_t sent_bytes = 0;
  int64_t received_bytes = 0;
};

// A nonblocking operation in flight; wait() returns when this rank's part is complete.
class Request {
 public:
  virtual ~Request() = default;
  virtual void wait() = 0;
  // True once complete. An iallreduce moves on without it (Gloo's threads; for MPI, the
  // communicator's progress thread); isend and irecv are for exchanges waited for soon after.
  virtual bool test() = 0;
  // When the operation completed, if the backend saw it happen (MPI's progress thread, Gloo's
  // completion callback); else nothing, and only the wait() or test() that found it done knows
  // (later, if nobody looked).
  virtual std::optional<TraceLog::Clock::time_point> completed_at() const { return std::nullopt; }
};

enum class ReduceOp { sum, max };

// The element types every backend carries, reductions included.
inline constexpr at::ScalarType kCarriedTypes[] = {at::kFloat, at::kDouble, at::kHalf,
                                                   at::kInt,   at::kLong,   at::kByte};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string backend() const = 0;
  // A new communicator over the same ranks whose operations never match this one's: lets
  // two threads run collectives side by side (collective; every rank must call it).
  virtual std::unique_ptr<Communicator> duplicate() = 0;
  // Collective: a communicator over the ranks that pass the same color (>= 0), ranked in this
  // one's rank order, whose operations never match this one's; nullptr for a negative color
  // (MPI_Comm_split's MPI_UNDEFINED). Its payload counts into this communicator's traffic().
  std::unique_ptr<Communicator> split(int color);

  // t = sum (or max) over ranks of t, on every rank.
  void allreduce(at::Tensor& t, ReduceOp op = ReduceOp::sum);
  // On root, t = sum over ranks of t; elsewhere t's contents are unspecified afterwards.
  void reduce(at::Tensor& t, int root);
  // t = root's t, on every rank.
  void broadcast(at::Tensor& t, int root);
  // On root, out (size() * in.numel()) = every rank's in, in rank order; out unused elsewhere.
  void gather(const at::Tensor& in, at::Tensor& out, int root);
  // out = root's in[rank * out.numel() ..], in (size() * out.numel()) read on root only.
  void scatter(const at::Tensor& in, at::Tensor& out, int root);
  // out (size() * in.numel()) = every rank's in, in rank order, on every rank.
  void allgather(const at::Tensor& in, at::Tensor& out);
  // out (chunk) = sum over ranks of in[rank * chunk ..], in holding size() chunks.
  void reduce_scatter(const at::Tensor& in, at::Tensor& out);
  void barrier();
  std::unique_ptr<Request> isend(const at::Tensor& t, int peer, int tag);
  std::unique_ptr<Request> irecv(at::Tensor& t, int peer, int tag);
  // Nonblocking allreduce(sum) of t in place.
  std::unique_ptr<Request> iallreduce(at::Tensor& t);

  Traffic traffic() const { return {counts_->sent.load(), counts_->received.load()}; }
  // For traffic a library moves over this communicator's connections without these calls
  // (c10d::Reducer over the Gloo process group).
  void count_payload(int64_t sent, int64_t received) { count(sent, received); }
  // Records each operation from here on, and its splits' (docs/traces.md), as a span in log:
  // a blocking one from call to return, a nonblocking one (an async span) from launch until
  // its wait() or test() sees it complete.
  void trace_into(std::shared_ptr<TraceLog> log) { trace_ = std::move(log); }
  // The log set by trace_into (null when not tracing), for operations a library runs over this
  // communicator's connections without these calls (c10d::Reducer's, through a comm hook).
  std::shared_ptr<TraceLog> trace_log() const { return trace_; }

 protected:
  virtual void do_allreduce(at::Tensor& t, ReduceOp op) = 0;
  virtual void do_reduce(at::Tensor& t, int root) = 0;
  virtual void do_broadcast(at::Tensor& t, int root) = 0;
  virtual void do_gather(const at::Tensor& in, at::Tensor& out, int root) = 0;
  virtual void do_scatter(const at::Tensor& in, at::Tensor& out, int root) = 0;
  virtual void do_allgather(const at::Tensor& in, at::Tensor& out) = 0;
  virtual void do_reduce_scatter(const at::Tensor& in, at::Tensor& out) = 0;
  virtual void do_barrier() = 0;
  virtual std::unique_ptr<Request> do_isend(const at::Tensor& t, int peer, int tag) = 0;
  virtual std::unique_ptr<Request> do_irecv(at::Tensor& t, int peer, int tag) = 0;
  virtual std::unique_ptr<Request> do_iallreduce(at::Tensor& t) = 0;
  // This rank's part of split(), called on every rank: the new communicator over `size` ranks
  // in which it is `rank` (nullptr for a negative color), every rank of the same color calling
  // it with the same size and serial (the split's place among this communicator's splits).
  virtual std::unique_ptr<Communicator> do_split(int color, int rank, int size, int serial) = 0;

 private:
  struct Counts {
    std::atomic<int64_t> sent{0}, received{0};
  };
  void count(int64_t sent, int64_t received) {
    counts_->sent += sent;
    counts_->received += received;
  }
  // A span of operation `name` moving this rank's `bytes`; records nothing when not tracing.
  ScopedSpan span(const char* name, int64_t bytes) const;
  std::unique_ptr<Request> traced(std::unique_ptr<Request> request, const char* name,
                                  int64_t bytes) const;
  std::shared_ptr<Counts> counts_ = std::make_shared<Counts>();
  std::shared_ptr<TraceLog> trace_;
  int splits_ = 0;
};

// Collective: replaces each element of values by its maximum over ranks (carried as float64:
// exact, every rank ends with the same values).
void max_over_ranks(Communicator& comm, std::vector<double>& values);

}  // namespace dtbench
