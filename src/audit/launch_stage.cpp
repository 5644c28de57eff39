// What a parsed launch answers (launch.hpp): a stage's option by name, a
// tool's stage, and the word helpers the chain walk and the findings share.
#include "audit/launch.hpp"

#include "audit/launch_tools.hpp"

#include <algorithm>

namespace lg::audit::detail {

std::string basename_of(const std::string& path)
{
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Word word_tail(const Word& word, std::size_t from)
{
  Word out;
  out.known = word.known;
  out.opaque = word.opaque;
  out.expanded = word.expanded;
  if (from < word.value.text.size()) {
    out.value.text = word.value.text.substr(from);
    out.value.offsets.assign(word.value.offsets.begin() + static_cast<std::ptrdiff_t>(from), word.value.offsets.end());
  }
  out.offset = out.value.first_offset() >= 0 ? out.value.first_offset() : word.offset;
  return out;
}

}  // namespace lg::audit::detail

namespace lg::audit {

const LaunchOption* LaunchStage::find(const std::string& name) const
{
  const std::string wanted = detail::normalise_option(name);
  const LaunchOption* found = nullptr;
  for (const auto& option : options) {
    if (detail::normalise_option(option.name) == wanted) {
      found = &option;
    }
  }
  return found;
}

const LaunchOption* LaunchStage::given_again(const LaunchOption& option) const
{
  const std::string wanted = detail::normalise_option(option.name);
  for (const auto& later : options) {
    if (later.offset > option.offset && detail::normalise_option(later.name) == wanted) {
      return &later;
    }
  }
  return nullptr;
}

const LaunchOption* LaunchStage::option_at(int at) const
{
  for (const auto& option : options) {
    if (option.value && (option.value->offset == at
                         || std::find(option.value->value.offsets.begin(), option.value->value.offsets.end(), at)
                              != option.value->value.offsets.end())) {
      return &option;
    }
  }
  return nullptr;
}

bool Launch::has(const std::string& tool) const
{
  return stage(tool) != nullptr;
}

const LaunchStage* Launch::stage(const std::string& tool) const
{
  for (const auto& s : stages) {
    if (s.tool == tool) {
      return &s;
    }
  }
  return nullptr;
}

}  // namespace lg::audit
