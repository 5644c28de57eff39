// A batch script that ends with a bare `wait`: bash(1), `wait`: "If id is
// not given, all currently active child processes are waited for, and the
// return status is zero." The script's status is the job's (sbatch(1)), so
// the job is COMPLETED whatever its steps did. Seen on the local Slurm 22.05
// (scripts/slurm-cluster): `srun false & srun true & wait` gives the job
// COMPLETED 0:0 and the first step FAILED 1:0.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("background steps then a bare wait as the last command: a warning on the wait")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=2\n"
                             "srun --het-group=0 python serve.py &\n"
                             "srun --het-group=1 python train.py &\n"
                             "wait\n"
                             "echo \"done at $(date)\"\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.wait_status");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 5);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("after 2 steps started in the background") != std::string::npos);
  CHECK(found[0]->diagnostic.fix.find("wait \"$p\" || rc=$?") != std::string::npos);
}

TEST_CASE("one ssh fan-out per node in a loop, then wait inside an if: still the job's status")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=4\n"
                             "for h in $(scontrol show hostnames); do\n"
                             "  ssh \"$h\" bash run.sh &\n"
                             "done\n"
                             "if true; then\n  wait\nfi\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.wait_status");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 7);
}

TEST_CASE("the status kept: wait for a PID, an exit after the wait, $? read, a foreground launch: nothing")
{
  const char* kept[] = {
    // wait with an ID returns that process's status
    "#!/bin/bash\n#SBATCH -N 1\nsrun python train.py &\npid=$!\nwait $pid\n",
    // the script says its own status after the wait
    "#!/bin/bash\n#SBATCH -N 1\nsrun python train.py &\nwait\nexit $(cat status)\n",
    // the status read after it
    "#!/bin/bash\n#SBATCH -N 1\nsrun python train.py &\nwait\necho \"rc=$?\"\n",
    // nothing in the background: the launch's own status is the job's
    "#!/bin/bash\n#SBATCH -N 1\nsrun python train.py\nwait\n",
    // not a batch script (no #SBATCH): run under salloc, its status is nobody's job state
    "#!/bin/bash\nsrun python train.py &\nwait\n",
    // a wait in a function defined last is not the script's end
    "#!/bin/bash\n#SBATCH -N 1\nsrun python train.py &\nsrun python eval.py\nfinish() {\n  wait\n}\n",
  };
  for (const char* script : kept) {
    const AuditResult r = run(script);
    CAPTURE(script);
    CAPTURE(describe(r));
    CHECK(with_rule(r, "audit.wait_status").empty());
  }
}

TEST_CASE("`exit` or `exit 0` after the wait says the same zero")
{
  for (const char* tail : {"exit\n", "exit 0\n"}) {
    const std::string script = std::string("#!/bin/bash\n#SBATCH -N 1\nsrun python train.py &\nwait\n") + tail;
    const AuditResult r = run(script);
    CAPTURE(describe(r));
    const auto found = with_rule(r, "audit.wait_status");
    REQUIRE(found.size() == 1);
    CHECK(line_of(found[0]) == 4);
  }
}

// bash(1), `set -e`: "Exit immediately if a pipeline … returns a non-zero
// status", except in a condition. Round 24's Alvis job: `set -euo pipefail`,
// then three launchers in turn, each followed by `exit_code_methodN=$?`.
TEST_CASE("set -e, then srun and rc=$? on the next line: one warning naming every such step")
{
  const std::string script = "#!/bin/bash\n#SBATCH -N 2\nset -euo pipefail\n"
                             "srun python a.py\nrc1=$?\n"
                             "srun python b.py\nrc2=$?\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.errexit_status");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 4);
  CHECK(found[0]->diagnostic.message.find("(the same for the step on line 6)") != std::string::npos);
  // set +e first, a condition, or no errexit: nothing.
  for (const std::string& body : {std::string("set -e\nset +e\nsrun python a.py\nrc=$?\n"),
                                  std::string("set -e\nsrun python a.py || rc=$?\n"),
                                  std::string("srun python a.py\nrc=$?\n")}) {
    CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\n" + body), "audit.errexit_status").empty());
  }
}

// On the local Slurm 22.05 (scripts/slurm-cluster), a job running `srun bash
// -c "sleep 37 > /dev/null 2>&1 &"`, then `sleep 3; pgrep -f "sleep 37"`,
// finds no sleep left: the step ended with its task and Slurm killed what it
// had started. Round 24's A3 Mega job started its dcgmi monitor that way.
TEST_CASE("srun bash -c '… &' with no wait: a warning; with wait, or in the foreground: nothing")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 2\nsrun --ntasks-per-node=1 bash -c 'dcgmi dmon -d 1000 > "
                            "log_$(hostname).csv 2>&1 &' &\nsrun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.step_background");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.message.find("starts `dcgmi` in the background") != std::string::npos);
  CHECK(with_rule(run("#!/bin/bash\nsrun bash -c 'dcgmi dmon > x & python t.py; wait'\n"), "audit.step_background")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\nsrun bash -c 'a && b'\n"), "audit.step_background").empty());
}

// `#!/bin/bash -ex` turns errexit on as `set -e` does (bash(1), OPTIONS).
TEST_CASE("errexit from the #! line: the same warning; -x alone: nothing")
{
  CHECK(with_rule(run("#!/bin/bash -ex\n#SBATCH -N 1\nsrun python a.py\nrc=$?\n"), "audit.errexit_status").size() == 1);
  CHECK(with_rule(run("#!/bin/bash -x\n#SBATCH -N 1\nsrun python a.py\nrc=$?\n"), "audit.errexit_status").empty());
}
