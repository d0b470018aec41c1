#include "run/mpirun_notices.h"

#include <fmt/format.h>

#include <regex>
#include <sstream>

namespace dtbench {
namespace {

// OpenMPI draws its boxes' top and bottom as a line of dashes.
bool is_rule(const std::string& text) {
  return text.size() >= 20 && text.find_first_not_of('-') == std::string::npos;
}

bool contains(const std::vector<std::string>& lines, const std::string& what) {
  for (const auto& l : lines) {
    if (l.find(what) != std::string::npos) return true;
  }
  return false;
}

// "rank 3 exited with status 2" from the box's "Process name: [[2074,1],3]" (OpenMPI 4's job id)
// or "[prterun-vm-23528@1,3]" (5's PRRTE namespace) and "Exit code: 2".
std::string exit_of(const std::vector<std::string>& box) {
  static const std::regex process(R"(Process name:\s*\[(?:\[\d+,\d+\]|[^\],\[]+),(\d+)\])");
  static const std::regex code(R"(Exit code:\s*(-?\d+))");
  std::string rank = "?", status = "?";
  std::smatch m;
  for (const auto& l : box) {
    if (std::regex_search(l, m, process)) rank = m[1];
    if (std::regex_search(l, m, code)) status = m[1];
  }
  return fmt::format("mpirun: rank {} exited with status {}", rank, status);
}

}  // namespace

void MpirunNotices::line(const std::string& text) {
  if (is_rule(text)) {
    if (in_box_) {
      close_box();
    } else {
      in_box_ = true;
      box_.clear();
    }
    return;
  }
  if (in_box_) {
    box_.push_back(text);
    return;
  }
  others_spoke_ = true;
  out_(text);
}

void MpirunNotices::close_box() {
  in_box_ = false;
  if (contains(box_, "terminated normally, but")) {
    if (exit_line_.empty()) exit_line_ = "mpirun: a rank exited with a non-zero status";
    return;
  }
  if (contains(box_, "exited with non-zero status")) {
    exit_line_ = exit_of(box_);
    return;
  }
  // A paragraph a line: OpenMPI 5 wraps a sentence that 4 wrote on one line.
  std::string paragraph;
  for (const auto& l : box_) {
    const size_t start = l.find_first_not_of(" \t");
    if (start == std::string::npos) {
      if (!paragraph.empty()) out_(paragraph);
      paragraph.clear();
    } else {
      paragraph += paragraph.empty() ? l : " " + l.substr(start);
    }
  }
  if (!paragraph.empty()) out_(paragraph);
  others_spoke_ = true;
}

std::string failure_line(const std::string& stderr_text) {
  std::vector<std::string> lines;
  MpirunNotices notices([&](const std::string& line) {
    if (line.find_first_not_of(" \t") != std::string::npos) lines.push_back(line);
  });
  std::istringstream in(stderr_text);
  for (std::string line; std::getline(in, line);) notices.line(line);
  notices.finish();
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (it->find("error") != std::string::npos) return *it;
  }
  return lines.empty() ? "" : lines.back();
}

void MpirunNotices::finish() {
  if (in_box_) {
    in_box_ = false;
    out_(std::string(74, '-'));
    for (const auto& l : box_) out_(l);
  }
  if (!others_spoke_ && !exit_line_.empty()) out_(exit_line_);
  exit_line_.clear();
}

bool mpi_init_race(const std::string& stderr_text) {
  return stderr_text.find("mca_pml_ob1_recv_frag_callback_match") != std::string::npos &&
         stderr_text.find("ompi_mpi_init") != std::string::npos;
}

bool training_diverged(const std::string& stderr_text) {
  return stderr_text.find(": the training diverged") != std::string::npos;
}

std::string relaunch_reason(const std::string& stderr_text) {
  if (mpi_init_race(stderr_text)) return "a rank crashed inside MPI_Init (OpenMPI's start-up race)";
  if (training_diverged(stderr_text)) {
    return "the loss turned NaN or infinite (the training diverged)";
  }
  return "";
}

}  // namespace dtbench
