#pragma once
#include <string>

#include "data/dataset.h"

namespace dtbench {

// MNIST idx files in <data_dir>/mnist/: {train,t10k}-images-idx3-ubyte and
// {train,t10k}-labels-idx1-ubyte, each optionally gzipped (".gz"). The image count comes from
// the header, so subsets of the official files load as they are.
Dataset load_mnist(const std::string& data_dir, Split split);

}  // namespace dtbench
