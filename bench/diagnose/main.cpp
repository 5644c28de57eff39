// bench_diagnose [FAILURE_LOGS.json] [--size-gb N] [--catalogue FILE] [--verbose]
//                [--skip-speed]
// Prints accuracy figures on the labelled logs and the scan speed against grep.
#include "accuracy.hpp"
#include "speed.hpp"

#include "diagnose/catalogue.hpp"

#include <fmt/core.h>

#include <exception>
#include <fstream>
#include <sstream>
#include <string>

int main(int argc, char** argv)
{
  std::string logs;
  std::string catalogue_path;
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
    } else {
      logs = arg;
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
    if (!logs.empty()) {
      fmt::print("== accuracy on {} ==\n", logs);
      lg::bench::run_accuracy(logs, matcher, verbose);
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
