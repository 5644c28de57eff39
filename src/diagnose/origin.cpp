#include "diagnose/origin.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <memory>
#include <vector>

namespace lg::diagnose {

namespace {

constexpr std::size_t k_block_lines = 8;            // ChildFailedError fields above a hit
constexpr std::size_t k_host_search_bytes = 4 << 20;  // init lines are at the start

// A host name as Slurm and NCCL print it: starts with a letter or digit.
#define LG_HOST "([A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]|[A-Za-z0-9])"

struct Patterns
{
  // Ranks, most specific first.
  std::vector<std::unique_ptr<RE2>> rank;
  std::vector<std::unique_ptr<RE2>> host;
  RE2 block_rank{R"(^\s*rank\s*:\s*([0-9]+)\s*\(local_rank)"};
  RE2 block_host{R"(^\s*host\s*:\s*)" LG_HOST};
  RE2 block_start{R"(^\s*(\[[0-9]+\]:\s*$|Root Cause|Failures:|=====|-----))"};
  RE2 file_rank{R"((?:^|[^A-Za-z])(?:rank|task|proc)[-_.]?([0-9]{1,6})(?:[^0-9]|$))"};

  Patterns();
};

Patterns::Patterns()
{
    for (const char* pattern : {
           R"(^\s*(?:[0-9]+: )?(?:\[[0-9]+\] )?(?:\S+ )?(?:\[default[0-9]+\]:)?\[rank ?([0-9]+)\]:)",
           R"(\[(?:PG [^\]]*)?Rank ([0-9]+)\])",
           R"(^\s*([0-9]{1,6}): )",
           R"(\bRank ([0-9]+)(?:, node |: ))",
           R"(NCCL INFO comm 0x[0-9a-f]+ rank ([0-9]+) nranks)",
           R"(srun: error: [^ ]+: task ([0-9]+): )",
           R"(\b[Rr]ank ([0-9]+)\b)",
         }) {
      rank.push_back(std::make_unique<RE2>(pattern));
    }
    for (const char* pattern : {
           // NCCL: "n1:3468:3905 [4] ..." after any launcher prefix.
           R"((?:^|[\s\]:])([A-Za-z][A-Za-z0-9._-]*):[0-9]+:[0-9]+ \[[0-9]+\] )",
           R"(slurmstepd-)" LG_HOST R"(:)",
           R"(srun: error: )" LG_HOST R"(: tasks? [0-9])",
           R"(\bON )" LG_HOST R"( (?:CANCELLED|FAILED))",
           R"((?:Node failure on|failed on node|on failed node|failure of node) )" LG_HOST,
           R"(\bNodes? )" LG_HOST R"( not responding)",
           R"(^[A-Z][a-z]{2} +[0-9]+ [0-9:]{8} )" LG_HOST R"( kernel:)",
           R"(\bRank [0-9]+, node )" LG_HOST R"(,)",
           R"(\bnode: )" LG_HOST,
           R"(\bhostname=)" LG_HOST,
         }) {
      host.push_back(std::make_unique<RE2>(pattern));
    }
}

const Patterns& patterns()
{
  static const Patterns compiled;
  return compiled;
}

std::optional<int> to_int(std::string_view digits)
{
  int value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return value;
}

std::optional<int> capture_int(const RE2& pattern, std::string_view line)
{
  re2::StringPiece digits;
  if (!RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), pattern, &digits)) {
    return std::nullopt;
  }
  return to_int(std::string_view(digits.data(), digits.size()));
}

std::string capture_host(const RE2& pattern, std::string_view line)
{
  re2::StringPiece host;
  if (!RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), pattern, &host)) {
    return {};
  }
  return std::string(host.data(), host.size());
}

// The line that starts before `end` (the offset just past its newline).
std::string_view line_before(std::string_view text, std::size_t end)
{
  const std::size_t stop = end == 0 ? 0 : end - 1;  // the newline ending it
  const auto newline = stop == 0 ? std::string_view::npos : text.rfind('\n', stop - 1);
  const std::size_t begin = newline == std::string_view::npos ? 0 : newline + 1;
  return text.substr(begin, stop - begin);
}

std::string_view line_at(std::string_view text, std::size_t offset)
{
  const auto end = text.find('\n', offset);
  std::string_view line = text.substr(offset, end == std::string_view::npos ? std::string_view::npos : end - offset);
  while (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  return line;
}

std::string_view base_name(std::string_view path)
{
  const auto slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

} // namespace

Origin origin_of_line(std::string_view line)
{
  const Patterns& p = patterns();
  Origin origin;
  for (const auto& pattern : p.rank) {
    if ((origin.rank = capture_int(*pattern, line))) {
      break;
    }
  }
  for (const auto& pattern : p.host) {
    if (!(origin.host = capture_host(*pattern, line)).empty()) {
      break;
    }
  }
  return origin;
}

Origin origin_of_hit(std::string_view text, std::size_t offset, std::string_view file_name)
{
  const Patterns& p = patterns();
  Origin origin = origin_of_line(line_at(text, offset));
  // torchrun's ChildFailedError block: "host : …" and "rank : …" sit a few
  // lines above "exitcode : …" / "traceback : …".
  std::size_t end = offset;
  for (std::size_t i = 0; i < k_block_lines && end > 0 && (!origin.rank || origin.host.empty()); ++i) {
    const std::string_view above = line_before(text, end);
    if (!origin.rank) {
      origin.rank = capture_int(p.block_rank, above);
    }
    if (origin.host.empty()) {
      origin.host = capture_host(p.block_host, above);
    }
    if (RE2::PartialMatch(re2::StringPiece(above.data(), above.size()), p.block_start)) {
      break;
    }
    end -= std::min(end, above.size() + 1);
  }
  if (!origin.rank) {
    origin.rank = rank_from_file_name(file_name);
  }
  return origin;
}

std::optional<int> rank_from_file_name(std::string_view file_name)
{
  return capture_int(patterns().file_rank, base_name(file_name));
}

Hosts hosts_in_text(std::string_view text)
{
  Hosts hosts;
  const std::string_view head = text.substr(0, k_host_search_bytes);
  for (std::size_t at = head.find("NCCL"); at != std::string_view::npos; at = head.find("NCCL", at)) {
    const auto line_start = head.rfind('\n', at);
    const std::string_view line = line_at(head, line_start == std::string_view::npos ? 0 : line_start + 1);
    const Origin origin = origin_of_line(line);
    if (!origin.host.empty()) {
      if (hosts.first.empty()) {
        hosts.first = origin.host;
      }
      if (origin.rank) {
        hosts.by_rank.emplace(*origin.rank, origin.host);
      }
    }
    const auto newline = head.find('\n', at);
    at = newline == std::string_view::npos ? head.size() : newline + 1;
  }
  return hosts;
}

#undef LG_HOST

} // namespace lg::diagnose
