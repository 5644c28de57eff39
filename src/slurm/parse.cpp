// Parsers for sbatch/sacct/squeue output, tested against output captured from
// a real Slurm 22.05 cluster (tests/unit/slurm/test_parse.cpp).
//
// All of them are total: a line that does not fit is skipped, a value that
// does not parse becomes "unknown"/nullopt. A broken sacct must make watch
// say "state unknown", not crash launchguard.
#include "slurm/parse.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <iterator>
#include <map>

namespace lg::slurm {

namespace {

bool is_digits(std::string_view text)
{
  return !text.empty()
         && std::all_of(text.begin(), text.end(), [](char c) {
              return std::isdigit(static_cast<unsigned char>(c)) != 0;
            });
}

std::optional<long> to_number(std::string_view text)
{
  long value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  return value;
}

// "12345", "12345_7", "12345_[1-3]", "12345+0": a job (not a step) id.
bool is_job_id(std::string_view text)
{
  const size_t digits_end = text.find_first_of("_+");
  if (!is_digits(text.substr(0, digits_end))) {
    return false;
  }
  return digits_end == std::string_view::npos || digits_end + 1 < text.size();
}

// Split a '|'-separated line into exactly `count` fields; the last field
// keeps any further '|'. Nothing if there are fewer fields.
std::optional<std::vector<std::string>> fields(std::string_view line,
                                               size_t count)
{
  std::vector<std::string> parts = split(line, '|');
  if (parts.size() < count) {
    return std::nullopt;
  }
  std::vector<std::string> tail(parts.begin() + static_cast<long>(count) - 1,
                                parts.end());
  parts.resize(count - 1);
  parts.push_back(join(tail, "|"));
  return parts;
}

std::string clean_comment(std::string_view text)
{
  return text == "(null)" ? std::string() : std::string(text);
}

std::vector<std::string_view> lines_of(std::string_view text)
{
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (!trim(line).empty()) {
      lines.push_back(line);
    }
    if (end == std::string_view::npos) {
      break;
    }
    text.remove_prefix(end + 1);
  }
  return lines;
}

} // namespace

std::optional<JobId> parse_sbatch_parsable(std::string_view out)
{
  // sbatch may print other lines before the id; the id is the last line.
  const auto lines = lines_of(out);
  if (lines.empty()) {
    return std::nullopt;
  }
  const std::string_view line = trim(lines.back());
  const std::string_view id = line.substr(0, line.find(';'));
  if (!is_job_id(id)) {
    return std::nullopt;
  }
  return JobId(id);
}

std::optional<ExitStatus> parse_exit_status(std::string_view text)
{
  text = trim(text);
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return std::nullopt;
  }
  const auto code = to_number(text.substr(0, colon));
  const auto signal = to_number(text.substr(colon + 1));
  if (!code || !signal || *code < 0 || *signal < 0 || *code > 255
      || *signal > 255) {
    return std::nullopt;
  }
  return ExitStatus{static_cast<int>(*code), static_cast<int>(*signal)};
}

std::optional<std::chrono::seconds> parse_duration(std::string_view text)
{
  text = trim(text);
  long days = 0;
  if (const size_t dash = text.find('-'); dash != std::string_view::npos) {
    const auto parsed = to_number(text.substr(0, dash));
    if (!parsed || *parsed < 0) {
      return std::nullopt;
    }
    days = *parsed;
    text.remove_prefix(dash + 1);
  }
  text = text.substr(0, text.find('.')); // "00:01:02.345" in some columns
  const std::vector<std::string> parts = split(text, ':');
  if (parts.size() < 2 || parts.size() > 3) {
    return std::nullopt;
  }
  long total = 0;
  for (const auto& part : parts) {
    const auto value = to_number(part);
    if (!value || *value < 0 || *value > 99) {
      return std::nullopt;
    }
    total = total * 60 + *value;
  }
  return std::chrono::seconds(days * 86400 + total);
}

