#include "config/slurm_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace lg::config {

namespace {

std::optional<long long> number(std::string_view text)
{
  if (text.empty() || text.size() > 9) {
    return std::nullopt;
  }
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

// sbatch options that change the job preflight judged, and the key that says
// it instead. Short forms from sbatch(1).
struct Refused
{
  const char* name;
  char short_name;
  const char* instead;
};

constexpr Refused k_refused[] = {
  {"nodes", 'N', "[cluster] nodes"},
  {"ntasks", 'n', "[cluster] nodes and gpus_per_node (one task per GPU is what launchguard renders)"},
  {"ntasks-per-node", 0, "[cluster] gpus_per_node"},
  {"ntasks-per-gpu", 0, "[cluster] gpus_per_node"},
  {"gpus", 'G', "[cluster] gpus_per_node"},
  {"gpus-per-node", 0, "[cluster] gpus_per_node"},
  {"gpus-per-task", 0, "[cluster] gpus_per_node"},
  {"gpus-per-socket", 0, "[cluster] gpus_per_node"},
  {"gres", 0, "[cluster] gpus_per_node (launchguard writes --gpus-per-node)"},
  {"array", 'a', "one launchguard job per array element"},
  {"wrap", 0, "[launch] command"},
  {"partition", 'p', "[slurm] partition"},
  {"account", 'A', "[slurm] account"},
  {"qos", 'q', "[slurm] qos"},
  {"time", 't', "[slurm] time"},
  {"mem", 0, "[slurm] mem"},
  {"mem-per-cpu", 0, "[slurm] mem"},
  {"mem-per-gpu", 0, "[slurm] mem"},
  {"signal", 0, "[slurm] signal"},
  {"output", 'o', "[launch] output"},
  {"error", 'e', "[launch] output"},
  {"job-name", 'J', "[job] name"},
  {"chdir", 'D', "[launch] workdir"},
};

// The refused option an extra_args entry names, if any.
const Refused* refused_option(std::string_view arg)
{
  if (arg.starts_with("--")) {
    std::string_view name = arg.substr(2);
    name = name.substr(0, std::min(name.find('='), name.find(' ')));
    for (const auto& r : k_refused) {
      // getopt_long accepts an unambiguous prefix (--gpus-per-n); treat any
      // prefix of three letters or more as the option.
      if (name == r.name || (name.size() >= 3 && std::string_view(r.name).starts_with(name))) {
        return &r;
      }
    }
    return nullptr;
  }
  if (arg.size() >= 2 && arg[0] == '-') {
    for (const auto& r : k_refused) {
      if (r.short_name != 0 && arg[1] == r.short_name) {
        return &r;
      }
    }
  }
  return nullptr;
}

} // namespace

std::optional<long long> parse_slurm_time(std::string_view text)
{
  std::string upper(text);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper == "UNLIMITED" || upper == "INFINITE") {
    return 0;
  }
  long long days = 0;
  std::string_view rest = text;
  const bool has_days = rest.find('-') != std::string_view::npos;
  if (has_days) {
    const auto dash = rest.find('-');
    const auto d = number(rest.substr(0, dash));
    if (!d) {
      return std::nullopt;
    }
    days = *d;
    rest = rest.substr(dash + 1);
  }
  std::vector<long long> parts;
  std::size_t start = 0;
  while (true) {
    const auto colon = rest.find(':', start);
    const auto p = number(rest.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (!p) {
      return std::nullopt;
    }
    parts.push_back(*p);
    if (colon == std::string_view::npos) {
      break;
    }
    start = colon + 1;
  }
  if (parts.size() > 3) {
    return std::nullopt;
  }
  long long minutes = 0;
  if (has_days) {
    // days-hours, days-hours:minutes, days-hours:minutes:seconds
    const long long hours = parts[0];
    const long long mins = parts.size() > 1 ? parts[1] : 0;
    const long long secs = parts.size() > 2 ? parts[2] : 0;
    if (hours > 23 || mins > 59 || secs > 59) {
      return std::nullopt;
    }
    minutes = days * 1440 + hours * 60 + mins + (secs > 0 ? 1 : 0);
  } else if (parts.size() == 1) {
    minutes = parts[0];  // minutes
  } else if (parts.size() == 2) {
    if (parts[1] > 59) {
      return std::nullopt;  // minutes:seconds
    }
    minutes = parts[0] + (parts[1] > 0 ? 1 : 0);
  } else {
    if (parts[1] > 59 || parts[2] > 59) {
      return std::nullopt;  // hours:minutes:seconds
    }
    minutes = parts[0] * 60 + parts[1] + (parts[2] > 0 ? 1 : 0);
  }
  return minutes;
}

bool valid_slurm_mem(std::string_view text)
{
  if (text.empty()) {
    return false;
  }
  std::string_view digits = text;
  const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
  if (last == 'K' || last == 'M' || last == 'G' || last == 'T') {
    digits.remove_suffix(1);
  }
  return number(digits).has_value();
}

void check_slurm_fields(std::vector<Problem>& problems, const JobSpec& spec)
{
  auto where = [&](const std::string& key) {
    return spec.location_of(key).value_or(SourceLocation{spec.source_file, 1, 1});
  };
  if (!parse_slurm_time(spec.slurm.time)) {
    problems.push_back({where("slurm.time"),
                        fmt::format("slurm.time \"{}\" is not a Slurm time limit", spec.slurm.time),
                        "write minutes (\"90\"), \"HH:MM:SS\" (\"04:00:00\") or \"D-HH:MM:SS\" (\"2-00:00:00\")"});
  }
  if (!spec.slurm.mem.empty() && !valid_slurm_mem(spec.slurm.mem)) {
    problems.push_back({where("slurm.mem"),
                        fmt::format("slurm.mem \"{}\" is not a Slurm memory size", spec.slurm.mem),
                        "write megabytes (\"512000\") or a size with K, M, G or T (\"500G\"); \"0\" asks for all of the node's memory"});
  }
  for (const auto& arg : spec.slurm.extra_args) {
    if (arg == "hetjob" || arg == ":" || arg.starts_with("hetjob ")) {
      problems.push_back({where("slurm.extra_args"),
                          fmt::format("slurm.extra_args \"{}\" would make a heterogeneous job; preflight judged one "
                                      "component of {} node(s)", arg, spec.cluster.nodes),
                          "submit each component as its own launchguard job"});
    } else if (!arg.starts_with("-")) {
      problems.push_back({where("slurm.extra_args"),
                          fmt::format("slurm.extra_args \"{}\" is not an sbatch option (it must start with '-')", arg),
                          "write each option as one entry, e.g. extra_args = [\"--exclusive\", \"--constraint=h100\"]"});
    } else if (const Refused* r = refused_option(arg)) {
      problems.push_back({where("slurm.extra_args"),
                          fmt::format("slurm.extra_args \"{}\" sets --{}, which changes what preflight judged", arg, r->name),
                          fmt::format("use {} instead", r->instead)});
    }
  }
}

} // namespace lg::config
