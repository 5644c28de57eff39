// apply_fixes and unified_diff (fix.hpp). The diff is Myers' O(ND) greedy
// algorithm on lines; fixes change few lines, so D stays small.
#include "audit/fix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace lg::audit {

namespace {

std::vector<std::string> lines_of(const std::string& text)
{
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto eol = text.find('\n', start);
    const std::size_t end = eol == std::string::npos ? text.size() : eol + 1;
    out.push_back(text.substr(start, end - start));
    start = end;
  }
  return out;
}

enum class Op { keep, del, add };

// The edit script from a to b: (op, index in a or b).
std::vector<std::pair<Op, int>> myers(const std::vector<std::string>& a, const std::vector<std::string>& b)
{
  const int n = static_cast<int>(a.size());
  const int m = static_cast<int>(b.size());
  const int max = n + m;
  std::vector<int> v(static_cast<std::size_t>(2 * max + 2), 0);
  std::vector<std::vector<int>> trace;
  const auto at = [&](int k) -> int& { return v[static_cast<std::size_t>(k + max + 1)]; };
  int found = -1;
  constexpr int k_max_changes = 2000;  // beyond: one hunk replacing everything
  for (int d = 0; d <= max && d <= k_max_changes && found < 0; ++d) {
    trace.push_back(v);
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? at(k + 1) : at(k - 1) + 1;
      int y = x - k;
      while (x < n && y < m && a[static_cast<std::size_t>(x)] == b[static_cast<std::size_t>(y)]) {
        ++x;
        ++y;
      }
      at(k) = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  std::vector<std::pair<Op, int>> ops;
  if (found < 0) {
    for (int i = 0; i < n; ++i) {
      ops.emplace_back(Op::del, i);
    }
    for (int i = 0; i < m; ++i) {
      ops.emplace_back(Op::add, i);
    }
    return ops;
  }
  int x = n;
  int y = m;
  for (int d = found; d > 0; --d) {
    v = trace[static_cast<std::size_t>(d)];
    const int k = x - y;
    const int prev_k = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
    const int prev_x = at(prev_k);
    const int prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) {
      ops.emplace_back(Op::keep, --x);
      --y;
    }
    if (x == prev_x) {
      ops.emplace_back(Op::add, --y);
    } else {
      ops.emplace_back(Op::del, --x);
    }
  }
  while (x > 0) {
    ops.emplace_back(Op::keep, --x);
  }
  std::reverse(ops.begin(), ops.end());
  return ops;
}

std::string line_text(const std::string& line)
{
  return line.ends_with("\n") ? line : line + "\n\\ No newline at end of file\n";
}

} // namespace

std::string apply_fixes(const std::string& text, const std::vector<AuditFinding>& findings)
{
  std::vector<std::tuple<int, int, std::size_t, const Edit*>> edits;
  for (const auto& finding : findings) {
    for (const auto& edit : finding.edits) {
      edits.emplace_back(edit.begin, edit.end, edits.size(), &edit);
    }
  }
  std::sort(edits.begin(), edits.end());
  std::string out;
  int pos = 0;
  const Edit* last = nullptr;
  const int size = static_cast<int>(text.size());
  for (const auto& [begin, end, order, edit] : edits) {
    (void)order;
    if (last != nullptr && last->begin == begin && last->end == end && last->text == edit->text) {
      continue;
    }
    if (begin < pos || begin > size || end > size || end < begin) {
      continue;
    }
    out.append(text, static_cast<std::size_t>(pos), static_cast<std::size_t>(begin - pos));
    out += edit->text;
    pos = end;
    last = edit;
  }
  out.append(text, static_cast<std::size_t>(pos), std::string::npos);
  return out;
}

std::string unified_diff(const std::string& before, const std::string& after, const std::string& path)
{
  if (before == after) {
    return {};
  }
  const auto a = lines_of(before);
  const auto b = lines_of(after);
  const auto ops = myers(a, b);
  std::string out = fmt::format("--- a/{}\n+++ b/{}\n", path, path);
  constexpr std::size_t k_context = 3;
  std::size_t i = 0;
  while (i < ops.size()) {
    if (ops[i].first == Op::keep) {
      ++i;
      continue;
    }
    std::size_t start = i >= k_context ? i - k_context : 0;
    std::size_t end = i;
    std::size_t keeps = 0;
    while (end < ops.size() && keeps <= 2 * k_context) {
      keeps = ops[end].first == Op::keep ? keeps + 1 : 0;
      ++end;
    }
    end = std::min(ops.size(), end - (keeps > k_context ? keeps - k_context : 0));
    int a_start = 0;
    int b_start = 0;
    int a_count = 0;
    int b_count = 0;
    std::string body;
    int ai = 0;
    int bi = 0;
    for (std::size_t j = 0; j < start; ++j) {
      ai += ops[j].first != Op::add ? 1 : 0;
      bi += ops[j].first != Op::del ? 1 : 0;
    }
    a_start = ai + 1;
    b_start = bi + 1;
    for (std::size_t j = start; j < end; ++j) {
      const auto [op, index] = ops[j];
      if (op == Op::keep) {
        body += " " + line_text(a[static_cast<std::size_t>(index)]);
        ++a_count;
        ++b_count;
      } else if (op == Op::del) {
        body += "-" + line_text(a[static_cast<std::size_t>(index)]);
        ++a_count;
      } else {
        body += "+" + line_text(b[static_cast<std::size_t>(index)]);
        ++b_count;
      }
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", a_count == 0 ? a_start - 1 : a_start, a_count,
                       b_count == 0 ? b_start - 1 : b_start, b_count);
    out += body;
    i = end;
  }
  return out;
}

} // namespace lg::audit