std::vector<JobStatus> parse_sacct(std::string_view out)
{
  std::vector<JobStatus> jobs;
  std::map<std::string, size_t> index; // job id → position in `jobs`
  for (const auto line : lines_of(out)) {
    const auto row = fields(line, 8);
    if (!row) {
      continue;
    }
    const std::string& id = (*row)[0];
    const size_t dot = id.find('.');
    if (dot == std::string::npos) {
      if (!is_job_id(id)) {
        continue;
      }
      JobStatus job;
      job.id = id;
      job.name = (*row)[1];
      job.raw_state = (*row)[2];
      job.state = parse_job_state(job.raw_state);
      job.exit = parse_exit_status((*row)[3]);
      job.elapsed = parse_duration((*row)[4]);
      job.nodes = (*row)[5] == "None assigned" ? "" : (*row)[5];
      job.reason = (*row)[6];
      job.comment = clean_comment((*row)[7]);
      job.source = StatusSource::sacct;
      index[id] = jobs.size();
      jobs.push_back(std::move(job));
      continue;
    }
    const auto parent = index.find(id.substr(0, dot));
    if (parent == index.end() || dot + 1 == id.size()) {
      continue; // a step without its job line: -X output or garbage
    }
    StepStatus step;
    step.step = id.substr(dot + 1);
    step.name = (*row)[1];
    step.raw_state = (*row)[2];
    step.state = parse_job_state(step.raw_state);
    step.exit = parse_exit_status((*row)[3]);
    step.nodes = (*row)[5] == "None assigned" ? "" : (*row)[5];
    jobs[parent->second].steps.push_back(std::move(step));
  }
  return jobs;
}

