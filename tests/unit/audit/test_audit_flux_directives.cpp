// Flux's submission directives as the job's counts (src/audit/job_cluster.cpp,
// flux_count): a line of non-alphanumeric characters followed by the tag
// `FLUX:` or `flux:`, grouped before the script's other lines (flux-core
// doc/man1/common/submit-submission-directives.rst, RFC 36). A family left
// open by issue 13's round 14 (bench/audit/corpus.md): a Flux-converted
// 2-node llama-recipes job (`#FLUX: -N=2`, the converter's spelling) whose
// `srun torchrun` has no --nnodes was judged a one-node job. Read where no
// #SBATCH line gives the count. Each script is synthetic.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_flux_head = "#!/bin/bash\n#FLUX: --job-name=llama\n#FLUX: -N=2\n#FLUX: --gpus-per-node=4\n\n"
                                "export MASTER_ADDR=$(hostname)\n";

}  // namespace

TEST_CASE("flux directives: #FLUX: -N 2 is the job's node count")
{
  const AuditResult r = run(k_flux_head + "srun torchrun --nproc_per_node 4 finetune.py --model llama\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.torchrun_default_nnodes");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("each of the 2 nodes") != std::string::npos);
  // The other spellings: -N2, -N 2, --nodes=2, and a `# flux:` sentinel.
  for (const char* line : {"#FLUX: -N2\n", "#FLUX: -N 2\n", "# flux: --nodes=2\n"}) {
    const AuditResult other =
      run(std::string("#!/bin/bash\n") + line + "srun torchrun --nproc_per_node 4 finetune.py\n");
    CAPTURE(line);
    CHECK(with_rule(other, "audit.torchrun_default_nnodes").size() == 1);
  }
}

TEST_CASE("flux directives: a bare torchrun on a 2-node Flux job leaves the other node idle (torchrun's --nnodes=1:1)")
{
  const AuditResult r = run(k_flux_head + "torchrun --nproc_per_node 4 finetune.py --model llama\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.single_host_launch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);  // one node runs; the other idles
  CHECK(found[0]->diagnostic.message.starts_with("#FLUX: -N 2 but torchrun runs without srun"));
  CHECK(found[0]->diagnostic.message.find("the other node stays idle") != std::string::npos);
}

TEST_CASE("flux directives: an #SBATCH count wins, and a #FLUX: line after the first command is not read")
{
  const AuditResult slurm =
    run("#!/bin/bash\n#SBATCH --nodes=1\n#FLUX: -N 2\nsrun torchrun --nproc_per_node 4 train.py\n");
  CHECK(with_rule(slurm, "audit.torchrun_default_nnodes").empty());
  const AuditResult late = run("#!/bin/bash\ncd /work\n#FLUX: -N 2\nsrun torchrun --nproc_per_node 4 train.py\n");
  CHECK(with_rule(late, "audit.torchrun_default_nnodes").empty());
}
