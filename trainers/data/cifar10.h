#pragma once
#include <string>

#include "data/dataset.h"

namespace dtbench {

// CIFAR-10 "binary version": <data_dir>/cifar-10-batches-bin/data_batch_{1..5}.bin (train) or
// test_batch.bin (test); records of 1 label byte + 1024 R + 1024 G + 1024 B bytes.
Dataset load_cifar10(const std::string& data_dir, Split split);

}  // namespace dtbench
