// A Python helper read as the launch while the work is handed to another file
// (issue 13, rounds 5 and 7: `python gen_host_file.py` then `bash FILE`). bash
// runs a file named as its first operand (bash man page, INVOCATION: "the first
// argument is assumed to be the name of a file containing shell commands"), so
// the training may be in a file the audit does not read: it says so instead
// of staying silent.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_head = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:4\n";

}  // namespace

TEST_CASE("python helper, then bash FILE or srun bash FILE: advice on the line that hands the work on")
{
  for (const std::string handoff : {"bash run_train.sh", "srun bash run_train.sh", "sh ./train.sh 2"}) {
    CAPTURE(handoff);
    const AuditResult r = run(k_head + "python gen_host_file.py --out hosts\n" + handoff + "\n");
    CAPTURE(describe(r));
    const auto found = with_rule(r, "audit.no_launch");
    REQUIRE(found.size() == 1);
    CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
    CHECK(line_of(found[0]) == 5);
    CHECK(found[0]->diagnostic.message.find("line 4's `python gen_host_file.py`") != std::string::npos);
    CHECK(found[0]->diagnostic.message.find("runs `" + handoff + "`") != std::string::npos);
  }
}

TEST_CASE("a real launch before a helper file, or a shell with no file: no hand-off advice")
{
  for (const std::string script :
       {"srun torchrun --nnodes 2 --nproc_per_node 4 train.py\nbash cleanup.sh\n",  // torchrun is the launch
        "python pretrain_gpt.py --tensor-model-parallel-size 2 --num-layers 2\nbash cleanup.sh\n",  // Megatron
        "bash prepare.sh\npython train.py\n",       // the file runs first
        "python train.py\nbash -c 'echo done'\n",   // no file
        "srun python train.py\nbash eval.sh\n"}) {  // srun python is a training
    CAPTURE(script);
    const AuditResult r = run(k_head + script);
    CAPTURE(describe(r));
    for (const auto* f : with_rule(r, "audit.no_launch")) {
      CHECK(f->diagnostic.message.find("probably not") == std::string::npos);
    }
  }
}

TEST_CASE("a helper and a hand-off inside branches or loops are not read as this shape")
{
  const AuditResult r = run(k_head + "for i in 1 2; do\n  python -m checker --log $i\n  srun bash dump.sh\ndone\n"
                            + "if [ -n \"$X\" ]; then\n  python check.py\n  bash post.sh\nfi\n");
  CAPTURE(describe(r));
  for (const auto* f : with_rule(r, "audit.no_launch")) {
    CHECK(f->diagnostic.message.find("probably not") == std::string::npos);
  }
}

TEST_CASE("on one node a bare python then bash FILE is not judged: the file may be an evaluation")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --gres=gpu:4\npython train.py\nbash eval.sh\n");
  CAPTURE(describe(r));
  for (const auto* f : with_rule(r, "audit.no_launch")) {
    CHECK(f->diagnostic.message.find("probably not") == std::string::npos);
  }
  // srun bash FILE hands the work to the tasks: said on one node too.
  const AuditResult srun = run("#!/bin/bash\n#SBATCH --nodes=1\npython gen_hosts.py\nsrun bash train.sh\n");
  REQUIRE(with_rule(srun, "audit.no_launch").size() == 1);
  CHECK(with_rule(srun, "audit.no_launch")[0]->diagnostic.message.find("probably not") != std::string::npos);
}
