#include "diagnose/refine.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>

namespace lg::diagnose {

namespace {

constexpr std::size_t k_message_lines = 8;
constexpr std::size_t k_message_bytes = 4096;

// Remove a "[rank3]: " or "3: " prefix that launchers put on every line.
std::string_view strip_rank_prefix(std::string_view line)
{
  std::size_t at = 0;
  if (line.rfind("[rank", 0) == 0) {
    const auto close = line.find("]:");
    if (close != std::string_view::npos && close < 16) {
      at = close + 2;
    }
  } else {
    while (at < line.size() && at < 6 && std::isdigit(static_cast<unsigned char>(line[at])) != 0) {
      ++at;
    }
    at = (at > 0 && at < line.size() && line[at] == ':') ? at + 1 : 0;
  }
  return line.substr(at);
}

} // namespace

void apply_defaults(Diagnosis& diagnosis, const Signature* sig, const Catalogue& catalogue)
{
  const auto info = catalogue.categories.find(diagnosis.category);
  const CategoryInfo defaults = info != catalogue.categories.end() ? info->second : CategoryInfo{};
  const bool own = sig != nullptr && sig->category == diagnosis.category;
  diagnosis.fix = own && sig->fix ? *sig->fix : defaults.fix;
  diagnosis.suggested_change =
    own && sig->suggested_change ? *sig->suggested_change : defaults.suggested_change;
  diagnosis.retryable = own && sig->retryable ? *sig->retryable : defaults.retryable;
}

std::string gather_oom_message(std::string_view text, std::size_t offset)
{
  std::string message;
  std::size_t at = offset;
  for (std::size_t i = 0; i < k_message_lines && at < text.size(); ++i) {
    auto end = text.find('\n', at);
    end = end == std::string_view::npos ? text.size() : end;
    const std::string_view line = text.substr(at, end - at);
    message.append(i == 0 ? line : strip_rank_prefix(line));
    message.push_back(' ');
    if (message.size() > k_message_bytes || message.find("reserved by PyTorch") != std::string::npos ||
        message.find("by PyTorch)") != std::string::npos || message.find(" cached)") != std::string::npos) {
      break;
    }
    at = end + 1;
  }
  return collapse_whitespace(message);
}

void refine_oom(Diagnosis& diagnosis, std::string_view message, const Facts& facts,
                const Catalogue& catalogue)
{
  diagnosis.oom = parse_oom_message(message);
  if (!diagnosis.oom) {
    diagnosis.reason = "CUDA out of memory; the message has no allocator numbers to tell "
                       "fragmentation from capacity";
    return;
  }
  const OomVerdict verdict = classify_oom(*diagnosis.oom);
  diagnosis.category = verdict.category;
  diagnosis.reason = verdict.reason;
  diagnosis.confidence = verdict.ambiguous ? 0.65 : 0.9;
  apply_defaults(diagnosis, nullptr, catalogue);
  const bool fragmentation = verdict.category == "cuda_oom_fragmentation";
  if (fragmentation && facts.expandable_segments_unsupported) {
    diagnosis.fix = "Memory is fragmented, but this platform ignores expandable_segments (the log "
                    "says it is not supported). Set PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:512 "
                    "in the job's [env] instead, or lower memory per GPU.";
    diagnosis.suggested_change.clear();
  } else if (fragmentation && facts.expandable_segments_set) {
    diagnosis.category = "cuda_oom_capacity";
    diagnosis.confidence = 0.8;
    diagnosis.reason += "; expandable_segments is already on, so this is a genuine capacity limit";
    apply_defaults(diagnosis, nullptr, catalogue);
  } else if (verdict.category == "cuda_oom_capacity" && verdict.ambiguous &&
             !facts.expandable_segments_set && !facts.expandable_segments_unsupported) {
    diagnosis.fix = fmt::format(
      "Borderline: reserved-but-unallocated memory covers the request but is a small share of the "
      "GPU. Try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True first (no cost), but expect to "
      "need a memory reduction. {}",
      diagnosis.fix);
    diagnosis.suggested_change = "expandable_segments";
  }
}

void apply_facts(Diagnosis& diagnosis, const Facts& facts, std::string_view deciding_line,
                 const Catalogue& catalogue)
{
  const bool stopped_by_slurm =
    diagnosis.category == "slurm_time_limit" ||
    (diagnosis.category == "unknown" && deciding_line.find("***") != std::string_view::npos);
  if (!facts.training_finished || !stopped_by_slurm) {
    return;
  }
  diagnosis.category = "hang_no_progress";
  diagnosis.confidence = 0.8;
  diagnosis.signature = "fact-training-finished";
  apply_defaults(diagnosis, nullptr, catalogue);
  diagnosis.reason = "training had finished (\"[after training is done]\") when Slurm stopped the job";
  diagnosis.fix = "Training had finished and the job then hung at shutdown until Slurm stopped it: a "
                  "shutdown hang (process groups not destroyed with destroy_process_group(), "
                  "dataloader workers or an async checkpoint writer still running), not a reason to "
                  "ask for more time. Make the script exit after training (destroy the process groups, "
                  "join the checkpoint writer) and check that the last checkpoint was written.";
  diagnosis.suggested_change.clear();
  diagnosis.retryable = false;
}

} // namespace lg::diagnose
