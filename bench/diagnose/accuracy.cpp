#include "accuracy.hpp"

#include "diagnose/diagnose.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>

namespace lg::bench {

namespace {

// The corpus labels use a few finer names than SPEC.md's category list.
std::string spec_category(const std::string& label)
{
  static const std::map<std::string, std::string> renamed = {
    {"nccl_error_other", "nccl_error"},
    {"gpu_hardware_ecc_xid", "gpu_hardware"},
    {"cuda_oom_bogus_request", "unknown"},
    {"child_failed_non_oom", "unknown"},
    {"hang_after_completion", "slurm_time_limit"}};
  if (label.rfind("negative", 0) == 0) {
    return "none";
  }
  const auto found = renamed.find(label);
  return found != renamed.end() ? found->second : label;
}

struct Counts
{
  int true_positive = 0;
  int false_positive = 0;
  int false_negative = 0;
};

} // namespace

double run_accuracy(const std::string& path, const diagnose::Matcher& matcher, bool verbose)
{
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error(fmt::format("cannot read '{}'", path));
  }
  const nlohmann::json records = nlohmann::json::parse(in);
  std::map<std::string, Counts> counts;
  int correct = 0;
  int negatives = 0;
  int negatives_called_failures = 0;
  for (const auto& record : records) {
    const std::string text = record.at("text").get<std::string>();
    const std::string id = record.at("id").get<std::string>();
    const std::string label = spec_category(record.at("category").get<std::string>());
    std::set<std::string> accepted = {label};
    if (record.value("ambiguous", false) && record.contains("alt_category")) {
      accepted.insert(spec_category(record.at("alt_category").get<std::string>()));
    }
    const auto diagnosis = diagnose::diagnose({{id, text}}, matcher);
    const bool ok = accepted.count(diagnosis.category) != 0;
    const std::string truth = ok ? diagnosis.category : label;
    correct += ok ? 1 : 0;
    if (truth == "none") {
      ++negatives;
      negatives_called_failures += diagnosis.category != "none" ? 1 : 0;
    }
    if (ok) {
      ++counts[truth].true_positive;
    } else {
      ++counts[truth].false_negative;
      ++counts[diagnosis.category].false_positive;
    }
    if (verbose || !ok) {
      fmt::print("  {:<4} {:<22} label {:<32} got {:<32} ({:.2f}, {})\n", ok ? "ok" : "MISS", id, label,
                 diagnosis.category, diagnosis.confidence, diagnosis.signature);
    }
  }
  fmt::print("\n{:<34} {:>9} {:>9} {:>4} {:>4} {:>4}\n", "category", "precision", "recall", "tp", "fp", "fn");
  for (const auto& [category, c] : counts) {
    const int predicted = c.true_positive + c.false_positive;
    const int actual = c.true_positive + c.false_negative;
    fmt::print("{:<34} {:>9} {:>9} {:>4} {:>4} {:>4}\n", category,
               predicted ? fmt::format("{:.2f}", double(c.true_positive) / predicted) : "-",
               actual ? fmt::format("{:.2f}", double(c.true_positive) / actual) : "-",
               c.true_positive, c.false_positive, c.false_negative);
  }
  const double accuracy = records.empty() ? 0.0 : double(correct) / double(records.size());
  fmt::print("\noverall accuracy: {}/{} = {:.3f}\n", correct, records.size(), accuracy);
  fmt::print("negative excerpts called a failure: {} of {}\n", negatives_called_failures, negatives);
  return accuracy;
}

} // namespace lg::bench
