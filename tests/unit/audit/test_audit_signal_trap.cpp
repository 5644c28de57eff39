// A trap for the #SBATCH --signal=B: signal while the launch runs in the
// foreground (src/audit/findings_signal.cpp, trap_deferred). bash(1),
// SIGNALS: "If bash is waiting for a command to complete and receives a
// signal for which a trap has been set, the trap will not be executed until
// the command completes." Issue 13, round 17 (bench/audit/corpus.md): a
// public job set `--signal=B:USR2@600` and a USR2 trap that forwards the
// signal to the workers, then ran `srun accelerate launch …` in the
// foreground, so the trap could only run once srun had ended. Each script is
// synthetic.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_trap_head =
  "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --gpus-per-node=2\n#SBATCH --signal=B:USR2@600\n"
  "trap 'echo caught; pkill -USR2 -f train.py' SIGUSR2\n";

}  // namespace

TEST_CASE("signal trap: a B: signal's trap with srun in the foreground runs only after srun ends")
{
  const AuditResult r = run(k_trap_head + "srun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.trap_deferred");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(line_of(found[0]) == 6);
  CHECK(found[0]->diagnostic.message.find("trap (line 5)") != std::string::npos);
  CHECK(with_rule(r, "audit.signal").empty());  // the shell has a trap: it does not die of the signal
}

TEST_CASE("signal trap: a backgrounded launch, another signal or no B: prefix are left alone")
{
  CHECK(with_rule(run(k_trap_head + "srun python train.py &\nwait\n"), "audit.trap_deferred").empty());
  std::string other = k_trap_head;
  other.replace(other.find("SIGUSR2\n"), 8, "SIGTERM\n");
  CHECK(with_rule(run(other + "srun python train.py\n"), "audit.trap_deferred").empty());
  std::string steps = k_trap_head;
  steps.replace(steps.find("B:USR2"), 6, "USR2");
  CHECK(with_rule(run(steps + "srun python train.py\n"), "audit.trap_deferred").empty());
}
