// Whether each transformer layer of a model is an MoE layer, as
// config::is_moe_layer says, asked once per layer and kept: the estimator asks
// it for every layer of every stage, several times per estimate. Most models
// have layers of one kind only (dense, or MoE without a layer pattern); then
// only that kind is kept.
#pragma once

#include "config/job_spec.hpp"

#include <algorithm>
#include <vector>

namespace lg::estimate {

class LayerKinds
{
public:
  explicit LayerKinds(const config::ModelSpec& model)
      : model_(model), layers_(std::max(0, model.num_layers) + std::max(0, model.mtp_num_layers))
  {
    for (int layer = 0; layer < layers_; ++layer) {
      const signed char kind = config::is_moe_layer(model, layer) ? 1 : 0;
      if (layer == 0) {
        uniform_ = kind;
      } else if (uniform_ >= 0 && kind != uniform_) {
        known_.assign(static_cast<std::size_t>(layer), uniform_);  // mixed from here on
        uniform_ = -1;
      }
      if (uniform_ < 0) {
        known_.push_back(kind);
      }
    }
  }

  // config::is_moe_layer(model, layer); layers past the decoder's are MTP layers.
  bool moe(int layer) const
  {
    if (layer < 0 || layer >= layers_) {
      return config::is_moe_layer(model_, layer);
    }
    return (uniform_ >= 0 ? uniform_ : known_[static_cast<std::size_t>(layer)]) == 1;
  }

  // The kind every layer of `layers` has when the model's layers are all of
  // one kind (0 dense, 1 MoE), else -1. `layers` ascending, as a pipeline
  // layout holds them; -1 too when they are empty or reach past the model's.
  int uniform_kind(const std::vector<int>& layers) const
  {
    if (uniform_ < 0 || layers.empty() || layers.front() < 0 || layers.back() >= layers_) {
      return -1;
    }
    return uniform_;
  }

private:
  const config::ModelSpec& model_;
  int layers_;                      // decoder and MTP layers
  signed char uniform_ = -1;        // the kind of every layer (0 dense, 1 MoE), -1 mixed
  std::vector<signed char> known_;  // per layer, when mixed
};

} // namespace lg::estimate
