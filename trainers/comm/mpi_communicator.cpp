#include "comm/mpi_communicator.h"

#include <fmt/core.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>

#include "comm/mpi_check.h"
#include "comm/mpi_progress.h"

namespace dtbench {
namespace {

MPI_Op op_of(ReduceOp op) {
  return op == ReduceOp::sum ? MPI_SUM : MPI_MAX;
}
int count_of(const at::Tensor& t) {
  return static_cast<int>(t.numel());
}

class MpiRequest : public Request {
 public:
  void wait() override { DTB_MPI_CHECK(MPI_Wait(&request_, MPI_STATUS_IGNORE)); }
  bool test() override {
    int done = 0;
    DTB_MPI_CHECK(MPI_Test(&request_, &done, MPI_STATUS_IGNORE));
    return done != 0;
  }
  MPI_Request request_ = MPI_REQUEST_NULL;
};

class MpiCommunicator : public Communicator {
 public:
  explicit MpiCommunicator(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiCommunicator() override {
    progress_.reset();  // no test of this communicator's requests from here on
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (comm_ != MPI_COMM_WORLD && !finalised) MPI_Comm_free(&comm_);
  }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "mpi"; }
  std::unique_ptr<Communicator> duplicate() override {
    MPI_Comm copy;
    DTB_MPI_CHECK(MPI_Comm_dup(comm_, &copy));
    return std::make_unique<MpiCommunicator>(copy);
  }

 protected:
  void do_allreduce(at::Tensor& t, ReduceOp op) override {
    DTB_MPI_CHECK(
        MPI_Allreduce(MPI_IN_PLACE, t.data_ptr<float>(), count_of(t), MPI_FLOAT, op_of(op), comm_));
  }
  void do_reduce(at::Tensor& t, int root) override {
    void* send = rank_ == root ? MPI_IN_PLACE : t.data_ptr<float>();
    DTB_MPI_CHECK(
        MPI_Reduce(send, t.data_ptr<float>(), count_of(t), MPI_FLOAT, MPI_SUM, root, comm_));
  }
  void do_broadcast(at::Tensor& t, int root) override {
    DTB_MPI_CHECK(MPI_Bcast(t.data_ptr<float>(), count_of(t), MPI_FLOAT, root, comm_));
  }
  void do_gather(const at::Tensor& in, at::Tensor& out, int root) override {
    float* recv = rank_ == root ? out.data_ptr<float>() : nullptr;
    DTB_MPI_CHECK(MPI_Gather(in.data_ptr<float>(), count_of(in), MPI_FLOAT, recv, count_of(in),
                             MPI_FLOAT, root, comm_));
  }
  void do_scatter(const at::Tensor& in, at::Tensor& out, int root) override {
    const float* send = rank_ == root ? in.data_ptr<float>() : nullptr;
    DTB_MPI_CHECK(MPI_Scatter(send, count_of(out), MPI_FLOAT, out.data_ptr<float>(), count_of(out),
                              MPI_FLOAT, root, comm_));
  }
  void do_allgather(const at::Tensor& in, at::Tensor& out) override {
    DTB_MPI_CHECK(MPI_Allgather(in.data_ptr<float>(), count_of(in), MPI_FLOAT,
                                out.data_ptr<float>(), count_of(in), MPI_FLOAT, comm_));
  }
  void do_reduce_scatter(const at::Tensor& in, at::Tensor& out) override {
    DTB_MPI_CHECK(MPI_Reduce_scatter_block(in.data_ptr<float>(), out.data_ptr<float>(),
                                           count_of(out), MPI_FLOAT, MPI_SUM, comm_));
  }
  void do_barrier() override { DTB_MPI_CHECK(MPI_Barrier(comm_)); }
  std::unique_ptr<Request> do_isend(const at::Tensor& t, int peer, int tag) override {
    auto r = std::make_unique<MpiRequest>();
    DTB_MPI_CHECK(
        MPI_Isend(t.data_ptr<float>(), count_of(t), MPI_FLOAT, peer, tag, comm_, &r->request_));
    return r;
  }
  std::unique_ptr<Request> do_irecv(at::Tensor& t, int peer, int tag) override {
    auto r = std::make_unique<MpiRequest>();
    DTB_MPI_CHECK(
        MPI_Irecv(t.data_ptr<float>(), count_of(t), MPI_FLOAT, peer, tag, comm_, &r->request_));
    return r;
  }
  // Started here, moved forward by this communicator's progress thread (mpi_progress.h): the
  // caller computes on while the sum travels, with no MPI call of its own.
  std::unique_ptr<Request> do_iallreduce(at::Tensor& t) override {
    MPI_Request request = MPI_REQUEST_NULL;
    DTB_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, t.data_ptr<float>(), count_of(t), MPI_FLOAT, MPI_SUM,
                                 comm_, &request));
    if (!progress_) progress_ = std::make_unique<MpiProgress>();
    return progress_->adopt(request, "MPI_Iallreduce");
  }

 private:
  MPI_Comm comm_;
  std::unique_ptr<MpiProgress> progress_;  // started by the first nonblocking collective
  int rank_ = 0, size_ = 1;
};

}  // namespace

bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}

void require_thread_level(int provided) {
  // Several threads call MPI at once: the overlap and stale modes run collectives on a
  // communication thread while the main thread runs its own on a duplicate communicator, and
  // nonblocking collectives are tested by a progress thread (mpi_progress.h).
  if (provided < MPI_THREAD_MULTIPLE) {
    throw CommError(fmt::format(
        "mpi: this MPI library provides {} only; dtbench needs MPI_THREAD_MULTIPLE (for OpenMPI, "
        "a build with thread support)",
        thread_level_name(provided)));
  }
}

void ensure_mpi_initialised() {
  static std::once_flag once;
  std::call_once(once, [] {
    int initialised = 0;
    MPI_Initialized(&initialised);
    int provided = 0;
    if (initialised) {
      MPI_Query_thread(&provided);
    } else {
      // OpenMPI's nonblocking allreduce (libnbc) sums in place over a binomial tree, which moves
      // every bucket through rank 0's link several times: on 4 hosts at 1 Gbit/s, twice the
      // ring's time (docs/communicators.md). The ring, unless the user chose (mpirun's --mca
      // reaches the ranks as this same variable, which is then left alone).
      setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "1", /*overwrite=*/0);
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }
    require_thread_level(provided);
  });
}

void finalize_mpi() {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (initialised && !finalised) MPI_Finalize();
}

std::unique_ptr<Communicator> make_mpi_communicator() {
  ensure_mpi_initialised();
  return std::make_unique<MpiCommunicator>(MPI_COMM_WORLD);
}

}  // namespace dtbench
