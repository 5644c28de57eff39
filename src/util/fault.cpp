#include "util/fault.hpp"

#include <csignal>
#include <cstdlib>
#include <map>
#include <string>

namespace lg {

void fault_point(std::string_view point)
{
  const char* wanted = std::getenv("LG_FAULT_KILL_AFTER");
  if (wanted == nullptr || *wanted == '\0') {
    return;
  }
  std::string name(wanted);
  int nth = 1;
  if (const auto hash = name.find('#'); hash != std::string::npos) {
    nth = std::atoi(name.c_str() + hash + 1);
    name.resize(hash);
  }
  if (name != point) {
    return;
  }
  static std::map<std::string, int> seen;
  if (++seen[name] == nth) {
    std::raise(SIGKILL);
  }
}

} // namespace lg
