#include "cluster/cluster_ssh.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "cluster/node_files.h"
#include "common/error.h"
#include "common/files.h"
#include "common/poll.h"
#include "common/ports.h"
#include "common/process.h"
#include "common/text.h"

namespace dtbench {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSshd = "/usr/sbin/sshd";

std::string client_dir(const std::string& prefix) {
  return "/run/dtbench/" + prefix + "ssh";
}

// An ed25519 key pair at path (and path.pub), kept if it exists.
void key_pair(const std::string& path, const std::string& comment) {
  if (fs::exists(path) && fs::exists(path + ".pub")) return;
  fs::remove(path);
  fs::remove(path + ".pub");
  run_checked({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path});
}

void private_copy(const std::string& from, const std::string& to) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  fs::permissions(to, fs::perms::owner_read | fs::perms::owner_write);
}

std::string sshd_config(const std::string& address) {
  return fmt::format(
      "ListenAddress {}\n"
      "HostKey /etc/ssh/ssh_host_ed25519_key\n"
      "PidFile none\n"
      "PermitRootLogin prohibit-password\n"
      "AuthorizedKeysFile /etc/ssh/authorized_keys\n"
      "PasswordAuthentication no\n"
      "KbdInteractiveAuthentication no\n"
      "UsePAM no\n",
      address);
}

// Key-only, host keys checked against the cluster's own list, never a prompt.
std::string client_options(const std::string& dir) {
  return fmt::format(
      "  IdentityFile {0}/id_ed25519\n"
      "  IdentitiesOnly yes\n"
      "  GlobalKnownHostsFile {0}/{1}\n"
      "  UserKnownHostsFile /dev/null\n"
      "  StrictHostKeyChecking yes\n"
      "  BatchMode yes\n"
      "  LogLevel ERROR\n",
      dir, dir == "/etc/ssh" ? "ssh_known_hosts" : "known_hosts");
}

// The root namespace cannot resolve the nodes' names: the configuration does.
std::string root_client_config(const ClusterSpec& spec) {
  std::string text;
  for (int i = 0; i < spec.hosts; ++i) {
    text += fmt::format("Host {}\n  HostName {}\n", spec.namespace_of(i), spec.address_of(i));
  }
  return text + fmt::format("Host {}*\n", spec.prefix) + client_options(client_dir(spec.prefix));
}

// Waits until every node's sshd accepts connections; RunError naming the first that does not,
// with the last line of its log.
void wait_for_sshds(const ClusterSpec& spec, const std::string& dir) {
  for (int i = 0; i < spec.hosts; ++i) {
    if (poll_until([&] { return accepts_connections(spec.address_of(i), 22, 200); }, 20)) continue;
    std::string log = read_text_file(fmt::format("{}/sshd-{}.log", dir, spec.namespace_of(i)));
    throw RunError(fmt::format("the sshd of {} does not accept connections after 20 s: {}",
                               spec.namespace_of(i), last_line(log)));
  }
}

}  // namespace

std::string ssh_client_config(const std::string& prefix) {
  return client_dir(prefix) + "/config";
}

bool ssh_is_set_up(const std::string& prefix) {
  return fs::exists(ssh_client_config(prefix));
}

void start_ssh(const ClusterSpec& spec) {
  require(access(kSshd, X_OK) == 0,
          "the emulated cluster's ssh needs OpenSSH's server (/usr/sbin/sshd): run `make "
          "setup-cluster`");
  const std::string dir = client_dir(spec.prefix);
  fs::create_directories(dir);
  fs::create_directories("/run/sshd");  // sshd's privilege separation, made by its service unit
  key_pair(dir + "/id_ed25519", "dtbench-" + spec.prefix + "cluster");
  std::string known_hosts;
  for (int i = 0; i < spec.hosts; ++i) {
    const std::string ns = spec.namespace_of(i), ssh = etc_of(ns) + "/ssh";
    fs::create_directories(ssh);
    key_pair(ssh + "/ssh_host_ed25519_key", ns);
    const auto key = words_of(read_text_file(ssh + "/ssh_host_ed25519_key.pub"));
    require(key.size() >= 2, fmt::format("{}/ssh_host_ed25519_key.pub: not a public key", ssh));
    known_hosts += fmt::format("{},{} {} {}\n", ns, spec.address_of(i), key[0], key[1]);
  }
  write_file_atomically(dir + "/known_hosts", known_hosts);
  write_file_atomically(ssh_client_config(spec.prefix), root_client_config(spec));
  const std::string client_key = read_text_file(dir + "/id_ed25519.pub");
  for (int i = 0; i < spec.hosts; ++i) {
    const std::string ns = spec.namespace_of(i), ssh = etc_of(ns) + "/ssh";
    private_copy(dir + "/id_ed25519", ssh + "/id_ed25519");
    write_file_atomically(ssh + "/authorized_keys", client_key);
    write_file_atomically(ssh + "/ssh_known_hosts", known_hosts);
    write_file_atomically(ssh + "/sshd_config", sshd_config(spec.address_of(i)));
    write_file_atomically(ssh + "/ssh_config", "Host *\n" + client_options("/etc/ssh"));
  }
  write_node_hosts(spec);  // before the sshds start: ip netns exec mounts what exists then
  for (int i = 0; i < spec.hosts; ++i) {
    const std::string ns = spec.namespace_of(i);
    if (accepts_connections(spec.address_of(i), 22, 200)) continue;  // already serving
    // Its own hostname, which the sessions it starts (orted, the ranks) inherit.
    start_daemon({"ip", "netns", "exec", ns, "unshare", "--uts", "sh", "-c",
                  "hostname \"$0\" && exec " + std::string(kSshd) + " -D -e", ns},
                 fmt::format("{}/sshd-{}.log", dir, ns));
  }
  wait_for_sshds(spec, dir);
}

void remove_ssh(const std::string& prefix) {
  std::error_code ec;
  fs::remove_all(client_dir(prefix), ec);
}

}  // namespace dtbench
