// The Megatron-LM launch line render writes (config/megatron_launch.hpp): the
// job's settings as Megatron-LM flags (flag names: Megatron-LM
// megatron/training/arguments.py), the command's other flags kept.
#include "config/megatron_args.hpp"
#include "config/megatron_launch.hpp"

#include <doctest/doctest.h>

#include <algorithm>

TEST_SUITE_BEGIN("config");

namespace {

std::ptrdiff_t count_word(const std::vector<std::string>& words, const std::string& word)
{
  return std::count(words.begin(), words.end(), word);
}

// The value after `flag` in `words`, or "" when absent.
std::string value_after(const std::vector<std::string>& words, const std::string& flag)
{
  const auto it = std::find(words.begin(), words.end(), flag);
  return it == words.end() || it + 1 == words.end() ? "" : *(it + 1);
}

lg::config::JobSpec megatron_job(std::vector<std::string> command)
{
  auto spec = lg::config::job_from_megatron_args(
    {"--num-layers", "32", "--hidden-size", "4096", "--num-attention-heads", "32"}, {});
  spec.launch.command = std::move(command);
  return spec;
}

} // namespace

TEST_CASE("megatron_launch: the job's values replace the command's, other flags are kept")
{
  auto spec = megatron_job({"torchrun", "--nproc-per-node", "8", "python", "pretrain_gpt.py", "--data-path", "/d/a",
                            "--tensor-model-parallel-size", "2", "--lr", "1e-4", "--num-layers-per-virtual-pipeline-stage",
                            "4", "--tokenizer-type", "GPT2BPETokenizer"});
  spec.parallelism.tp = 8;
  spec.parallelism.pp = 2;
  spec.parallelism.vpp = 2;
  const auto words = lg::config::megatron_launch_command(spec);
  // The program runs to the training script, torchrun's own flags included.
  REQUIRE(words.size() > 5);
  CHECK(std::vector<std::string>(words.begin(), words.begin() + 5)
        == std::vector<std::string>{"torchrun", "--nproc-per-node", "8", "python", "pretrain_gpt.py"});
  CHECK(words[5] == "--num-layers");
  CHECK(count_word(words, "--tensor-model-parallel-size") == 1);
  CHECK(value_after(words, "--tensor-model-parallel-size") == "8");
  CHECK(value_after(words, "--num-virtual-stages-per-pipeline-rank") == "2");
  CHECK(count_word(words, "--num-layers-per-virtual-pipeline-stage") == 0);  // an alias of a job key
  CHECK(value_after(words, "--data-path") == "/d/a");
  CHECK(value_after(words, "--lr") == "1e-4");
  CHECK(value_after(words, "--tokenizer-type") == "GPT2BPETokenizer");  // read, but no job key
  // Read back, the launch line is the job.
  const auto back = lg::config::job_from_megatron_args(words, {});
  CHECK(back.parallelism.tp == 8);
  CHECK(back.parallelism.pp == 2);
  CHECK(back.parallelism.vpp == 2);
  CHECK(back.model.num_layers == 32);
}

TEST_CASE("megatron_launch: a job without a command runs pretrain_gpt.py with its flags")
{
  auto spec = megatron_job({});
  spec.training.cross_entropy_fusion = "te";
  spec.training.offload_modules = {"core_attn"};
  const auto words = lg::config::megatron_launch_command(spec);
  REQUIRE(words.size() > 2);
  CHECK(words[0] == "python");
  CHECK(words[1] == "pretrain_gpt.py");
  CHECK(value_after(words, "--num-layers") == "32");
  const auto back = lg::config::job_from_megatron_args(words, {});
  CHECK(back.training.cross_entropy_fusion == "te");
  CHECK(back.training.offload_modules == std::vector<std::string>{"core_attn"});
}

TEST_CASE("megatron_args: split_megatron_command marks every occurrence of a flag that sets a job key")
{
  const auto command = lg::config::split_megatron_command(
    {"python", "pretrain_gpt.py", "--seq-length=2048", "--save", "/ckpt", "--seq-length", "4096"});
  CHECK(command.program == std::vector<std::string>{"python", "pretrain_gpt.py"});
  REQUIRE(command.flags.size() == 3);
  CHECK(command.flags[0].name == "seq-length");
  CHECK(command.flags[0].sets_job_key);
  CHECK_FALSE(command.flags[1].sets_job_key);
  CHECK(command.flags[1].words == std::vector<std::string>{"--save", "/ckpt"});
  CHECK(command.flags[2].sets_job_key);
}
