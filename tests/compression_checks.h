#pragma once
// Checks of the communication-efficient strategies (fp16, powersgd, topk, local_sgd and the exact
// hierarchical; docs/compression.md) that run
// the same on any Communicator: Gloo ranks as threads (compression_gloo_test.cpp) and OpenMPI
// ranks as processes (mpi_main.cpp). Each is collective and returns what went wrong, one line
// each; empty when all is right. The comparison with PyTorch's own Python hooks is
// python_hooks_test.sh.
#include <string>
#include <vector>

#include "comm/communicator.h"

namespace dtbench::testing {

// fp16 in both modes is within float16 rounding of the exact mean and sum.
std::vector<std::string> fp16_problems(Communicator& comm);
// topk with k = 100% is the exact mean; with k = 25% and one gradient followed by zeros, error
// feedback has sent all of it after four steps, and not after one.
std::vector<std::string> topk_problems(Communicator& comm);
// powersgd before its start iteration is the exact mean; after it, the rank-r approximation of a
// gradient of rank r is exact (error feedback then carries nothing).
std::vector<std::string> powersgd_problems(Communicator& comm);
// hierarchical is the exact mean and sum in both modes with hosts of 1, 2 and 3 ranks and with
// the ranks' own host names.
std::vector<std::string> hierarchical_problems(Communicator& comm);
// The payload each rank counts in one iteration equals each method's formula
// (docs/compression.md).
std::vector<std::string> payload_problems(Communicator& comm);

}  // namespace dtbench::testing
