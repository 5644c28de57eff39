// Exact parameter counting from a ModelSpec: per transformer layer (dense,
// MoE, MLA, MTP), embeddings, and the whole-model total/active counts. Counts
// are split by how Megatron shards them (TP-sharded, replicated, routed
// experts) so model_state can place them on GPUs.
#pragma once

#include "config/job_spec.hpp"
#include "estimate/estimate.hpp"

#include <cstdint>

namespace lg::estimate {

// Parameters of one transformer layer, unsharded, split by sharding type.
struct LayerParameters
{
  std::int64_t attention = 0;     // TP-sharded: QKV/MLA projections, output projection, biases
  std::int64_t mlp = 0;           // TP-sharded: dense MLP, or shared experts (+ gate) on MoE layers
  std::int64_t routed = 0;        // all routed experts of the layer (sharded over EP x ETP)
  std::int64_t routed_active = 0; // the top-k routed experts a token passes through
  std::int64_t replicated = 0;    // norms, router, MLA latent norms: every TP rank holds a copy
  std::int64_t linear = 0;        // GEMM weights among attention + mlp (fp8 caches apply to these)

  std::int64_t total() const { return attention + mlp + routed + replicated; }
};

// Return the parameters of transformer layer `layer` (0-based; indices past
// num_layers are MTP layers and take the type of the last layer).
LayerParameters layer_parameters(const config::ModelSpec& model, int layer);

// Return the extra parameters of one MTP module beyond its transformer layer:
// eh_proj (2h x h, TP-sharded) in `mlp`, enorm + hnorm + final norm in `replicated`.
LayerParameters mtp_extra_parameters(const config::ModelSpec& model);

// Return the word-embedding parameters (vocab x h) for `vocab` rows.
std::int64_t embedding_parameters(const config::ModelSpec& model, std::int64_t vocab);

// Return the learned absolute position embedding (max_pos x h), 0 for rope/none.
std::int64_t position_embedding_parameters(const config::ModelSpec& model);

// Return the final norm's parameters (h, or 2h for LayerNorm).
std::int64_t norm_parameters(const config::ModelSpec& model, int width);

// Return total and active parameter counts of the whole model (embeddings and
// MTP included; the output layer counted once when tied) for `vocab` rows.
// per_gpu is left 0 (the estimate fills it).
ParameterCounts count_parameters(const config::ModelSpec& model, std::int64_t vocab);

} // namespace lg::estimate
