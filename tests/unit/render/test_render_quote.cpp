// Quoting for #SBATCH lines and the script body, and the template contract:
// unknown variables and invalid Mustache are errors; {{ }} shell-quotes.
#include "env/compose.hpp"
#include "render/render.hpp"
#include "render_support.hpp"
#include "support/builders.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace lg;

TEST_CASE("sanitize_job_name keeps portable file-name characters only")
{
  CHECK(render::sanitize_job_name("llama3-70b_sft.v2+x") == "llama3-70b_sft.v2+x");
  CHECK(render::sanitize_job_name("a b;$(x)\n#SBATCH") == "a_b___x___SBATCH");
  CHECK(render::sanitize_job_name("") == "job");
}

TEST_CASE("directive_quote: safe as is, else sbatch-quoted; control characters refused")
{
  CHECK(render::directive_quote("f", "logs/%x-%j.out") == "logs/%x-%j.out");
  CHECK(render::directive_quote("f", "TERM@60") == "TERM@60");
  CHECK(render::directive_quote("f", "a b#c'd\"e\\") == "\"a b\\#c\\'d\\\"e\\\\\"");
  CHECK_THROWS_AS(render::directive_quote("slurm.partition", "batch\n#SBATCH --foo"), InputError);
  CHECK_THROWS_AS(render::directive_quote("slurm.partition", ""), InputError);
}

TEST_CASE("script_quote: single quotes, or $'…' when there are control characters")
{
  CHECK(render::script_quote("plain") == "plain");
  CHECK(render::script_quote("it's") == "'it'\\''s'");
  CHECK(render::script_quote("a\nb'\\") == "$'a\\nb\\'\\\\'");
  CHECK(render::script_quote(std::string("\x01", 1)) == "$'\\x01'");
  CHECK_THROWS_AS(render::script_quote(std::string("a\0b", 3)), InputError);
}

TEST_CASE("script_quote_per_job: %j becomes the script's $SLURM_JOB_ID, the rest is quoted as ever")
{
  CHECK(render::script_quote_per_job("logs/nccl_trace_%j_rank_") == "logs/nccl_trace_\"$SLURM_JOB_ID\"_rank_");
  CHECK(render::script_quote_per_job("%j") == "\"$SLURM_JOB_ID\"");
  CHECK(render::script_quote_per_job("a b/%j$(x)") == "'a b/'\"$SLURM_JOB_ID\"'$(x)'");
  CHECK(render::script_quote_per_job("plain") == "plain");
  CHECK(render::script_quote_per_job("") == render::script_quote(""));
}

TEST_CASE("An #SBATCH value with a newline is refused, naming the field")
{
  auto spec = testing::minimal_job_spec();
  spec.slurm.partition = "batch\n#SBATCH --foo";
  try {
    render::render_sbatch(spec, env::compose(spec, {}), testing::shipped_template("srun-native"));
    FAIL("no error");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()).find("slurm.partition") != std::string::npos);
  }
}

TEST_CASE("A container mount with a comma is refused (pyxis splits at commas)")
{
  auto spec = testing::minimal_job_spec();
  spec.launch.container_image = "img";
  spec.launch.container_mounts = {"/a,b:/c"};
  CHECK_THROWS_AS(
    render::render_sbatch(spec, env::compose(spec, {}), testing::shipped_template("srun-native")),
    InputError);
}

TEST_CASE("Templates: unknown variables and invalid Mustache are errors")
{
  const auto spec = testing::minimal_job_spec();
  const auto environment = env::compose(spec, {});
  try {
    render::render_sbatch(spec, environment, "#!/bin/bash\necho {{{comand_q}}}\n");
    FAIL("no error");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()).find("comand_q") != std::string::npos);
    CHECK(error.hint.find("command_q") != std::string::npos);
  }
  CHECK_THROWS_AS(render::render_sbatch(spec, environment, "{{#env}}unclosed"), InputError);
}

TEST_CASE("{{ }} shell-quotes instead of HTML-escaping; {{{ }}} inserts as is")
{
  auto spec = testing::minimal_job_spec();
  spec.name = "a&b <c>";
  const auto environment = env::compose(spec, {});
  CHECK(render::render_sbatch(spec, environment, "{{job_name_d}}|{{{job_name_q}}}")
        == "a_b__c_|'a&b <c>'");
  CHECK(render::render_sbatch(spec, environment, "{{{job_name_q}}}") == "'a&b <c>'");
}

TEST_CASE("torchrun splits the command at the Python interpreter")
{
  const auto spec = testing::lora_job();
  const auto out = render::render_sbatch(spec, env::compose(spec, {}),
                                         "{{{python_q}}}|{{{program_q}}}");
  // A Megatron-LM job: the job's flags (config/megatron_launch.hpp) after the
  // program, the command's own --lora-rank (no job key) last.
  CHECK(out.starts_with("uv run python|pretrain_gpt.py --num-layers 32 --hidden-size 4096 "));
  CHECK(out.find("--tensor-model-parallel-size 2 ") != std::string::npos);
  CHECK(out.ends_with(" --lora-rank 16"));
  auto bare = testing::minimal_job_spec();
  bare.launch.command = {"train.sh", "--x"};
  CHECK(render::render_sbatch(bare, env::compose(bare, {}), "{{{python_q}}}|{{{program_q}}}")
        == "python|train.sh --x");
}

TEST_CASE("Unset variables render as unset lines and stay out of --container-env")
{
  auto spec = testing::minimal_job_spec();
  spec.training.nccl_ub = true;
  spec.launch.container_image = "img";
  const std::string script = render::render_sbatch(spec, env::compose(spec, {}),
                                                   testing::shipped_template("srun-native"));
  CHECK(script.find("\nunset PYTORCH_CUDA_ALLOC_CONF\n") != std::string::npos);
  const auto at = script.find("--container-env=");
  REQUIRE(at != std::string::npos);
  const std::string names = script.substr(at, script.find('\n', at) - at);
  CHECK(names.find("PYTORCH_CUDA_ALLOC_CONF") == std::string::npos);
  CHECK(names.find("NCCL_NVLS_ENABLE") != std::string::npos);
}

TEST_CASE("Every template variable is documented in docs/templates.md")
{
  const std::string docs = testing::read_text(testing::source_dir() + "/docs/templates.md");
  REQUIRE_FALSE(docs.empty());
  for (const auto& name : render::template_variable_names()) {
    CAPTURE(name);
    const std::string base = name.substr(name.rfind('.') + 1);
    CHECK(docs.find("`" + base + "`") != std::string::npos);
  }
}
