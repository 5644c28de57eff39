// #SBATCH lines after the first command (audit.directive_ignored). sbatch
// reads directives "before any executable commands" (Slurm sbatch(1),
// DESCRIPTION) and, for an option given twice, keeps the later value (the
// lines are read in order, src/sbatch/opt.c _opt_batch_script). Shape from
// held-out round 18 (bench/audit/corpus.md): a DeepSpeed job file holding a
// second job's header, pasted below the first job's launch.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit::testing;

namespace {

const char* const k_second_header = R"(#!/bin/bash
#SBATCH --account laion
#SBATCH --partition="g40"
#SBATCH --nodes=2
#SBATCH --gres=gpu:8
#SBATCH --output=%x_%j.out

module load cuda/11.7
deepspeed --hostfile=hostfile.txt train.py

#!/bin/bash
#SBATCH --account laion
#SBATCH --partition="g80"
#SBATCH --gres=gpu:8
#SBATCH --output=%x_%j.out
)";

} // namespace

TEST_CASE("directive_ignored: lines that only repeat options read above the first command are advice")
{
  const auto r = run(k_second_header);
  const auto found = with_rule(r, "audit.directive_ignored");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 12);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  const std::string& message = found[0]->diagnostic.message;
  CHECK(message.find("they change nothing") != std::string::npos);
  CHECK(message.find("Slurm's defaults") == std::string::npos);
  // Moving them up is not the fix: the partition would change.
  CHECK(message.find("--partition g40 (line 3) with g80") != std::string::npos);
  CHECK(found[0]->diagnostic.fix.find("delete") != std::string::npos);
}

TEST_CASE("directive_ignored: a late GPU request nothing above sets is an error, naming it")
{
  const auto r = run(R"(#!/bin/bash
#SBATCH --nodes=2
cd /work
#SBATCH --nodes=2
#SBATCH --gpus-per-node=8
srun python train.py
)");
  const auto found = with_rule(r, "audit.directive_ignored");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  const std::string& message = found[0]->diagnostic.message;
  CHECK(message.find("Slurm's defaults for --gpus-per-node (--nodes is set above the first command as well)")
        != std::string::npos);
  CHECK(message.find("the job loses its GPUs") != std::string::npos);
  CHECK(found[0]->diagnostic.fix == "move the #SBATCH lines above the first command");
}

TEST_CASE("directive_ignored: with no directive above the first command every late line is a warning")
{
  const auto r = run(R"(#!/bin/bash
DIR=`pwd`
#SBATCH --partition=h100
#SBATCH --nodes=1
srun python train.py
)");
  const auto found = with_rule(r, "audit.directive_ignored");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("Slurm's defaults for each") != std::string::npos);
}

// Held-out round 28: `set -euo pipefail` above the whole #SBATCH block, which
// holds --ntasks-per-node=4, then `srun torchrun --nproc_per_node=4`. The job
// is judged as the lines mean it, so the fix for the ignored lines does not
// lead into a second error the audit knew of and did not say.
TEST_CASE("directive_ignored: the other rules judge the job the late lines mean")
{
  const auto r = run(R"(#!/bin/bash
set -euo pipefail
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=4
#SBATCH --time=01:00:00
srun torchrun --nnodes=2 --nproc_per_node=4 --rdzv-backend=c10d --rdzv-endpoint=h:29500 train.py
)");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.directive_ignored");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("its 2 nodes") != std::string::npos);
  CHECK(with_rule(r, "audit.torchrun_tasks_per_node").size() == 1);
}

TEST_CASE("directive_ignored: late lines of a second job's header stay out of the job")
{
  // --ntasks-per-node=8 repeats an option read above: the job keeps 1.
  const auto r = run(R"(#!/bin/bash
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=1
cd /work
#SBATCH --ntasks-per-node=8
srun torchrun --nproc_per_node=8 train.py
)");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.torchrun_tasks_per_node").empty());
}
