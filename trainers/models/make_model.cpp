#include "models/make_model.h"

#include "catalogue/models.h"
#include "common/error.h"
#include "models/lenet5.h"
#include "models/vgg11.h"

namespace dtbench {

Classifier make_model(const std::string& name) {
  const ModelSpec& spec = find_model(name);  // UserError for an unknown name
  if (spec.name == "vgg11") return Classifier(Vgg11().ptr());
  if (spec.name == "lenet5") return Classifier(LeNet5().ptr());
  throw UserError("model " + name + ": no network is built for it");
}

}  // namespace dtbench
