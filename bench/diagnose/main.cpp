// bench_diagnose [FAILURE_LOGS.json…] [--size-gb N] [--catalogue FILE] [--verbose]
//                [--skip-speed] [--skip-first-rank] [--trials N]
// Prints accuracy figures on the labelled logs (the files given, else those
// in $LG_FAILURE_LOGS, colon-separated; says so when there are none or one is
// absent), the first failing rank on generated 64-rank logs, and the scan
// speed against grep.
#include "accuracy.hpp"
#include "first_rank.hpp"
#include "speed.hpp"

#include "diagnose/catalogue.hpp"

#include <fmt/core.h>

#include <cstdlib>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
  std::vector<std::string> logs;
  std::string catalogue_path;
  bool first_rank = true;
  int trials = 20;
  double size_gb = 1.0;
  bool verbose = false;
  bool speed = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--size-gb" && i + 1 < argc) {
      size_gb = std::stod(argv[++i]);
    } else if (arg == "--catalogue" && i + 1 < argc) {
      catalogue_path = argv[++i];
    } else if (arg == "--verbose") {
      verbose = true;
    } else if (arg == "--skip-speed") {
      speed = false;
    } else if (arg == "--skip-first-rank") {
      first_rank = false;
    } else if (arg == "--trials" && i + 1 < argc) {
      trials = std::stoi(argv[++i]);
    } else {
      logs.push_back(arg);
    }
  }
  if (logs.empty()) {
    const char* from_env = std::getenv("LG_FAILURE_LOGS");
    std::stringstream list(from_env != nullptr ? from_env : "");
    for (std::string path; std::getline(list, path, ':');) {
      if (!path.empty()) {
        logs.push_back(path);
      }
    }
  }
  try {
    auto catalogue = lg::diagnose::default_catalogue();
    if (!catalogue_path.empty()) {
      std::ifstream in(catalogue_path);
      std::stringstream text;
      text << in.rdbuf();
      lg::diagnose::merge_catalogue(catalogue, lg::diagnose::parse_catalogue(text.str(), catalogue_path));
    }
    const lg::diagnose::Matcher matcher(std::move(catalogue));
    if (logs.empty()) {
      fmt::print("== accuracy: no labelled failure logs given (pass FILE.json or set LG_FAILURE_LOGS); skipped ==\n");
    }
    for (const auto& path : logs) {
      fmt::print("== accuracy on {} ==\n", path);
      lg::bench::run_accuracy(path, matcher, verbose);
      fmt::print("\n");
    }
    if (first_rank) {
      fmt::print("== first failing rank on generated 64-rank logs ({} runs per case) ==\n", trials);
      lg::bench::run_first_rank(matcher, trials);
    }
    if (speed) {
      fmt::print("\n== scan speed ({:.1f} GB) ==\n", size_gb);
      lg::bench::run_speed(matcher, static_cast<std::size_t>(size_gb * 1e9));
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_diagnose: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
