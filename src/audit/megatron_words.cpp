// Megatron-LM words of a launch line -> JobSpec (megatron_words.hpp). Unknown
// words never reach config::job_from_megatron_args: a flag whose value is
// unknown is dropped and its key listed as unknown; an unknown word that may
// hold any flags makes the argv opaque (defaults are then not trusted).
#include "audit/megatron_words.hpp"

#include "audit/launch.hpp"
#include "config/megatron_args.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <charconv>
#include <map>

namespace lg::audit {

namespace {

const std::vector<std::string>& probe_base(bool rich)
{
  static const std::vector<std::string> k_plain = {"pretrain_gpt.py", "--num-layers", "2", "--hidden-size", "64",
                                                   "--num-attention-heads", "2"};
  static const std::vector<std::string> k_rich = {"pretrain_gpt.py", "--num-layers", "2", "--hidden-size", "64",
                                                  "--num-attention-heads", "2", "--group-query-attention",
                                                  "--num-experts", "2", "--multi-latent-attention",
                                                  "--use-megatron-fsdp", "--optimizer-cpu-offload"};
  return rich ? k_rich : k_plain;
}

std::optional<std::string> probe(const std::string& flag, bool rich)
{
  std::vector<std::string> argv = probe_base(rich);
  argv.push_back("--" + flag);
  const int position = static_cast<int>(argv.size());
  argv.push_back("1");
  try {
    const config::JobSpec spec = config::job_from_megatron_args(argv, config::MegatronArgsOptions{});
    for (const auto& [key, location] : spec.locations) {
      if (location.column == position) {
        return key;
      }
    }
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

} // namespace

bool basename_contains_pretrain(const std::string& program)
{
  const std::string base = detail::basename_of(program);
  return base.starts_with("pretrain_") || base.starts_with("train_gpt") || base.starts_with("finetune");
}

std::optional<std::string> key_of_flag(const std::string& flag)
{
  static std::map<std::string, std::optional<std::string>> k_cache;
  const auto it = k_cache.find(flag);
  if (it != k_cache.end()) {
    return it->second;
  }
  std::optional<std::string> key = probe(flag, false);
  if (!key) {
    key = probe(flag, true);
  }
  k_cache[flag] = key;
  return key;
}

bool looks_like_megatron_args(const std::vector<Word>& args)
{
  int count = 0;
  for (const auto& w : args) {
    const std::string& t = w.text();
    if (t.starts_with("--") && w.known && t.find('=') == std::string::npos && t.size() < 64) {
      count += key_of_flag(t.substr(2)) ? 1 : 0;
    }
  }
  return count >= 2;
}

bool snake_case_megatron_args(const std::vector<Word>& args)
{
  int snake = 0;
  int dashed = 0;
  for (const auto& w : args) {
    const std::string& t = w.text();
    std::string dashes = t.size() > 2 ? t.substr(2) : std::string();
    std::replace(dashes.begin(), dashes.end(), '_', '-');
    if (!t.starts_with("--") || !w.known || t.find('=') != std::string::npos || t.size() >= 64
        || !key_of_flag(dashes)) {
      continue;
    }
    const bool underscore = t.find('_', 2) != std::string::npos;
    const bool dash = t.find('-', 2) != std::string::npos;
    snake += underscore && !dash ? 1 : 0;
    dashed += dash && !underscore ? 1 : 0;
  }
  return snake >= 2 && snake > dashed;
}

} // namespace lg::audit
