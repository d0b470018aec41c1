// dtbench_hook_replay: replays the gradients that ddp_hooks_reference.py handed PyTorch's own
// hooks through dtbench's strategy of the same name, and writes what it left to apply beside
// the reference (python_hooks_test.sh compares the two). Run under mpirun, one rank per
// reference rank:
//   dtbench_hook_replay --sync fp16|powersgd --dir D --iterations T [--backend mpi|gloo]
//                       [--powersgd-rank R] [--powersgd-start S]
#include <fmt/format.h>
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "comm/launch.h"
#include "comm/mpi_communicator.h"
#include "common/error.h"
#include "common/main_guard.h"
#include "sync/grad_sync.h"

namespace dtbench {
namespace {

std::vector<std::vector<int64_t>> read_shapes(const std::string& path) {
  std::ifstream in(path);
  require(in.good(), fmt::format("cannot read {}", path));
  std::vector<std::vector<int64_t>> shapes;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<int64_t> shape;
    for (int64_t d = 0; words >> d;) shape.push_back(d);
    if (!shape.empty()) shapes.push_back(shape);
  }
  return shapes;
}

at::Tensor read_floats(const std::string& path, int64_t count) {
  at::Tensor t = at::empty({count}, at::kFloat);
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(t.data_ptr<float>()),
          count * static_cast<int64_t>(sizeof(float)));
  require(in.gcount() == count * static_cast<int64_t>(sizeof(float)),
          fmt::format("{}: fewer than {} floats", path, count));
  return t;
}

int replay(int argc, char** argv) {
  std::string sync, dir, backend = "auto";
  int iterations = 5;
  SyncOptions options;
  options.mode = SyncMode::blocking;
  options.bucket_mb = 1024;  // one bucket, as the reference's
  CLI::App app("replays ddp_hooks_reference.py's gradients through a dtbench strategy");
  app.add_option("--sync", sync)->required();
  app.add_option("--dir", dir)->required();
  app.add_option("--iterations", iterations);
  app.add_option("--backend", backend);
  app.add_option("--powersgd-rank", options.powersgd_rank);
  app.add_option("--powersgd-start", options.powersgd_start);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  torch::set_num_threads(1);
  LaunchOptions launch;
  launch.backend = backend;
  auto comm = connect(launch);
  const auto shapes = read_shapes(dir + "/shapes.txt");
  std::vector<at::Tensor> params;
  int64_t total = 0;
  for (const auto& shape : shapes) {
    params.push_back(torch::zeros(shape).requires_grad_());
    total += params.back().numel();
  }
  auto strategy = make_sync(sync, options);
  strategy->setup(params, *comm);
  const std::string base = fmt::format("{}/rank{}", dir, comm->rank());
  for (int step = 0; step < iterations; ++step) {
    at::Tensor in = read_floats(fmt::format("{}/in{}.bin", base, step), total);
    int64_t at = 0;
    for (auto& p : params) {
      p.mutable_grad() = in.narrow(0, at, p.numel()).view(p.sizes()).clone();
      at += p.numel();
    }
    strategy->finish();
    std::vector<at::Tensor> flat;
    flat.reserve(params.size());
    for (auto& p : params) flat.push_back(p.grad().reshape({-1}));
    at::Tensor got = at::cat(flat).contiguous();
    std::ofstream(fmt::format("{}/got{}.bin", base, step), std::ios::binary)
        .write(reinterpret_cast<const char*>(got.data_ptr<float>()), got.nbytes());
  }
  comm.reset();
  finalize_mpi();
  return 0;
}

}  // namespace
}  // namespace dtbench

int main(int argc, char** argv) {
  return dtbench::guarded_main("dtbench_hook_replay", [&] { return dtbench::replay(argc, argv); });
}
