#pragma once
// The software a results directory was measured with, as system.json records it under "stack":
// distribution, compiler, libtorch, the MPI, Gloo, PyTorch's Python package (the Python DDP
// baseline) and Slurm where a job ran under it. Plain data: the harness writes it, the report
// tells two stacks on one machine apart by it.
#include <nlohmann/json.hpp>

#include <string>

namespace dtbench {

// The stack of a system.json: its "stack" if it has one, else the one its older fields name
// (os, compiler, packages, openmpi), so that directories made before the record agree.
nlohmann::json software_stack(const nlohmann::json& system);

// "libtorch 1.13.1, Open MPI 4.1.4": what tells two stacks apart in a system's name.
std::string stack_label(const nlohmann::json& stack);

}  // namespace dtbench
