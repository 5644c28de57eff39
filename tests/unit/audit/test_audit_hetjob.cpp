// Heterogeneous jobs: `#SBATCH hetjob` (and the older `packjob`) between two
// groups of #SBATCH lines starts a second job component with its own nodes,
// tasks and GPUs (Slurm sbatch(1), "HETEROGENEOUS JOB SUPPORT";
// doc/html/heterogeneous_jobs.shtml: "Each component should be separated by a
// line containing the line "#SBATCH hetjob""). sbatch counts the components
// in src/sbatch/opt.c (_opt_batch_script, het_job_scan_inx; get_argument
// blanks the word out), so the word is no stray directive; the batch script
// and an srun without --het-group run in component 0 (srun(1), --het-group:
// "The default value is --het-group=0"). Issue 13, round 11: a public RLHF
// job (a reward-model server in one component, the actor in another) was read
// as one job with two sets of nodes.
#include "audit_test_support.hpp"

#include "audit/script_reader.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_het_two = "#!/bin/bash\n"
                              "#SBATCH --job-name=rm-and-actor --time=04:00:00\n"
                              "#SBATCH -N 1 --ntasks-per-node=1 --gpus-per-node=8 --partition=batch\n"
                              "#SBATCH hetjob\n"
                              "#SBATCH -N 2 --ntasks-per-node=1 --gres=gpu:4 --partition=batch\n";

std::string het_torchrun(const std::string& srun_options, int nnodes, int nproc)
{
  return "srun " + srun_options + " torchrun --nnodes=" + std::to_string(nnodes) + " --nproc_per_node="
         + std::to_string(nproc) + " --rdzv_backend=c10d --rdzv_endpoint=$(hostname):29500 train.py\n";
}

}  // namespace

TEST_CASE("#SBATCH hetjob and packjob separate components; the word is not an invalid directive")
{
  const ScriptModel m = read_script(k_het_two + "srun hostname\n");
  CHECK(m.components == 2);
  REQUIRE(m.directive("nodes") != nullptr);
  CHECK(m.directive("nodes")->value == "1");
  REQUIRE(m.directive("nodes", 1) != nullptr);
  CHECK(m.directive("nodes", 1)->value == "2");
  CHECK(m.directive("gres") == nullptr);  // component 1's, not the batch script's
  CHECK(m.directive("nodes", -1) == nullptr);
  CHECK(m.directive_strays.empty());
  // Any case, as sbatch compares it (xstrncasecmp), and the deprecated packjob;
  // options after the word on the same line belong to the new component.
  const ScriptModel older = read_script("#!/bin/bash\n#SBATCH -N 1\n#SBATCH PACKJOB -N 3\nsrun hostname\n");
  CHECK(older.components == 2);
  REQUIRE(older.directive("nodes", 1) != nullptr);
  CHECK(older.directive("nodes", 1)->value == "3");
  CHECK(older.directive("nodes")->value == "1");
  const AuditResult r = run(k_het_two + het_torchrun("", 1, 8));
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.directive_option").empty());
  // A word that only starts like it is still a stray ("hetjobs").
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\n#SBATCH hetjobs\nsrun hostname\n"), "audit.directive_option").size()
        == 1);
}

TEST_CASE("each component's counts are its own: no mismatch from comparing across components")
{
  // Component 0 has 1 node with 8 GPUs, component 1 has 2 nodes with 4.
  // Before: the last #SBATCH -N (2) and --gres (4) were read as one job's.
  const AuditResult default_group = run(k_het_two + het_torchrun("", 1, 8));
  CAPTURE(describe(default_group));
  CHECK(with_rule(default_group, "audit.gpus_mismatch").empty());  // 8 on component 0's 8
  for (const auto& f : default_group.findings) {
    CHECK(f.diagnostic.severity != lg::Severity::error);  // --nnodes=1 is component 0's -N 1
  }
  const AuditResult second = run(k_het_two + het_torchrun("--het-group=1", 2, 4));
  CAPTURE(describe(second));
  CHECK(with_rule(second, "audit.gpus_mismatch").empty());  // 4 on component 1's 4
  for (const auto* f : with_rule(second, "audit.nodes_duplicated")) {
    CHECK(f->diagnostic.severity != lg::Severity::error);  // 2 = component 1's -N 2
  }
  // Within one component the rules still judge: 8 workers on component 1's 4 GPUs.
  const AuditResult over = run(k_het_two + het_torchrun("--het-group=1", 2, 8));
  const auto found = with_rule(over, "audit.gpus_mismatch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("8 processes per node on 4 GPUs") != std::string::npos);
}

TEST_CASE("a step over several components, or one not known, is not judged against any one of them")
{
  for (const std::string options : {"--het-group=0,1", "--het-group=$GROUP", "--het-group=1-2"}) {
    const AuditResult r = run(k_het_two + het_torchrun(options, 3, 2));
    CAPTURE(options);
    CAPTURE(describe(r));
    CHECK(with_rule(r, "audit.gpus_mismatch").empty());
    for (const auto& f : r.findings) {
      CHECK(f.diagnostic.rule != "audit.nodes_duplicated");
    }
  }
}

TEST_CASE("the SLURM_* counts of a heterogeneous job are not taken from any one component")
{
  // Slurm sets them per component with a _HET_GROUP_<n> suffix (sbatch(1),
  // SLURM_*_HET_GROUP_#): the plain name is not read from the directives.
  const std::string launch = "srun --het-group=1 torchrun --nnodes=$SLURM_JOB_NUM_NODES --nproc_per_node=4 "
                             "--rdzv_backend=c10d --rdzv_endpoint=$(hostname):29500 train.py\n";
  auto nnodes = [](const ScriptModel& m) -> std::optional<Word> {
    if (m.launches.empty() || m.launches.back().stage("torchrun") == nullptr) {
      return std::nullopt;
    }
    const LaunchOption* o = m.launches.back().stage("torchrun")->find("nnodes");
    return o == nullptr ? std::nullopt : o->value;
  };
  const auto het = nnodes(read_script(k_het_two + launch));
  REQUIRE(het.has_value());
  CHECK_FALSE(het->known);
  // An ordinary job's count is the directive's.
  const auto plain = nnodes(read_script("#!/bin/bash\n#SBATCH -N 2 --gres=gpu:4\n" + launch));
  REQUIRE(plain.has_value());
  CHECK(plain->known);
  CHECK(plain->text() == "2");
}
