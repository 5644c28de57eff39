#include "speed.hpp"

#include "synthetic_log.hpp"

#include <fmt/core.h>

#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace lg::bench {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start)
{
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The catalogue's patterns, one per line, for grep -E -f and rg -f (they are
// written in the common subset; "(?:" is the only RE2-only construct).
void write_patterns(const diagnose::Catalogue& catalogue, const std::string& path)
{
  std::ofstream out(path);
  for (const auto& sig : catalogue.signatures) {
    for (std::string pattern : sig.patterns) {
      for (auto at = pattern.find("(?:"); at != std::string::npos; at = pattern.find("(?:")) {
        pattern.erase(at + 1, 2);
      }
      out << pattern << '\n';
    }
  }
}

bool have(const std::string& program)
{
  return std::system(fmt::format("command -v {} > /dev/null 2>&1", program).c_str()) == 0;
}

struct Run
{
  double seconds = 0;
  double cpu_seconds = 0;  // user + system, all threads: what the tool cost, whatever else ran
  double peak_mib = 0;
  int status = 0;
  std::string output;  // first line of stdout
};

// Run `command` under /usr/bin/time (wall time and peak RSS of the process).
Run timed(const std::string& command, const fs::path& dir)
{
  const fs::path times = dir / "time.txt";
  const fs::path output = dir / "out.txt";
  const fs::path script = dir / "command.sh";
  std::ofstream(script) << "exec " << command << "\n";  // exec: time measures the tool itself
  const std::string line = fmt::format("/usr/bin/time -f '%e %M %U %S' -o '{}' bash '{}' > '{}' 2>&1", times.string(),
                                       script.string(), output.string());
  const auto start = Clock::now();
  const int status = std::system(line.c_str());
  Run run;
  run.seconds = seconds_since(start);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  // GNU time writes "Command exited with non-zero status N" above the
  // figures when the tool exits non-zero (diagnose exits 1 on a failure):
  // the figures are the last line.
  std::ifstream in(times);
  std::string last;
  for (std::string text; std::getline(in, text);) {
    if (!text.empty()) {
      last = text;
    }
  }
  std::istringstream figures(last);
  double elapsed = 0;
  long kib = 0;
  double user = 0;
  double system = 0;
  if (figures >> elapsed >> kib >> user >> system) {
    run.peak_mib = static_cast<double>(kib) / 1024.0;
    run.cpu_seconds = user + system;
  } else {
    run.peak_mib = -1;  // printed as unknown, never as a small number
  }
  std::ifstream out(output);
  std::getline(out, run.output);
  return run;
}

// Keep the better of two runs of one command: the least wall time and,
// separately, the least CPU time (on a shared machine either can be
// inflated by other work).
void keep_best(std::optional<Run>& out, const Run& run)
{
  if (!out) {
    out = run;
    return;
  }
  const double cpu = std::min(out->cpu_seconds, run.cpu_seconds);
  if (run.seconds < out->seconds) {
    out = run;
  }
  out->cpu_seconds = cpu;
}

void row(std::string_view tool, const Run& run, std::size_t bytes)
{
  fmt::print("  {:<34} {:7.2f} s {:6.2f} GB/s  CPU {:7.2f} s  peak RSS {:7.1f} MiB  exit {}  {}\n", tool, run.seconds,
             double(bytes) / run.seconds / 1e9, run.cpu_seconds, run.peak_mib, run.status, run.output.substr(0, 60));
  std::fflush(stdout);
}

std::string load_average()
{
  std::ifstream in("/proc/loadavg");
  std::string one;
  in >> one;
  return one.empty() ? "unknown" : one;
}

struct Case
{
  std::string title;
  std::string diagnose_args;  // the log arguments
  std::string rg_args;
  std::string grep_args;
  std::size_t bytes = 0;
  std::string piped_from;  // a command whose output is piped into each tool ("" for none)
};

void measure(const Case& c, const SpeedOptions& options, const fs::path& dir, const std::string& patterns)
{
  fmt::print("\n{} ({:.2f} GB; load average {} on {} CPUs)\n", c.title, double(c.bytes) / 1e9, load_average(),
             std::thread::hardware_concurrency());
  // diagnose and rg alternate, best of `tries` each, so a burst of other
  // work on the machine does not land on one tool only.
  const int tries = c.bytes > (6ull << 30) ? 1 : 3;
  const bool with_rg = !c.rg_args.empty() && have("rg");
  std::optional<Run> lg_run;
  std::optional<Run> rg;
  const std::string pipe = c.piped_from.empty() ? std::string() : c.piped_from + " | ";
  for (int i = 0; i < tries; ++i) {
    keep_best(lg_run, timed(fmt::format("{}{} diagnose {}", pipe, options.launchguard, c.diagnose_args), dir));
    if (with_rg) {
      keep_best(rg, timed(fmt::format("{}rg --no-config -c -f {} {}", pipe, patterns, c.rg_args), dir));
    }
  }
  const Run lg = *lg_run;
  row("launchguard diagnose", lg, c.bytes);
  if (with_rg) {
    row("rg -c -f patterns", *rg, c.bytes);
  } else if (!c.rg_args.empty()) {
    fmt::print("  rg: not installed (apt-get install ripgrep); no ratio against ripgrep\n");
  }
  std::optional<Run> grep;
  if (!c.grep_args.empty()) {
    // `env`: the script execs the tool, and exec takes no assignments.
    grep = timed(fmt::format("env LC_ALL=C grep -E -c -f {} {}", patterns, c.grep_args), dir);
    row("grep -E -c -f patterns (LC_ALL=C)", *grep, c.bytes);
  }
  fmt::print("  => diagnose is {}{}; peak RSS {:.1f} MiB\n",
             rg ? fmt::format("{:.2f}x ripgrep's speed (wall; {:.2f}x in CPU time)", rg->seconds / lg.seconds,
                              rg->cpu_seconds / lg.cpu_seconds)
                : std::string("(no rg)"),
             grep ? fmt::format(", {:.2f}x grep -E's", grep->seconds / lg.seconds) : std::string(), lg.peak_mib);
  std::fflush(stdout);
}

double free_gb(const fs::path& dir)
{
  struct statvfs info{};
  if (::statvfs(dir.c_str(), &info) != 0) {
    return 0;
  }
  return double(info.f_bavail) * double(info.f_frsize) / 1e9;
}

} // namespace

