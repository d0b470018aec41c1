// dtbench_make_fixture DIR: writes the small generated MNIST set of the tests into DIR/mnist,
// for shell tests that run dtbench-train itself.
#include <cstdio>

#include "fixtures.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: dtbench_make_fixture DIR\n");
    return 2;
  }
  dtbench::testing::write_mnist(argv[1], 480, 40, /*gzip=*/true);
  return 0;
}
