// Golden tests: each shipped template x three representative jobs, compared
// byte for byte with tests/golden/render/<template>-<job>/expected.sbatch.
// LG_UPDATE_GOLDEN=1 rewrites the expected files (review the diff).
#include "env/compose.hpp"
#include "render/render.hpp"
#include "render_support.hpp"
#include "support/builders.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>

using namespace lg;

namespace {

// The first line where `actual` and `expected` differ, for the failure message.
std::string first_difference(const std::string& actual, const std::string& expected)
{
  std::istringstream a(actual);
  std::istringstream e(expected);
  std::string la;
  std::string le;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_e = static_cast<bool>(std::getline(e, le));
    if (!more_a && !more_e) {
      return "(no line differs; trailing bytes differ)";
    }
    if (la != le || more_a != more_e) {
      return "line " + std::to_string(line) + ":\n  expected: " + (more_e ? le : "<end>")
             + "\n  actual:   " + (more_a ? la : "<end>");
    }
  }
}

void check_golden(const std::string& template_name, const std::string& job_name,
                  const config::JobSpec& spec)
{
  const std::string dir = testing::source_dir() + "/tests/golden/render/" + template_name + "-" + job_name;
  const std::string path = dir + "/expected.sbatch";
  const auto environment = env::compose(spec, {});
  const std::string actual =
    render::render_sbatch(spec, environment, testing::shipped_template(template_name));
  CHECK(actual == render::render_sbatch(spec, environment, testing::shipped_template(template_name)));
  const char* update = std::getenv("LG_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(dir);
    testing::write_text(path, actual);
    MESSAGE("updated " << path);
    return;
  }
  REQUIRE_MESSAGE(std::filesystem::exists(path), path << " is missing; run with LG_UPDATE_GOLDEN=1");
  const std::string expected = testing::read_text(path);
  INFO(path << " differs at " << first_difference(actual, expected));
  CHECK(actual == expected);
}

} // namespace

TEST_CASE("golden: srun-native")
{
  check_golden("srun-native", "dense", testing::llama3_70b_sft());
  check_golden("srun-native", "moe-container", testing::moe_container_job());
  check_golden("srun-native", "lora", testing::lora_job());
}

TEST_CASE("golden: torchrun")
{
  check_golden("torchrun", "dense", testing::llama3_70b_sft());
  check_golden("torchrun", "moe-container", testing::moe_container_job());
  check_golden("torchrun", "lora", testing::lora_job());
}
