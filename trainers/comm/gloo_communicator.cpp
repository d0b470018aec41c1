#include "comm/gloo_communicator.h"

#include <fmt/core.h>
#include <unistd.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <atomic>
#include <cstdlib>
#include <memory>

#include "catalogue/backends.h"
#include "comm/c10d_adapter.h"
#include "common/error.h"
#include "common/host.h"

namespace dtbench {
namespace {

// Waits for a c10d work item, turning Gloo's failures (timeouts, closed connections) into a
// CommError that names the host and rank.
void wait_for(const c10::intrusive_ptr<c10d::Work>& work, int rank) {
  try {
    work->wait();
  } catch (const std::exception& e) {
    throw CommError(fmt::format("gloo: {} rank {}: {}", host_name(), rank, first_line(e.what())));
  }
}

class GlooRequest : public Request {
 public:
  // watch_completion: the work is a collective (c10d's AsyncWork), whose future Gloo's thread
  // completes; its callback notes the time (at once if already complete). Sends and receives
  // are not watched on either stack: c10d 1.13's have no future (2.6's have one, left unused so
  // that both stacks time them alike).
  GlooRequest(c10::intrusive_ptr<c10d::Work> work, std::vector<at::Tensor> keep_alive, int rank,
              bool watch_completion = false)
      : work_(std::move(work)), tensors_(std::move(keep_alive)), rank_(rank) {
    if (!watch_completion) return;
    work_->getFuture()->addCallback([completed = completed_](c10::ivalue::Future&) {
      completed->store(TraceLog::Clock::now().time_since_epoch().count());
    });
  }
  void wait() override { wait_for(work_, rank_); }
  bool test() override { return work_->isCompleted(); }
  std::optional<TraceLog::Clock::time_point> completed_at() const override {
    const auto ticks = completed_->load();
    if (ticks == kNotYet) return std::nullopt;
    return TraceLog::Clock::time_point(TraceLog::Clock::duration(ticks));
  }

