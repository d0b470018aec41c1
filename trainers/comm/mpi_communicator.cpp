#include "comm/mpi_communicator.h"

#include <c10/util/Half.h>
#include <fmt/core.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include "comm/mpi_progress.h"
#include "common/mpi_check.h"
#include "common/mpi_start.h"
#include "common/slurm.h"

namespace dtbench {
namespace {

// MPI has no float16: halves travel as 16-bit words and are summed (or maxed) by operations
// of dtbench's own, which compute each element in float and round it back to float16, as
// Gloo does.
template <typename Combine>
void combine_halves(void* in, void* inout, int* length, Combine combine) {
  const auto* a = static_cast<const c10::Half*>(in);
  auto* b = static_cast<c10::Half*>(inout);
  for (int i = 0; i < *length; ++i) b[i] = c10::Half(combine(float(a[i]), float(b[i])));
}
void sum_halves(void* in, void* inout, int* length, MPI_Datatype*) {
  combine_halves(in, inout, length, [](float x, float y) { return x + y; });
}
void max_halves(void* in, void* inout, int* length, MPI_Datatype*) {
  combine_halves(in, inout, length, [](float x, float y) { return std::max(x, y); });
}

MPI_Datatype datatype_of(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kFloat:
      return MPI_FLOAT;
    case at::kDouble:
      return MPI_DOUBLE;
    case at::kHalf:
      return MPI_UINT16_T;
    case at::kInt:
      return MPI_INT32_T;
    case at::kLong:
      return MPI_INT64_T;
    case at::kByte:
      return MPI_UINT8_T;
    default:
      throw std::invalid_argument("mpi: no MPI datatype for this tensor");
  }
}

MPI_Op op_of(const at::Tensor& t, ReduceOp op) {
  if (t.scalar_type() != at::kHalf) return op == ReduceOp::sum ? MPI_SUM : MPI_MAX;
  static MPI_Op sum = MPI_OP_NULL, max = MPI_OP_NULL;
  static std::once_flag once;
  std::call_once(once, [] {
    DTB_MPI_CHECK(MPI_Op_create(sum_halves, /*commute=*/1, &sum));
    DTB_MPI_CHECK(MPI_Op_create(max_halves, /*commute=*/1, &max));
  });
  return op == ReduceOp::sum ? sum : max;
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
    DTB_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, t.data_ptr(), count_of(t), datatype_of(t),
                                op_of(t, op), comm_));
  }
  void do_reduce(at::Tensor& t, int root) override {
    void* send = rank_ == root ? MPI_IN_PLACE : t.data_ptr();
    DTB_MPI_CHECK(MPI_Reduce(send, t.data_ptr(), count_of(t), datatype_of(t),
                             op_of(t, ReduceOp::sum), root, comm_));
  }
  void do_broadcast(at::Tensor& t, int root) override {
    DTB_MPI_CHECK(MPI_Bcast(t.data_ptr(), count_of(t), datatype_of(t), root, comm_));
  }
  void do_gather(const at::Tensor& in, at::Tensor& out, int root) override {
    void* recv = rank_ == root ? out.data_ptr() : nullptr;
    DTB_MPI_CHECK(MPI_Gather(in.data_ptr(), count_of(in), datatype_of(in), recv, count_of(in),
                             datatype_of(in), root, comm_));
  }
  void do_scatter(const at::Tensor& in, at::Tensor& out, int root) override {
    const void* send = rank_ == root ? in.data_ptr() : nullptr;
    DTB_MPI_CHECK(MPI_Scatter(send, count_of(out), datatype_of(out), out.data_ptr(), count_of(out),
                              datatype_of(out), root, comm_));
  }
  void do_allgather(const at::Tensor& in, at::Tensor& out) override {
    DTB_MPI_CHECK(MPI_Allgather(in.data_ptr(), count_of(in), datatype_of(in), out.data_ptr(),
                                count_of(in), datatype_of(in), comm_));
  }
  void do_reduce_scatter(const at::Tensor& in, at::Tensor& out) override {
    DTB_MPI_CHECK(MPI_Reduce_scatter_block(in.data_ptr(), out.data_ptr(), count_of(out),
                                           datatype_of(out), op_of(out, ReduceOp::sum), comm_));
  }
  void do_barrier() override { DTB_MPI_CHECK(MPI_Barrier(comm_)); }
  std::unique_ptr<Request> do_isend(const at::Tensor& t, int peer, int tag) override {
    auto r = std::make_unique<MpiRequest>();
    DTB_MPI_CHECK(
        MPI_Isend(t.data_ptr(), count_of(t), datatype_of(t), peer, tag, comm_, &r->request_));
    return r;
  }
  std::unique_ptr<Request> do_irecv(at::Tensor& t, int peer, int tag) override {
    auto r = std::make_unique<MpiRequest>();
    DTB_MPI_CHECK(
        MPI_Irecv(t.data_ptr(), count_of(t), datatype_of(t), peer, tag, comm_, &r->request_));
    return r;
  }
  // Started here, moved forward by this communicator's progress thread (mpi_progress.h): the
  // caller computes on while the sum travels, with no MPI call of its own.
  std::unique_ptr<Request> do_iallreduce(at::Tensor& t) override {
    MPI_Request request = MPI_REQUEST_NULL;
    DTB_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, t.data_ptr(), count_of(t), datatype_of(t),
                                 op_of(t, ReduceOp::sum), comm_, &request));
    if (!progress_) progress_ = std::make_unique<MpiProgress>();
    return progress_->adopt(request, "MPI_Iallreduce");
  }
  std::unique_ptr<Communicator> do_split(int color, int rank, int, int) override {
    MPI_Comm part;
    DTB_MPI_CHECK(MPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, rank, &part));
    if (part == MPI_COMM_NULL) return nullptr;
    return std::make_unique<MpiCommunicator>(part);
  }

 private:
  MPI_Comm comm_;
  std::unique_ptr<MpiProgress> progress_;  // started by the first nonblocking collective
  int rank_ = 0, size_ = 1;
};

}  // namespace

bool launched_by_mpirun() {
  return launcher() == "mpirun";
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
      // OpenMPI's TCP transport sends a large message as one fragment of up to 2 GiB, and a
      // rank reading one writes nothing on that connection meanwhile: an exchange between two
      // ranks (a ring of 2, recursive doubling, neighbour exchange) runs one direction after
      // the other. Fragments of 128 KiB interleave (4 emulated hosts at 1 Gbit/s, 16 MiB:
      // MPI_Allreduce 0.352 s before, 0.237 s after; docs/communicators.md).
      setenv("OMPI_MCA_btl_tcp_rdma_pipeline_frag_size", "131072", /*overwrite=*/0);
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
      wait_for_every_rank_started();
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
