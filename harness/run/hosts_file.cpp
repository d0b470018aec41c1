#include "run/hosts_file.h"

#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/network_spec.h"
#include "common/text.h"

namespace dtbench {
namespace {

int positive_int(const std::string& text) {
  static const std::regex digits("[1-9][0-9]{0,5}");
  return std::regex_match(text, digits) ? std::stoi(text) : 0;
}

void parse_directive(const std::string& rest, HostsFile& f, const std::string& where) {
  auto words = words_of(rest);
  require(!words.empty() && (words[0] == "emulated" || words[0] == "links"),
          fmt::format("{}: unknown dtbench directive '{}' (known: emulated, links)", where, rest));
  if (words[0] == "links") {
    const std::string option = words.size() == 2 ? words[1] : "";
    require(option.rfind("rate=", 0) == 0,
            fmt::format("{}: bad links directive '{}' (links rate=10gbit)", where,
                        fmt::join(words, " ")));
    f.link_rate = option.substr(5);
    try {
      parse_rate(f.link_rate);
    } catch (const UserError& e) {
      throw UserError(fmt::format("{}: {}", where, e.what()));
    }
    return;
  }
  f.emulated = true;
  static const std::regex subnet("[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}");
  static const std::regex prefix("[a-z][a-z0-9-]{0,7}");
  for (size_t i = 1; i < words.size(); ++i) {
    auto eq = words[i].find('=');
    std::string key = words[i].substr(0, eq),
                value = eq == std::string::npos ? "" : words[i].substr(eq + 1);
    if (key == "prefix" && std::regex_match(value, prefix)) {
      f.netns_prefix = value;
    } else if (key == "subnet" && std::regex_match(value, subnet)) {
      f.subnet = value;
    } else if (key == "launch" && (value == "agent" || value == "ssh")) {
      f.ssh = value == "ssh";
    } else {
      throw UserError(
          fmt::format("{}: bad emulated option '{}' (prefix=dtb- subnet=10.99.0 launch=agent|ssh)",
                      where, words[i]));
    }
  }
}

}  // namespace

int HostsFile::total_slots() const {
  int total = 0;
  for (const auto& h : hosts) total += h.slots;
  return total;
}

HostsFile parse_hosts_file(const std::string& text, const std::string& path) {
  HostsFile f;
  f.path = path;
  std::istringstream in(text);
  std::set<std::string> seen;
  static const std::regex host_name("[A-Za-z0-9]([A-Za-z0-9.:_-]*[A-Za-z0-9])?");
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::string where = fmt::format("hosts file {} line {}", path, number);
    auto hash = line.find('#');
    if (hash != std::string::npos) {
      std::string comment = line.substr(hash);
      if (comment.rfind("#dtbench:", 0) == 0) parse_directive(comment.substr(9), f, where);
      line.erase(hash);
    }
    auto words = words_of(line);
    if (words.empty()) continue;
    require(std::regex_match(words[0], host_name),
            fmt::format("{}: '{}' is not a host name or address", where, words[0]));
    require(seen.insert(words[0]).second,
            fmt::format("{}: host '{}' is listed twice", where, words[0]));
    HostEntry entry{words[0], 0};
    for (size_t i = 1; i < words.size(); ++i) {
      auto eq = words[i].find('=');
      std::string key = words[i].substr(0, eq);
      int value = eq == std::string::npos ? 0 : positive_int(words[i].substr(eq + 1));
      if (key == "slots" || key == "max_slots" || key == "slots_max") {
        require(value > 0, fmt::format("{}: '{}' needs a positive whole number", where, words[i]));
        if (key == "slots") entry.slots = value;
      } else {
        throw UserError(fmt::format("{}: unknown field '{}' (expected slots=N)", where, words[i]));
      }
    }
    require(entry.slots > 0,
            fmt::format("{}: host '{}' has no slots=N (dtbench places ranks by slots)", where,
                        entry.name));
    f.hosts.push_back(entry);
  }
  require(!f.hosts.empty(), fmt::format("hosts file {} lists no hosts", path));
  return f;
}

HostsFile read_hosts_file(const std::string& path) {
  std::ifstream in(path);
  require(in.good(), fmt::format("cannot read hosts file {}", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse_hosts_file(text.str(), path);
}

}  // namespace dtbench
