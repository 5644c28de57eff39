#include "accuracy.hpp"

#include "diagnose/diagnose.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace lg::bench {

namespace {

// The corpus labels use a few finer or older names than the catalogue's
// categories; each maps to the category that carries the same fix.
std::string spec_category(const std::string& label)
{
  static const std::map<std::string, std::string> renamed = {
    {"nccl_error_other", "nccl_error"},
    {"gpu_hardware_ecc_xid", "gpu_hardware"},
    {"cuda_oom_bogus_request", "unknown"},
    {"child_failed_non_oom", "unknown"},
    {"slurm_cancelled_unknown", "unknown"},      // CANCELLED without a reason
    {"hang_after_completion", "hang_no_progress"}};  // a shutdown hang
  if (label.rfind("negative", 0) == 0) {
    return "none";
  }
  const auto found = renamed.find(label);
  return found != renamed.end() ? found->second : label;
}

bool is_oom(const std::string& category)
{
  return category.rfind("cuda_oom", 0) == 0 || category == "cublas_cudnn_alloc_failed";
}

struct Counts
{
  int true_positive = 0;
  int false_positive = 0;
  int false_negative = 0;
};

struct Share
{
  int right = 0;
  int total = 0;
  std::string text() const
  {
    return total == 0 ? std::string("-") : fmt::format("{}/{} = {:.3f}", right, total, double(right) / total);
  }
};

} // namespace

std::optional<double> run_accuracy(const std::string& path, const diagnose::Matcher& matcher, bool verbose)
{
  std::ifstream in(path);
  if (!in) {
    fmt::print("  (absent: no file at '{}'; accuracy on it skipped)\n", path);
    return std::nullopt;
  }
  const nlohmann::json records = nlohmann::json::parse(in);
  const diagnose::Catalogue& catalogue = matcher.catalogue();
  std::map<std::string, Counts> counts;
  std::map<std::pair<std::string, std::string>, int> confusion;  // (label, got)
  Share overall;
  Share oom;
  Share other_failures;
  Share negatives;  // negatives left alone
  for (const auto& record : records) {
    const std::string text = record.at("text").get<std::string>();
    const std::string id = record.at("id").get<std::string>();
    const std::string label = spec_category(record.at("category").get<std::string>());
    std::set<std::string> accepted = {label};
    if (record.value("ambiguous", false) && record.contains("alt_category")) {
      accepted.insert(spec_category(record.at("alt_category").get<std::string>()));
    }
    const auto diagnosis = diagnose::diagnose({{id, text}}, matcher);
    bool ok = false;
    for (const auto& name : accepted) {
      ok = ok || diagnose::is_same_or_refines(catalogue, diagnosis.category, name);
    }
    const std::string truth = ok ? diagnosis.category : label;
    ++overall.total;
    overall.right += ok ? 1 : 0;
    Share& group = label == "none" ? negatives : is_oom(label) ? oom : other_failures;
    ++group.total;
    group.right += label == "none" ? (diagnosis.category == "none" ? 1 : 0) : (ok ? 1 : 0);
    if (ok) {
      ++counts[truth].true_positive;
    } else {
      ++counts[truth].false_negative;
      ++counts[diagnosis.category].false_positive;
      ++confusion[{label, diagnosis.category}];
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
  fmt::print("\nconfusion (label -> diagnosed, count):{}\n", confusion.empty() ? " none" : "");
  for (const auto& [pair, count] : confusion) {
    fmt::print("  {:<34} -> {:<34} {}\n", pair.first, pair.second, count);
  }
  const double accuracy = overall.total == 0 ? 0.0 : double(overall.right) / overall.total;
  fmt::print("\noverall accuracy: {}\n", overall.text());
  fmt::print("OOM failures: {}; other failures: {}; negatives left alone: {}\n", oom.text(),
             other_failures.text(), negatives.text());
  fmt::print("negative excerpts called a failure: {} of {}\n", negatives.total - negatives.right, negatives.total);
  return accuracy;
}

} // namespace lg::bench