void run_speed(const diagnose::Matcher& matcher, const SpeedOptions& options)
{
  if (!have("/usr/bin/time")) {
    throw std::runtime_error("/usr/bin/time is needed for wall time and peak RSS (apt-get install time)");
  }
  std::string dir_template = (fs::temp_directory_path() / "lg-bench-diagnose.XXXXXX").string();
  if (::mkdtemp(dir_template.data()) == nullptr) {
    throw std::runtime_error("cannot create a temporary directory");
  }
  const fs::path dir(dir_template);
  const std::string patterns = (dir / "patterns.txt").string();
  write_patterns(matcher.catalogue(), patterns);
  fmt::print("binary: {}\nlogs in {} ({:.0f} GB free); same patterns for all tools ({})\n", options.launchguard,
             dir.string(), free_gb(dir), patterns);
  bool first = true;
  for (const double gb : options.sizes_gb) {
    const auto bytes = static_cast<std::size_t>(gb * 1e9);
    if (free_gb(dir) < gb * 1.5 + 2) {
      fmt::print("\nskipped: the {:.0f} GB log ({:.0f} GB free, {:.0f} GB needed)\n", gb, free_gb(dir), gb * 1.5 + 2);
      continue;
    }
    const fs::path log = dir / fmt::format("job-{:.0f}gb.out", gb);
    const auto start = Clock::now();
    const std::size_t oom_line = write_synthetic_log(log.string(), bytes);
    const std::size_t size = fs::file_size(log);
    fmt::print("\ngenerated {} in {:.0f} s: OOM at line {}", log.filename().string(), seconds_since(start), oom_line);
    measure({fmt::format("one 64-rank log, {:.0f} GB", gb), "'" + log.string() + "'", "'" + log.string() + "'",
             "'" + log.string() + "'", size, ""},
            options, dir, patterns);
    if (first) {
      // What users run: another program's output through a pipe (zcat,
      // kubectl logs, cat), not a file redirected onto stdin. Both tools
      // share the same `cat`, so its time is in both figures.
      measure({"the same log piped on standard input (cat LOG | …)", "-", "-", "", size,
               "cat '" + log.string() + "'"},
              options, dir, patterns);
    }
    if (first && options.gzip && have("gzip")) {
      const auto zip_start = Clock::now();
      std::system(fmt::format("gzip -1 -c '{}' > '{}.gz'", log.string(), log.string()).c_str());
      fmt::print("\ngzip -1 in {:.0f} s ({:.2f} GB compressed)", seconds_since(zip_start),
                 double(fs::file_size(log.string() + ".gz")) / 1e9);
      measure({"the same log gzip'd (diagnose reads it; rg -z)", "'" + log.string() + ".gz'",
               "-z '" + log.string() + ".gz'", "", size, ""},
              options, dir, patterns);
      fs::remove(log.string() + ".gz");
    }
    first = false;
    fs::remove(log);
  }
  if (options.per_rank_gb > 0) {
    const fs::path ranks = dir / "ranks";
    fs::create_directories(ranks);
    const auto bytes = static_cast<std::size_t>(options.per_rank_gb * 1e9 / 64);
    std::size_t total = 0;
    for (int rank = 0; rank < 64; ++rank) {
      const fs::path file = ranks / fmt::format("rank{:02d}.out", rank);
      write_synthetic_log(file.string(), bytes);
      total += fs::file_size(file);
    }
    const std::string files = "'" + ranks.string() + "'/rank*.out";
    measure({"64 per-rank files", files, "'" + ranks.string() + "'", files, total, ""}, options, dir, patterns);
  }
  fs::remove_all(dir);
}

} // namespace lg::bench
