#pragma once
// What each Megatron Bridge performance recipe sets beyond the table columns
// (pipeline split, layout, activation offloading), keyed by model family and
// GPU, each with the upstream file and line it comes from.

#include "rows.hpp"

#include <string>

namespace lg::bench {

struct RecipeLines
{
  std::string parallelism;  // TOML lines for [parallelism]
  std::string training;     // TOML lines for [training]
  // The token dispatcher and its overlap (TOML lines for [model.moe] and
  // [training]; rows.hpp, job_text).
  std::string moe;
  std::string dispatcher_training;
};

// The settings of the Bridge performance recipe behind `row` that the row's
// columns do not carry; empty when there is none (or none is known).
RecipeLines recipe_lines(const Row& row);

} // namespace lg::bench