std::vector<JobStatus> parse_squeue(std::string_view out)
{
  std::vector<JobStatus> jobs;
  for (const auto line : lines_of(out)) {
    const auto row = fields(line, 7);
    if (!row || !is_job_id((*row)[0])) {
      continue;
    }
    JobStatus job;
    job.id = (*row)[0];
    job.name = (*row)[1];
    job.raw_state = (*row)[2];
    job.state = parse_job_state(job.raw_state);
    job.elapsed = parse_duration((*row)[3]);
    job.nodes = (*row)[4];
    job.reason = (*row)[5];
    job.comment = clean_comment((*row)[6]);
    job.source = StatusSource::squeue;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

bool is_transient_error(std::string_view err)
{
  // Verbatim pieces of Slurm 22.05 messages (slurm_strerror and the
  // persistent-connection errors of sacct/sacctmgr).
  constexpr std::array k_transient = {
    std::string_view("Socket timed out on send/recv operation"),
    std::string_view("Unable to contact slurm controller"),
    std::string_view("Connection refused"),
    std::string_view("Connection timed out"),
    std::string_view("Zero Bytes were transmitted or received"),
    std::string_view("Slurm temporarily unable to accept job"),
    std::string_view("Resource temporarily unavailable"),
    std::string_view("Problem talking to the database"),
    std::string_view("slurm_persist_conn_open"),
    std::string_view("Slurm backup controller in standby mode"),
    std::string_view("Communication connection failure"),
  };
  return std::any_of(k_transient.begin(), k_transient.end(), [&](auto piece) {
    return err.find(piece) != std::string_view::npos;
  });
}

bool is_accounting_unavailable(std::string_view err)
{
  return err.find("accounting storage is disabled") != std::string_view::npos
         || err.find("Problem talking to the database")
              != std::string_view::npos
         || err.find("slurm_persist_conn_open") != std::string_view::npos;
}

std::string slurm_error_reason(std::string_view err)
{
  const auto lines = lines_of(err);
  std::string_view reason;
  for (const auto line : lines) {
    if (line.find("error:") != std::string_view::npos) {
      reason = line;
    }
  }
  if (reason.empty()) {
    return lines.empty() ? std::string() : std::string(trim(lines.back()));
  }
  for (const std::string_view prefix :
       {std::string_view("error:"),
        std::string_view("Batch job submission failed:")}) {
    if (const size_t at = reason.find(prefix); at != std::string_view::npos) {
      reason.remove_prefix(at + prefix.size());
    }
  }
  return std::string(trim(reason));
}

} // namespace lg::slurm

namespace lg::slurm {

JobId canonical_job_id(std::string_view id)
{
  const size_t digits_end = std::min(id.find_first_of("_+"), id.size());
  size_t start = 0;
  while (start + 1 < digits_end && id[start] == '0') {
    ++start;
  }
  return JobId(id.substr(start));
}

namespace {

// True if `part` (canonical) is a component or task of job `whole`
// (canonical, without a suffix): "181+1" of "181", "180_3" of "180".
bool is_part_of(const JobId& part, const JobId& whole)
{
  return part.size() > whole.size() + 1 && part.compare(0, whole.size(), whole) == 0
         && (part[whole.size()] == '+' || part[whole.size()] == '_');
}

JobStatus sum_of_parts(const JobId& requested, const std::vector<const JobStatus*>& parts)
{
  const JobStatus* deciding = nullptr;
  for (const auto* part : parts) {
    if (!is_terminal(part->state) && (deciding == nullptr || part->state == JobState::running)) {
      if (deciding == nullptr || deciding->state != JobState::running) {
        deciding = part;
      }
    }
  }
  if (deciding == nullptr) {
    for (const auto* part : parts) {
      if (part->state != JobState::completed) {
        deciding = part;
        break;
      }
    }
  }
  if (deciding == nullptr) {
    deciding = parts.front();
  }
  JobStatus sum = *deciding;
  sum.id = requested;
  sum.steps.clear();
  sum.nodes.clear();
  for (const auto* part : parts) {
    sum.steps.insert(sum.steps.end(), part->steps.begin(), part->steps.end());
    if (!part->nodes.empty() && sum.nodes.find(part->nodes) == std::string::npos) {
      sum.nodes += (sum.nodes.empty() ? "" : ",") + part->nodes;
    }
    if (part->elapsed && (!sum.elapsed || *part->elapsed > *sum.elapsed)) {
      sum.elapsed = part->elapsed;
    }
    if (part->source == StatusSource::squeue) {
      sum.source = StatusSource::squeue;  // not every part has its accounting record yet
    }
  }
  return sum;
}

} // namespace

std::vector<JobStatus> match_requested(std::span<const JobId> requested, const std::vector<JobStatus>& reported)
{
  std::vector<JobStatus> out;
  for (const auto& id : requested) {
    const JobId want = canonical_job_id(id);
    const bool whole_job = want.find_first_of("_+") == JobId::npos;
    std::vector<const JobStatus*> exact;
    std::vector<const JobStatus*> parts;
    for (const auto& status : reported) {
      const JobId got = canonical_job_id(status.id);
      if (got == want) {
        exact.push_back(&status);
      } else if (whole_job && is_part_of(got, want)) {
        parts.push_back(&status);
      }
    }
    if (!exact.empty()) {
      JobStatus status = *exact.front();
      status.id = id;
      out.push_back(std::move(status));
    } else if (!parts.empty()) {
      out.push_back(sum_of_parts(id, parts));
    }
  }
  return out;
}

bool is_node_name(std::string_view name)
{
  if (name.empty() || name.size() > 64) {
    return false;
  }
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  if (!alnum(name.front())) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [&](char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; });
}

namespace {

// One hostlist item ("gpu[01-03,7]" or "n5") appended to `out`; false when
// it is not one this reads.
bool expand_hostlist_item(std::string_view item, std::vector<std::string>& out, std::size_t max_nodes)
{
  const std::size_t open = item.find('[');
  if (open == std::string_view::npos) {
    if (!is_node_name(item)) {
      return false;
    }
    out.emplace_back(item);
    return out.size() <= max_nodes;
  }
  const std::size_t close = item.find(']', open);
  if (close == std::string_view::npos || item.find('[', open + 1) != std::string_view::npos) {
    return false;  // unclosed, or a second bracket ("r[1-2]n[1-4]")
  }
  const std::string_view prefix = item.substr(0, open);
  const std::string_view suffix = item.substr(close + 1);
  std::string_view ranges = item.substr(open + 1, close - open - 1);
  while (!ranges.empty()) {
    const std::size_t comma = ranges.find(',');
    const std::string_view range = ranges.substr(0, comma);
    ranges = comma == std::string_view::npos ? std::string_view() : ranges.substr(comma + 1);
    const std::size_t dash = range.find('-');
    const std::string_view low_text = range.substr(0, dash);
    const std::string_view high_text = dash == std::string_view::npos ? low_text : range.substr(dash + 1);
    const auto number = [](std::string_view digits) -> std::optional<long> {
      if (digits.empty() || digits.size() > 9
          || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::nullopt;
      }
      return std::stol(std::string(digits));
    };
    const auto low = number(low_text);
    const auto high = number(high_text);
    if (!low || !high || *high < *low || static_cast<std::size_t>(*high - *low) >= max_nodes) {
      return false;
    }
    for (long n = *low; n <= *high; ++n) {
      std::string digits = std::to_string(n);
      if (digits.size() < low_text.size()) {
        digits.insert(0, low_text.size() - digits.size(), '0');  // "01-03" keeps two digits
      }
      std::string name = std::string(prefix) + digits + std::string(suffix);
      if (!is_node_name(name)) {
        return false;
      }
      out.push_back(std::move(name));
      if (out.size() > max_nodes) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

std::optional<std::vector<std::string>> expand_node_list(std::string_view node_list, std::size_t max_nodes)
{
  std::vector<std::string> out;
  std::size_t depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= node_list.size(); ++i) {
    const char c = i < node_list.size() ? node_list[i] : ',';
    depth += c == '[' ? 1 : 0;
    depth -= c == ']' && depth > 0 ? 1 : 0;
    if (c == ',' && depth == 0) {
      const std::string_view item = node_list.substr(start, i - start);
      if (!item.empty() && !expand_hostlist_item(item, out, max_nodes)) {
        return std::nullopt;
      }
      start = i + 1;
    }
  }
  if (depth != 0) {
    return std::nullopt;  // an unclosed bracket
  }
  return out;
}

NodeFailCandidates node_fail_candidates(const JobStatus& status)
{
  NodeFailCandidates result;
  std::optional<std::vector<std::string>> common;
  std::vector<std::string> failed_steps;
  for (const auto& step : status.steps) {
    if (step.state != JobState::node_fail) {
      continue;
    }
    auto nodes = expand_node_list(step.nodes);
    if (!nodes || nodes->empty()) {
      common.reset();
      failed_steps.clear();
      break;  // a step whose nodes cannot be read: narrow nothing
    }
    std::sort(nodes->begin(), nodes->end());
    if (!common) {
      common = std::move(*nodes);
    } else {
      std::vector<std::string> both;
      std::set_intersection(common->begin(), common->end(), nodes->begin(), nodes->end(), std::back_inserter(both));
      common = std::move(both);
    }
    failed_steps.push_back(status.id + "." + step.step);
  }
  if (common && !common->empty()) {
    result.nodes = std::move(*common);
    result.source = fmt::format("the NodeList of the NODE_FAIL step{} {}", failed_steps.size() == 1 ? "" : "s",
                                fmt::join(failed_steps, ", "));
    return result;
  }
  if (auto nodes = expand_node_list(status.nodes)) {
    std::sort(nodes->begin(), nodes->end());
    nodes->erase(std::unique(nodes->begin(), nodes->end()), nodes->end());
    result.nodes = std::move(*nodes);
  }
  result.source = "the job's NodeList (the whole allocation)";
  return result;
}

std::string exclude_argument(const std::vector<std::string>& nodes)
{
  std::string joined;
  for (const auto& node : nodes) {
    joined += (joined.empty() ? "" : ",") + node;
  }
  return "--exclude=" + joined;
}

} // namespace lg::slurm
