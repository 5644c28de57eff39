#include "rules_test_support.hpp"

using namespace lg;
using lg::testing::contains_text;
using lg::testing::expect_finding;
using lg::testing::llama3_70b_sft;

TEST_SUITE_BEGIN("rules");

namespace {

config::JobSpec with_cp(int cp, int seq)
{
  auto spec = llama3_70b_sft();
  spec.parallelism.cp = cp;
  spec.model.seq_length = seq;
  spec.model.max_position_embeddings = 0;
  spec.cluster.nodes = 4 * cp;
  return spec;
}

} // namespace

TEST_CASE("context_parallel.seq_divisible: Bridge and Megatron-LM wording")
{
  auto spec = with_cp(4, 8196);  // 8196 % 8 = 4
  auto d = expect_finding(spec, "context_parallel.seq_divisible", Severity::error,
                          "model.seq_length");
  CHECK(contains_text(d.message, "upstream: Sequence length must be divisible by 2 * context "
                                 "parallel size if context parallel is used."));
  CHECK(contains_text(d.fix, "model.seq_length = 8200"));
  spec.launch.framework = config::Framework::megatron_lm;
  d = expect_finding(spec, "context_parallel.seq_divisible", Severity::error, "model.seq_length");
  CHECK(contains_text(d.message, "upstream: seq-length should be a multiple of 2 * "
                                 "context-parallel-size if context-parallel-size > 1."));
  CHECK_FALSE(lg::testing::fires(spec, "context_parallel.padding_multiple"));
}

TEST_CASE("context_parallel.padding_multiple: cp 2 x tp 4 with SP needs a multiple of 8")
{
  auto spec = with_cp(2, 8196);  // % 4 == 0 but % lcm(4, 8) = 8 != 0
  const auto d = expect_finding(spec, "context_parallel.padding_multiple", Severity::error,
                                "model.seq_length");
  CHECK(contains_text(d.message, "seq_length must be divisible by the CP/SP collate padding "
                                 "multiple (8)."));
}

TEST_CASE("context_parallel.sizing: 32K sequence with cp 1")
{
  auto spec = with_cp(1, 32768);
  const auto d = expect_finding(spec, "context_parallel.sizing", Severity::advice,
                                "parallelism.cp");
  CHECK(contains_text(d.message, "CP ~ seq/4096"));
  CHECK(contains_text(d.fix, "parallelism.cp = 4"));
}

TEST_SUITE_END();
