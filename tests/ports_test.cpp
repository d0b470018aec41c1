// The rendezvous port: free now, and drawn below the kernel's ephemeral range, so that no
// outgoing connection of the host can take it before the rendezvous binds it.
#include "common/ports.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace dtbench {
namespace {

TEST(Ports, AFreePortIsBelowTheEphemeralRangeAndCanBeBound) {
  const int low = ephemeral_low();
  for (int k = 0; k < 20; ++k) {
    const int port = free_port();
    ASSERT_GT(port, 0);
    if (low > 20100) {
      EXPECT_GE(port, 20000);
      EXPECT_LT(port, low);
    }
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0) << port;
    close(fd);
  }
}

}  // namespace
}  // namespace dtbench
