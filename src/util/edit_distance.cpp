#include "util/edit_distance.hpp"

#include <algorithm>
#include <vector>

namespace lg {

std::size_t edit_distance(std::string_view a, std::string_view b)
{
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> nearest(std::string_view name,
                                   std::span<const std::string> candidates)
{
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    std::size_t d = edit_distance(name, candidate);
    if (name.size() >= 3 && candidate.starts_with(name)) {
      d = std::min<std::size_t>(d, 1);
    }
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

} // namespace lg