 private:
  static constexpr TraceLog::Clock::rep kNotYet = -1;
  c10::intrusive_ptr<c10d::Work> work_;
  std::vector<at::Tensor> tensors_;
  int rank_;
  std::shared_ptr<std::atomic<TraceLog::Clock::rep>> completed_ =
      std::make_shared<std::atomic<TraceLog::Clock::rep>>(kNotYet);
};

// size() equal views of a flat tensor, in rank order: how c10d takes per-rank buffers.
std::vector<at::Tensor> per_rank_views(const at::Tensor& flat, int size) {
  return flat.view({size, -1}).unbind(0);
}

class GlooCommunicator : public Communicator {
 public:
  GlooCommunicator(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                   std::chrono::milliseconds timeout, bool local)
      : store_(store), rank_(rank), size_(size), timeout_(timeout), local_(local) {
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    const char* ifname = std::getenv("GLOO_SOCKET_IFNAME");
    if (ifname != nullptr && *ifname != '\0') {
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
    } else if (local) {
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    } else {
      options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    options->threads = kGlooThreads;
    try {
      pg_ = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
    } catch (const std::exception& e) {
      throw CommError(
          fmt::format("gloo: rank {} of {}: cannot connect: {}", rank, size, first_line(e.what())));
    }
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "gloo"; }
  // The DDP engine's group over these connections (made once: c10d_adapter.h).
  c10::intrusive_ptr<c10d::ProcessGroup> process_group() {
    if (!group_) group_ = reducer_process_group(store_, rank_, size_, pg_);
    return group_;
  }
  std::unique_ptr<Communicator> duplicate() override {
    // A second process group with its own connections, rendezvousing under its own prefix.
    auto prefixed =
        c10::make_intrusive<c10d::PrefixStore>(fmt::format("dup{}", ++duplicates_), store_);
    return std::make_unique<GlooCommunicator>(prefixed, rank_, size_, timeout_, local_);
  }

 protected:
  void do_allreduce(at::Tensor& t, ReduceOp op) override {
    std::vector<at::Tensor> tensors{t};
    c10d::AllreduceOptions o;
    o.reduceOp = op == ReduceOp::sum ? c10d::ReduceOp::SUM : c10d::ReduceOp::MAX;
    wait_for(pg_->allreduce(tensors, o), rank_);
  }
  void do_reduce(at::Tensor& t, int root) override {
    std::vector<at::Tensor> tensors{t};
    c10d::ReduceOptions o;
    o.rootRank = root;
    wait_for(pg_->reduce(tensors, o), rank_);
  }
  void do_broadcast(at::Tensor& t, int root) override {
    std::vector<at::Tensor> tensors{t};
    c10d::BroadcastOptions o;
    o.rootRank = root;
    wait_for(pg_->broadcast(tensors, o), rank_);
  }
  void do_gather(const at::Tensor& in, at::Tensor& out, int root) override {
    std::vector<at::Tensor> inputs{in};
    std::vector<std::vector<at::Tensor>> outputs;
    if (rank_ == root) outputs.push_back(per_rank_views(out, size_));
    c10d::GatherOptions o;
    o.rootRank = root;
    wait_for(pg_->gather(outputs, inputs, o), rank_);
  }
  void do_scatter(const at::Tensor& in, at::Tensor& out, int root) override {
    std::vector<at::Tensor> outputs{out};
    std::vector<std::vector<at::Tensor>> inputs;
    if (rank_ == root) inputs.push_back(per_rank_views(in, size_));
    c10d::ScatterOptions o;
    o.rootRank = root;
    wait_for(pg_->scatter(outputs, inputs, o), rank_);
  }
  void do_allgather(const at::Tensor& in, at::Tensor& out) override {
    std::vector<at::Tensor> inputs{in};
    std::vector<std::vector<at::Tensor>> outputs{per_rank_views(out, size_)};
    wait_for(pg_->allgather(outputs, inputs), rank_);
  }
  void do_reduce_scatter(const at::Tensor& in, at::Tensor& out) override {
    // ProcessGroupGloo 1.13 implements no reduce_scatter (2.6 has one): on both stacks,
    // allreduce a copy and keep this rank's chunk, so that the two move the same bytes
    // (docs/communicators.md states the extra traffic this costs).
    at::Tensor all = in.clone();
    do_allreduce(all, ReduceOp::sum);
    out.copy_(per_rank_views(all, size_)[rank_]);
  }
  void do_barrier() override { wait_for(pg_->barrier(), rank_); }
  std::unique_ptr<Request> do_isend(const at::Tensor& t, int peer, int tag) override {
    std::vector<at::Tensor> tensors{t};
    return std::make_unique<GlooRequest>(pg_->send(tensors, peer, tag), tensors, rank_);
  }
  std::unique_ptr<Request> do_irecv(at::Tensor& t, int peer, int tag) override {
    std::vector<at::Tensor> tensors{t};
    return std::make_unique<GlooRequest>(pg_->recv(tensors, peer, tag), tensors, rank_);
  }
  std::unique_ptr<Request> do_iallreduce(at::Tensor& t) override {
    std::vector<at::Tensor> tensors{t};
    return std::make_unique<GlooRequest>(pg_->allreduce(tensors), tensors, rank_, true);
  }
  std::unique_ptr<Communicator> do_split(int color, int rank, int size, int serial) override {
    if (color < 0) return nullptr;
    // The ranks of one color rendezvous under a prefix of their own.
    auto prefixed =
        c10::make_intrusive<c10d::PrefixStore>(fmt::format("split{}/{}", serial, color), store_);
    return std::make_unique<GlooCommunicator>(prefixed, rank, size, timeout_, local_);
  }

 private:
  c10::intrusive_ptr<c10d::Store> store_;
  int rank_, size_;
  std::chrono::milliseconds timeout_;
  bool local_;
  int duplicates_ = 0;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> pg_;
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
};

}  // namespace

c10::intrusive_ptr<c10d::ProcessGroup> gloo_process_group(Communicator& comm) {
  auto* gloo = dynamic_cast<GlooCommunicator*>(&comm);
  return gloo != nullptr ? gloo->process_group() : c10::intrusive_ptr<c10d::ProcessGroup>();
}

std::unique_ptr<Communicator> make_gloo_communicator(const c10::intrusive_ptr<c10d::Store>& store,
                                                     int rank, int size,
                                                     std::chrono::milliseconds timeout,
                                                     bool local) {
  return std::make_unique<GlooCommunicator>(store, rank, size, timeout, local);
}

}  // namespace dtbench
