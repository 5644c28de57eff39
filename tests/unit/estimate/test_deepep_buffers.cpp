// DeepEP's communication buffers under the flex token dispatcher: sizes from
// DeepEP's Config size hints (deepseek-ai/DeepEP csrc/legacy/config.hpp
// get_nvl_buffer_size_hint / get_rdma_buffer_size_hint, the per-size configs
// of deep_ep/buffers/legacy.py get_dispatch_config / get_combine_config,
// Buffer.num_sms = 20), as Megatron-LM core/transformer/moe/fused_a2a.py
// get_buffer asks for them (hidden bytes = h x 2, the larger of the two
// configs). The other flex backends are not modelled.
#include "config/job_spec.hpp"
#include "estimate/estimate.hpp"
#include "estimate/overheads.hpp"
#include "support/builders.hpp"
#include "support/stage_component.hpp"

#include <doctest/doctest.h>

#include <string>

namespace {

// DeepSeek-V3's hidden size (7168) with the flex dispatcher.
lg::config::JobSpec deepseek_like(int ep)
{
  auto spec = lg::testing::minimal_job_spec();
  spec.model.hidden_size = 7168;
  spec.model.moe = lg::config::MoeSpec{};
  spec.model.moe->num_experts = 256;
  spec.model.moe->moe_ffn_hidden_size = 2048;
  spec.model.moe->router_topk = 8;
  spec.model.moe->token_dispatcher = "flex";
  spec.parallelism.ep = ep;
  return spec;
}

} // namespace

TEST_SUITE_BEGIN("estimate");

TEST_CASE("DeepEP buffers: NVLink only up to 8 ranks, NVLink + RDMA beyond, by DeepEP's size hints")
{
  // Per token and receive slot: 14336 hidden bytes + 8 (SourceMeta) +
  // 128 x (8 + 4) (top-k indices and weights) + 128 x 4 (scales) = 16392.
  // EP 8: 10 channels x 8 NVLink ranks x (256 slots x 16392 + (2 x 1 + 3) x 4),
  // rounded up to 128 bytes.
  CHECK(lg::estimate::deepep_buffer_bytes(deepseek_like(8)) == doctest::Approx(335709824.0));
  // EP 64: NVLink 10 x 8 x (288 x 16392 + (2 x 8 + 3) x 4) = 377677760 -> 377677824;
  // RDMA 10 x 8 x ((8 x 2 + 2) x 2 x 4 + 128 x (16392 + 16) x 2) = 336047360.
  CHECK(lg::estimate::deepep_buffer_bytes(deepseek_like(64)) == doctest::Approx(377677824.0 + 336047360.0));
  // More SMs, more channels: --moe-deepep-num-sms 40 doubles them.
  auto wide = deepseek_like(64);
  wide.model.moe->deepep_num_sms = 40;
  CHECK(lg::estimate::deepep_buffer_bytes(wide) == doctest::Approx(2 * (377677824.0 + 336047360.0)).epsilon(1e-6));
  // The alltoall dispatcher, EP 1 and the other backends: no DeepEP buffer.
  auto alltoall = deepseek_like(64);
  alltoall.model.moe->token_dispatcher = "alltoall";
  CHECK(lg::estimate::deepep_buffer_bytes(alltoall) == 0);
  CHECK(lg::estimate::deepep_buffer_bytes(deepseek_like(1)) == 0);
  auto hybrid = deepseek_like(64);
  hybrid.model.moe->flex_backend = "hybridep";
  CHECK(lg::estimate::deepep_buffer_bytes(hybrid) == 0);
}

TEST_CASE("DeepEP buffers: judged and counted outside the allocator; HybridEP stays not modelled")
{
  auto spec = deepseek_like(8);
  spec.model.hidden_size = 1024;  // small enough for the minimal job's GPU
  spec.model.moe->moe_ffn_hidden_size = 512;
  spec.model.moe->num_experts = 8;
  lg::estimate::Options options;
  const auto deepep = lg::estimate::estimate(spec, options);
  CHECK(deepep.verdict != lg::estimate::Verdict::unknown);
  CHECK(deepep.not_modelled.empty());
  const auto& stage = deepep.stages.front();
  const double buffers = lg::testing::stage_component(stage, "deepep_buffers");
  CHECK(buffers == doctest::Approx(lg::estimate::deepep_buffer_bytes(spec)));
  // Not allocated through PyTorch: in the device peak, not the allocated one.
  CHECK(stage.device_peak_bytes - stage.allocated_peak_bytes >= buffers);

  auto alltoall = spec;
  alltoall.model.moe->token_dispatcher = "alltoall";
  const auto plain = lg::estimate::estimate(alltoall, options);
  CHECK(lg::testing::stage_component(plain.stages.front(), "deepep_buffers") == 0);
  CHECK(plain.stages.front().allocated_peak_bytes == doctest::Approx(stage.allocated_peak_bytes));

  spec.model.moe->flex_backend = "hybridep";
  const auto hybrid = lg::estimate::estimate(spec, options);
  CHECK(hybrid.verdict == lg::estimate::Verdict::unknown);
  REQUIRE_FALSE(hybrid.not_modelled.empty());
  CHECK(hybrid.not_modelled.front().find("hybridep") != std::string::npos);
}

TEST_SUITE_END();
