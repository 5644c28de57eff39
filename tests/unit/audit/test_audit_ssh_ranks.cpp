// DeepSpeed's runner starts a hostfile's other nodes with pdsh by default
// (deepspeedai/DeepSpeed deepspeed/launcher/runner.py, --launcher default
// "pdsh"; multinode_runner.py, PDSHRunner), over ssh, outside the job's
// steps. Held-out round 26: `deepspeed --hostfile hostfile.txt …` in the
// batch shell of a 2-node job.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("deepspeed --hostfile in the batch shell of a 2-node job: advice to let srun start the ranks")
{
  const std::string head = "#!/bin/bash\n#SBATCH -N 2\n#SBATCH --gres=gpu:4\n";
  const AuditResult r = run(head + "deepspeed --hostfile hosts.txt train.py --deepspeed\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.ranks_over_ssh");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(found[0]->diagnostic.message.find("other node's ranks") != std::string::npos);
  CHECK(with_rule(run(head + "deepspeed --hostfile hosts.txt --launcher slurm train.py\n"), "audit.ranks_over_ssh")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\ndeepspeed --hostfile hosts.txt train.py\n"), "audit.ranks_over_ssh")
          .empty());
}
