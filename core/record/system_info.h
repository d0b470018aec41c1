#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dtbench {

// An MLPerf-like description of the machine and software a run used: host, CPU model, cores,
// memory, OS and kernel, compiler, libtorch version, git commit, malloc settings, the MPI library
// and its parameters (when MPI is in use), and the size and
// SHA-256 of every dataset file read.
nlohmann::json describe_system(const std::vector<std::string>& dataset_files);

}  // namespace dtbench
