// --exit-duration-in-mins against #SBATCH --time: Megatron-LM saves and exits
// once the minutes since start pass the value (megatron/training/training.py,
// train(), "Exiting based on duration"); at or above the job's time limit,
// Slurm's end comes first. Round 19's 8x15B upcycling job: `-t 0:30:00` with
// `--exit-duration-in-mins 230`.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

std::string job(const std::string& time, const std::string& exit)
{
  return "#!/bin/bash\n#SBATCH -p batch -t " + time + " --nodes=1 --ntasks-per-node=8 --gres=gpu:8\n"
         "options=\" --num-layers 4 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 "
         "--max-position-embeddings 1024 --micro-batch-size 1 --global-batch-size 8 --bf16 " + exit + "\"\n"
         "srun bash -c \"python -u pretrain_gpt.py ${options}\"\n";
}

}  // namespace

TEST_CASE("--exit-duration-in-mins at or above the time limit: a warning on the value")
{
  const AuditResult r = run(job("0:30:00", "--exit-duration-in-mins 230"));
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.exit_duration");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.message.find("limit of 30 minutes") != std::string::npos);
  CHECK(found[0]->diagnostic.fix.find("e.g. 20") != std::string::npos);
  // The `=` spelling, and a limit in days-hours.
  CHECK(with_rule(run(job("1-00", "--exit-duration-in-mins=1440")), "audit.exit_duration").size() == 1);
}

TEST_CASE("--exit-duration-in-mins below the limit, no time limit, or an unknown value: nothing")
{
  CHECK(with_rule(run(job("4:00:00", "--exit-duration-in-mins 230")), "audit.exit_duration").empty());
  CHECK(with_rule(run(job("UNLIMITED", "--exit-duration-in-mins 230")), "audit.exit_duration").empty());
  CHECK(with_rule(run(job("0:30:00", "--exit-duration-in-mins $LIMIT")), "audit.exit_duration").empty());
  const std::string no_time = "#!/bin/bash\n#SBATCH --nodes=1 --ntasks-per-node=8 --gres=gpu:8\n"
                              "srun python pretrain_gpt.py --num-layers 4 --hidden-size 512 --num-attention-heads 8 "
                              "--seq-length 1024 --max-position-embeddings 1024 --micro-batch-size 1 "
                              "--global-batch-size 8 --exit-duration-in-mins 230\n";
  CHECK(with_rule(run(no_time), "audit.exit_duration").empty());
}

// --save with no --load (Megatron-LM megatron/training/training.py,
// setup_model_and_optimizer: a checkpoint is read only `if (args.load is not
// None or args.pretrained_checkpoint is not None)`). Round 21's LUMI job.
TEST_CASE("--save without --load: advice, a warning when the job plans to be interrupted")
{
  const std::string head = "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n#SBATCH -t 12:00:00\n";
  const std::string launch = "torchrun --nproc-per-node=8 pretrain_gpt.py --num-layers 2 --save /ckpt";
  AuditResult r = run(head + launch + "\n");
  CAPTURE(describe(r));
  auto found = with_rule(r, "audit.save_without_load");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(line_of(found[0]) == 5);

  r = run(head + launch + " --exit-duration-in-mins 700\n");
  found = with_rule(r, "audit.save_without_load");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);

  CHECK(with_rule(run(head + launch + " --load /ckpt\n"), "audit.save_without_load").empty());
  CHECK(with_rule(run(head + launch + " --pretrained-checkpoint /base\n"), "audit.save_without_load").empty());
  CHECK(with_rule(run(head + launch + " $EXTRA\n"), "audit.save_without_load").empty());
}
