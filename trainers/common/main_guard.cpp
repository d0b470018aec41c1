#include "common/main_guard.h"

#include <fmt/core.h>

#include <cstdio>
#include <string>

#include "common/error.h"

namespace dtbench {

int guarded_main(const char* program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UserError& e) {
    fmt::print(stderr, "{}: error: {}\n", program, first_line(e.what()));
    return 2;
  } catch (const RunError& e) {
    fmt::print(stderr, "{}: error: {}\n", program, first_line(e.what()));
    return 3;
  } catch (const std::exception& e) {  // c10::Error too: its first line is the message
    fmt::print(stderr, "{}: internal error: {}\n", program, first_line(e.what()));
  }
  return 1;
}

}  // namespace dtbench
