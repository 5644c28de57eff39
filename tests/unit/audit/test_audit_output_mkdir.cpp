// An absolute --output/--error directory that the job itself creates
// (`mkdir -p "$RUN_OUT"` with RUN_OUT the same path). slurmd opens the
// output file before the batch script's first line runs and does not create
// directories (sbatch(1), --output: "the directory ... must exist"; the local
// Slurm 22.05 ends such a job FAILED without running), so on a run where the
// directory does not exist yet the job fails; the script's mkdir shows that it
// may not. A relative one was judged so already; an absolute one only now
// (issue 13, round 13: a public GPT-2 XL job logging into its own run
// directory).
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("an absolute --output directory that the job's own mkdir creates: too late for the log")
{
  const std::string head = "#!/bin/bash\n#SBATCH --output=/cl/work/runs/gpt2xl/%j_pretrain.txt\n#SBATCH --gres=gpu:4\n";
  const AuditResult r = run(head
                            + "RUN_OUT=\"/cl/work/runs/gpt2xl\"\nmkdir -p \"${RUN_OUT}\"\n"
                              "torchrun --nproc_per_node=4 run_clm.py --output_dir \"${RUN_OUT}\"\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.output_directory");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("which the job itself creates (mkdir on line 5)") != std::string::npos);
  // Another directory made by the job, or none made at all: the cluster's path, not judged.
  CHECK(with_rule(run(head + "mkdir -p /cl/work/runs/other\ntorchrun --nproc_per_node=4 run_clm.py\n"),
                  "audit.output_directory")
          .empty());
  CHECK(with_rule(run(head + "torchrun --nproc_per_node=4 run_clm.py\n"), "audit.output_directory").empty());
  // A wrapper that makes it and then submits (sbatch after the mkdir) is in time.
  CHECK(with_rule(run(head + "mkdir -p /cl/work/runs/gpt2xl\nsbatch job.sh\n"), "audit.output_directory").empty());
}

// Round 25's CSCS job: `mkdir -p "$(dirname /out/main/obj/.)"` makes the
// directory its #SBATCH --output writes into, after Slurm opened the file.
TEST_CASE("mkdir of $(dirname PATH) is the job making its own --output directory")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --output=/scratch/u/out/obj/slurm-%j.out\n"
                            "mkdir -p \"$(dirname /scratch/u/out/obj/.)\"\nsrun python t.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.output_directory");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("which the job itself creates (mkdir on line 3)") != std::string::npos);
}
