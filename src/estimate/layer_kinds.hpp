// Whether each transformer layer of a model is an MoE layer, as
// config::is_moe_layer says, asked once per layer and kept: the estimator asks
// it for every layer of every stage, several times per estimate.
#pragma once

#include "config/job_spec.hpp"

#include <algorithm>
#include <vector>

namespace lg::estimate {

class LayerKinds
{
public:
  explicit LayerKinds(const config::ModelSpec& model)
      : model_(model),
        known_(static_cast<std::size_t>(std::max(0, model.num_layers) + std::max(0, model.mtp_num_layers)), -1)
  {
  }

  // config::is_moe_layer(model, layer); layers past the decoder's are MTP layers.
  bool moe(int layer)
  {
    if (layer < 0 || static_cast<std::size_t>(layer) >= known_.size()) {
      return config::is_moe_layer(model_, layer);
    }
    signed char& kind = known_[static_cast<std::size_t>(layer)];
    if (kind < 0) {
      kind = config::is_moe_layer(model_, layer) ? 1 : 0;
    }
    return kind == 1;
  }

private:
  const config::ModelSpec& model_;
  std::vector<signed char> known_;  // -1 not asked yet, 0 dense, 1 MoE
};

} // namespace lg::estimate
