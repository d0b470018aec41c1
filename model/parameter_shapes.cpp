#include "model/parameter_shapes.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dtbench::model {
namespace {

void add_conv(std::vector<Parameter>& out, const std::string& name, int64_t in, int64_t width,
              int64_t kernel) {
  out.push_back({name + ".weight", {width, in, kernel, kernel}});
  out.push_back({name + ".bias", {width}});
}

void add_linear(std::vector<Parameter>& out, const std::string& name, int64_t in, int64_t width) {
  out.push_back({name + ".weight", {width, in}});
  out.push_back({name + ".bias", {width}});
}

// trainers/models/vgg11.cpp: convolutions (3x3, bias) each followed by BatchNorm and ReLU,
// max pools between, one linear layer of 512 -> 10.
std::vector<Parameter> vgg11() {
  constexpr int64_t kPool = 0;
  std::vector<Parameter> out;
  int64_t in = 3, index = 0;
  for (int64_t width :
       {64L, kPool, 128L, kPool, 256L, 256L, kPool, 512L, 512L, kPool, 512L, 512L, kPool}) {
    if (width == kPool) {
      ++index;
      continue;
    }
    add_conv(out, "features." + std::to_string(index), in, width, 3);
    const std::string norm = "features." + std::to_string(index + 1);
    out.push_back({norm + ".weight", {width}});
    out.push_back({norm + ".bias", {width}});
    index += 3, in = width;  // convolution, BatchNorm, ReLU
  }
  add_linear(out, "classifier", 512, 10);
  return out;
}

// trainers/models/lenet5.cpp: three 5x5 convolutions, two linear layers.
std::vector<Parameter> lenet5() {
  std::vector<Parameter> out;
  add_conv(out, "conv1", 1, 6, 5);
  add_conv(out, "conv2", 6, 16, 5);
  add_conv(out, "conv3", 16, 120, 5);
  add_linear(out, "fc1", 120, 84);
  add_linear(out, "fc2", 84, 10);
  return out;
}

}  // namespace

int64_t Parameter::count() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<Parameter> builtin_parameters(const std::string& model) {
  if (model == "vgg11") return vgg11();
  if (model == "lenet5") return lenet5();
  return {};
}

std::vector<Parameter> read_parameters(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read parameter list " + path);
  std::vector<Parameter> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    Parameter p;
    if (!(words >> p.name)) continue;
    std::string d;
    while (words >> d) {
      size_t used = 0;
      int64_t value = -1;
      try {
        value = std::stoll(d, &used);
      } catch (const std::exception&) {
      }
      if (used != d.size() || value <= 0) {
        throw std::invalid_argument(path + " line " + std::to_string(number) + ": '" + d +
                                    "' is not a dimension (a whole number > 0)");
      }
      p.shape.push_back(value);
    }
    if (p.shape.empty()) {
      throw std::invalid_argument(path + " line " + std::to_string(number) + ": " + p.name +
                                  " has no shape");
    }
    out.push_back(p);
  }
  if (out.empty()) throw std::invalid_argument(path + " lists no parameters");
  return out;
}

std::vector<double> float_bytes(const std::vector<Parameter>& parameters) {
  std::vector<double> bytes;
  bytes.reserve(parameters.size());
  for (const auto& p : parameters) bytes.push_back(4.0 * static_cast<double>(p.count()));
  return bytes;
}

}  // namespace dtbench::model
