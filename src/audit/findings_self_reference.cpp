// `export LD_LIBRARY_PATH=/opt/lib:\$LD_LIBRARY_PATH`: the backslash quotes
// the dollar sign (bash manual, "Escape Character", and inside double quotes
// "Double Quotes": `\$` keeps `$` literal), so the variable gets the text
// `$LD_LIBRARY_PATH`, not its value, and what it held before is gone; a line
// after it that does the same drops this one's directory in turn. Round 19's
// LUMI job kept only the last of four library directories that way. An
// escaped `$` is right where the text is run again later (`bash -c "…"`,
// `eval`, a heredoc written to a file), never in the assignment of the same
// name, which the batch shell itself performs.
#include "audit/findings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lg::audit::detail {

namespace {

bool name_char(char c)
{
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

bool in_heredoc(const ScriptModel& model, int offset)
{
  for (const auto& [begin, end] : model.heredocs) {
    if (offset >= begin && offset < end) {
      return true;
    }
  }
  return false;
}

// Offset in `value` (the assignment's source text) of a `\$NAME` or
// `\${NAME}` whose backslash is not itself quoted by another backslash, or npos.
std::size_t escaped_self(std::string_view value, const std::string& name)
{
  for (std::size_t at = value.find("\\$"); at != std::string_view::npos; at = value.find("\\$", at + 1)) {
    std::size_t backslashes = 0;
    for (std::size_t i = at; i > 0 && value[i - 1] == '\\'; --i) {
      ++backslashes;
    }
    if (backslashes % 2 != 0) {
      continue;  // `\\$NAME`: the backslash is the literal one, `$NAME` expands
    }
    std::size_t start = at + 2;
    const bool braced = start < value.size() && value[start] == '{';
    start += braced ? 1 : 0;
    if (value.substr(start, name.size()) != name) {
      continue;
    }
    const std::size_t after = start + name.size();
    if (braced ? after < value.size() && value[after] == '}' : after >= value.size() || !name_char(value[after])) {
      return at;
    }
  }
  return std::string_view::npos;
}

}  // namespace

void self_reference_findings(FindingContext& c)
{
  // One finding per name, on its first such line, listing the others.
  struct Hit
  {
    int offset = -1;
    std::vector<int> more_lines;
  };
  std::vector<std::pair<std::string, Hit>> hits;
  const std::string& text = c.model.text;
  for (const Assignment& a : c.model.assignments) {
    if (a.kind != AssignKind::assign || a.value_offset < 0 || a.value_end <= a.value_offset
        || a.value_end > static_cast<int>(text.size()) || in_heredoc(c.model, a.offset)) {
      continue;
    }
    const std::string_view value(text.data() + a.value_offset, static_cast<std::size_t>(a.value_end - a.value_offset));
    const std::size_t at = escaped_self(value, a.name);
    if (at == std::string_view::npos) {
      continue;
    }
    const int offset = a.value_offset + static_cast<int>(at);
    auto it = std::find_if(hits.begin(), hits.end(), [&](const auto& h) { return h.first == a.name; });
    if (it == hits.end()) {
      hits.push_back({a.name, Hit{offset, {}}});
    } else {
      it->second.more_lines.push_back(c.model.line_of(offset));
    }
  }
  for (const auto& [name, hit] : hits) {
    const std::string also =
      hit.more_lines.empty() ? "" : fmt::format(" (the same on line{} {})", hit.more_lines.size() > 1 ? "s" : "",
                                                    fmt::join(hit.more_lines, ", "));
    c.add(Severity::warning, "audit.escaped_self_reference",
          fmt::format("{0} is given the text `${0}`, not its value: the backslash keeps the `$` literal, so what "
                      "{0} held before is lost{1}",
                      name, also),
          fmt::format("drop the backslash: {0}=DIR:${0} (DIR${{{0}:+:${0}}} when {0} may be unset)", name),
          hit.offset);
  }
}

}  // namespace lg::audit::detail
