#include "speed.hpp"

#include "synthetic_log.hpp"

#include "diagnose/diagnose.hpp"

#include <fmt/core.h>

#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace lg::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start)
{
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The catalogue's patterns as POSIX ERE for grep -E (they are written in the
// common subset; "(?:" is the only RE2-only construct to translate).
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

class MappedFile
{
public:
  explicit MappedFile(const std::string& path)
  {
    m_fd = ::open(path.c_str(), O_RDONLY);
    m_size = std::filesystem::file_size(path);
    void* data = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, m_fd, 0);
    if (m_fd < 0 || data == MAP_FAILED) {
      throw std::runtime_error("cannot map " + path);
    }
    m_data = static_cast<const char*>(data);
  }
  ~MappedFile()
  {
    ::munmap(const_cast<char*>(m_data), m_size);
    ::close(m_fd);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view text() const { return {m_data, m_size}; }

private:
  int m_fd = -1;
  std::size_t m_size = 0;
  const char* m_data = nullptr;
};

double time_diagnose(const diagnose::Matcher& matcher, const std::string& path, unsigned threads,
                     std::size_t oom_line)
{
  const auto start = Clock::now();
  const MappedFile file(path);
  diagnose::ScanOptions options;
  options.threads = threads;
  const auto diagnosis = diagnose::diagnose({{path, file.text()}}, matcher, {}, options);
  const double elapsed = seconds_since(start);
  const bool found = !diagnosis.evidence.empty() && diagnosis.evidence[0].line == oom_line;
  fmt::print("  diagnose ({} thread{}): {:.3f} s, {:.2f} GB/s -> {} at line {}{}\n", threads,
             threads == 1 ? "" : "s", elapsed, double(file.text().size()) / elapsed / 1e9, diagnosis.category,
             diagnosis.evidence.empty() ? 0 : diagnosis.evidence[0].line, found ? " (the OOM)" : " (WRONG LINE)");
  return elapsed;
}

double time_grep(const std::string& patterns, const std::string& path, std::size_t bytes)
{
  const std::string command = fmt::format("LC_ALL=C grep -E -c -f '{}' '{}' > '{}.grep'", patterns, path, path);
  const auto start = Clock::now();
  const int status = std::system(command.c_str());
  const double elapsed = seconds_since(start);
  std::ifstream counted(path + ".grep");
  std::string matches;
  std::getline(counted, matches);
  fmt::print("  grep -E -c -f patterns.txt (LC_ALL=C): {:.3f} s, {:.2f} GB/s ({} matching lines, exit {})\n", elapsed,
             double(bytes) / elapsed / 1e9, matches, status);
  return elapsed;
}

} // namespace

void run_speed(const diagnose::Matcher& matcher, std::size_t bytes)
{
  std::string dir_template = (std::filesystem::temp_directory_path() / "lg-bench-diagnose.XXXXXX").string();
  if (::mkdtemp(dir_template.data()) == nullptr) {
    throw std::runtime_error("cannot create a temporary directory");
  }
  const std::filesystem::path dir(dir_template);
  const std::string log = (dir / "job-4242.out").string();
  const std::string patterns = (dir / "patterns.txt").string();
  auto start = Clock::now();
  const std::size_t oom_line = write_synthetic_log(log, bytes);
  write_patterns(matcher.catalogue(), patterns);
  const std::size_t size = std::filesystem::file_size(log);
  fmt::print("synthetic 64-rank log: {:.2f} GB, OOM at line {} (written in {:.1f} s)\n", double(size) / 1e9, oom_line,
             seconds_since(start));
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  double best = 1e30;
  for (int run = 0; run < 3; ++run) {
    best = std::min(best, time_diagnose(matcher, log, cores, oom_line));
  }
  const double single = time_diagnose(matcher, log, 1, oom_line);
  double grep_best = 1e30;
  for (int run = 0; run < 2; ++run) {
    grep_best = std::min(grep_best, time_grep(patterns, log, size));
  }
  fmt::print("\nscan speed: diagnose {:.2f} GB/s ({} threads), {:.2f} GB/s (1 thread); grep -E {:.2f} GB/s; "
             "diagnose/grep = {:.1f}x ({:.1f}x single-threaded)\n",
             double(size) / best / 1e9, cores, double(size) / single / 1e9, double(size) / grep_best / 1e9,
             grep_best / best, grep_best / single);
  std::filesystem::remove_all(dir);
}

} // namespace lg::bench
