// [slurm] time / mem / extra_args checks. Formats: Slurm sbatch(1) --time
// ("minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours",
// "days-hours:minutes", "days-hours:minutes:seconds"), --mem ("[units]
// K|M|G|T, default M"), and HETEROGENEOUS JOB SUPPORT ("hetjob" separator).
#include "config/loader.hpp"
#include "config/slurm_fields.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

namespace {

std::string slurm_load_error(const std::string& slurm)
{
  lg::config::LoadOptions options;
  options.preset_dirs = {std::filesystem::path(LG_SOURCE_DIR) / "presets"};
  try {
    lg::config::load_job_text("[model]\npreset = \"llama3-8b\"\n[slurm]\n" + slurm, "job.toml", options);
  } catch (const lg::InputError& e) {
    return std::string(e.what()) + (e.hint.empty() ? "" : " | hint: " + e.hint);
  }
  return "no error";
}

} // namespace

TEST_SUITE_BEGIN("config");

TEST_CASE("slurm fields: every sbatch --time form parses to minutes; malformed ones do not")
{
  CHECK(lg::config::parse_slurm_time("90") == 90);
  CHECK(lg::config::parse_slurm_time("90:30") == 91);
  CHECK(lg::config::parse_slurm_time("04:00:00") == 240);
  CHECK(lg::config::parse_slurm_time("2-12") == 2 * 1440 + 12 * 60);
  CHECK(lg::config::parse_slurm_time("2-12:30") == 2 * 1440 + 12 * 60 + 30);
  CHECK(lg::config::parse_slurm_time("1-00:00:00") == 1440);
  CHECK(lg::config::parse_slurm_time("UNLIMITED") == 0);
  for (const char* bad : {"", "4h", "04:00:00:00", "1:60:00", "-1", "1-24:00:00", "04:00:0x", "1e9", "10:-5"}) {
    CAPTURE(bad);
    CHECK_FALSE(lg::config::parse_slurm_time(bad).has_value());
  }
}

TEST_CASE("slurm fields: --mem sizes with K/M/G/T or none")
{
  for (const char* good : {"0", "512000", "500G", "2T", "64g", "1024M"}) {
    CAPTURE(good);
    CHECK(lg::config::valid_slurm_mem(good));
  }
  for (const char* bad : {"", "500GB", "lots", "1.5G", "-4G", "G"}) {
    CAPTURE(bad);
    CHECK_FALSE(lg::config::valid_slurm_mem(bad));
  }
}

TEST_CASE("slurm fields: bad time and mem are located errors with the format in the hint")
{
  CHECK(slurm_load_error("time = \"4 hours\"\n")
        == "job.toml:4:1: slurm.time \"4 hours\" is not a Slurm time limit | hint: write minutes (\"90\"), "
           "\"HH:MM:SS\" (\"04:00:00\") or \"D-HH:MM:SS\" (\"2-00:00:00\")");
  CHECK(slurm_load_error("mem = \"500GB\"\n").find("job.toml:4:1: slurm.mem \"500GB\" is not a Slurm memory size") == 0);
}

TEST_CASE("slurm fields: extra_args that change the job's shape are refused with the key to use")
{
  // Before: --nodes=9 went to the script while preflight judged 1 node.
  CHECK(slurm_load_error("extra_args = [\"--nodes=9\"]\n")
        == "job.toml:4:1: slurm.extra_args \"--nodes=9\" sets --nodes, which changes what preflight judged | hint: use "
           "[cluster] nodes instead");
  CHECK(slurm_load_error("extra_args = [\"-N 9\"]\n").find("sets --nodes") != std::string::npos);
  CHECK(slurm_load_error("extra_args = [\"--gpus-per-n=4\"]\n").find("sets --gpus-per-node") != std::string::npos);
  CHECK(slurm_load_error("extra_args = [\"--gres=gpu:4\"]\n").find("sets --gres") != std::string::npos);
  CHECK(slurm_load_error("extra_args = [\"hetjob\"]\n").find("would make a heterogeneous job") != std::string::npos);
  CHECK(slurm_load_error("extra_args = [\"exclusive\"]\n").find("is not an sbatch option") != std::string::npos);
  CHECK(slurm_load_error("extra_args = [\"--exclusive\", \"--constraint=h100\", \"--time-min=30\", \"--nodelist=n1\"]\n")
        == "no error");
}

TEST_SUITE_END();
