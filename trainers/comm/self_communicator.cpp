#include "comm/self_communicator.h"

namespace dtbench {
namespace {

class DoneRequest : public Request {
 public:
  void wait() override {}
  bool test() override { return true; }
};

// One rank alone: every collective is its own result; there is nobody to send to.
class SelfCommunicator : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string backend() const override { return "self"; }
  std::unique_ptr<Communicator> duplicate() override {
    return std::make_unique<SelfCommunicator>();
  }

 protected:
  void do_allreduce(at::Tensor&, ReduceOp) override {}
  void do_reduce(at::Tensor&, int) override {}
  void do_broadcast(at::Tensor&, int) override {}
  void do_gather(const at::Tensor& in, at::Tensor& out, int) override { out.copy_(in); }
  void do_scatter(const at::Tensor& in, at::Tensor& out, int) override { out.copy_(in); }
  void do_allgather(const at::Tensor& in, at::Tensor& out) override { out.copy_(in); }
  void do_reduce_scatter(const at::Tensor& in, at::Tensor& out) override { out.copy_(in); }
  void do_barrier() override {}
  std::unique_ptr<Request> do_isend(const at::Tensor&, int, int) override {
    throw CommError("self: a single process has no peer to send to");
  }
  std::unique_ptr<Request> do_irecv(at::Tensor&, int, int) override {
    throw CommError("self: a single process has no peer to receive from");
  }
  std::unique_ptr<Request> do_iallreduce(at::Tensor&) override {
    return std::make_unique<DoneRequest>();
  }
  std::unique_ptr<Communicator> do_split(int color, int, int, int) override {
    return color < 0 ? nullptr : std::make_unique<SelfCommunicator>();
  }
};

}  // namespace

std::unique_ptr<Communicator> make_self_communicator() {
  return std::make_unique<SelfCommunicator>();
}

}  // namespace dtbench
