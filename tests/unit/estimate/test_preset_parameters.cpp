// Every shipped model preset: the estimator's exact parameter count matches
// the published total recorded in the preset (within 1%, the unpadded vocab).
#include "config/loader.hpp"
#include "estimate/parameters.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

TEST_SUITE_BEGIN("estimate");

TEST_CASE("presets: parameter totals match the published counts")
{
  lg::config::LoadOptions options;
  options.preset_dirs = {std::filesystem::path(LG_SOURCE_DIR) / "presets"};
  const auto presets = lg::config::list_presets(options, "models");
  REQUIRE(presets.size() >= 10);
  for (const auto& [name, path] : presets) {
    CAPTURE(name);
    const auto spec = lg::config::load_job_text("[model]\npreset = \"" + name + "\"\n", "job.toml", options);
    REQUIRE(spec.model.published_parameters > 0);
    const auto counts = lg::estimate::count_parameters(spec.model, spec.model.vocab_size);
    const double published = static_cast<double>(spec.model.published_parameters);
    const double error = std::fabs(static_cast<double>(counts.total) - published) / published;
    CHECK(error < 0.01);
    CHECK(counts.active <= counts.total);
  }
}

TEST_SUITE_END();
