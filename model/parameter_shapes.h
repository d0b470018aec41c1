#pragma once
// The parameters of a model, in the model's order, as the cost model needs them: a name and a
// shape. VGG-11 and LeNet-5 (dtbench's own, trainers/models/) are built in; any other model is a
// text file with one parameter per line, "name d1 d2 ...", and '#' comments (model/shapes/ has
// ResNet-50 and BERT-base).
#include <cstdint>
#include <string>
#include <vector>

namespace dtbench::model {

struct Parameter {
  std::string name;
  std::vector<int64_t> shape;
  int64_t count() const;
};

// vgg11 or lenet5 (as trainers/models/ build them); empty for any other name.
std::vector<Parameter> builtin_parameters(const std::string& model);

// std::invalid_argument naming the file and line of anything that is not "name d1 d2 ...".
std::vector<Parameter> read_parameters(const std::string& path);

// float32 bytes of each parameter.
std::vector<double> float_bytes(const std::vector<Parameter>& parameters);

}  // namespace dtbench::model
