// A value the launch uses from a variable the script never sets, in a
// script that sets the others. Round 22's NeMo punctuation job:
// `trainer.max_steps=${MAX_STEPS}` with MAX_STEPS set nowhere; Hydra reads
// `trainer.max_steps=` as an empty value, argparse `--flag` with nothing
// after it stops with "expected one argument".
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("a launch value from a variable set nowhere, the others set: a warning on the use")
{
  const std::string script = "#!/bin/bash\n#SBATCH -N 1\nDATA=/d\nSTEPS_LR=1e-4\nEXP=run1\n"
                             "read -r -d '' cmd <<EOF\n"
                             "python train.py data=${DATA} lr=${STEPS_LR} name=${EXP} trainer.max_steps=${MAX_STEPS}\n"
                             "EOF\n"
                             "srun bash -c \"${cmd}\"\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.unset_variable");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 7);
  CHECK(found[0]->diagnostic.message.starts_with("$MAX_STEPS is never set in the script, which sets the 4 other"));
}

TEST_CASE("set by a loop or read, tested, defaulted, passed on by name, or a caller-driven script: nothing")
{
  const std::string head = "#!/bin/bash\n#SBATCH -N 1\nA=1\nB=2\nC=3\n";
  const std::string scripts[] = {
    head + "for X in 1 2; do\n  srun python t.py --a $A --b $B --c $C --x $X\ndone\n",
    head + "[ -z \"$X\" ] && exit 1\nsrun python t.py --a $A --b $B --c $C --x $X\n",
    head + "srun python t.py --a $A --b $B --c $C --x ${X:-7}\n",
    head + "srun --export \"X=${X}\" python t.py --a $A --b $B --c $C\n",
    // three unset names: the script takes its values from its caller
    head + "srun python t.py --a $A --b $B --c $C --x $X --y $Y --z $Z\n",
    // too few set names to say
    "#!/bin/bash\nA=1\nsrun python t.py --a $A --x $X\n",
    head + "source env.sh\nsrun python t.py --a $A --b $B --c $C --x $X\n",
    head + "srun python t.py --a $A --b $B --c $C \"$@\"\n",
  };
  for (const auto& script : scripts) {
    const AuditResult r = run(script);
    CAPTURE(script);
    CAPTURE(describe(r));
    CHECK(with_rule(r, "audit.unset_variable").empty());
  }
}

// Round 22's `WANDB="${wandb}"`, WANDB then used in the command text the
// launch runs: followed down the variables the launch expands.
TEST_CASE("an unset variable two assignments away from the launch")
{
  const std::string script = "#!/bin/bash\n#SBATCH -N 1\nA=1\nB=2\nWANDB=\"${wandb}\"\n"
                             "CMD=\"wandb login ${WANDB} && python t.py --a $A --b $B\"\n"
                             "srun bash -c \"$CMD\"\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.unset_variable");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 5);
  CHECK(found[0]->diagnostic.message.starts_with("$wandb is never set"));
}

// Round 24's Leonardo job sources a virtual environment's activate script,
// which sets PATH and VIRTUAL_ENV only: the unset name (its own assignment
// commented out, `#DIR=…`) is still judged.
TEST_CASE("a venv's activate does not hide an unset variable; another sourced file does")
{
  const std::string tail = "#DIR=/opt/app\nA=1\nB=2\nC=3\nsrun python $DIR/t.py --a $A --b $B --c $C\n";
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nsource venv/bin/activate\n" + tail);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.unset_variable").size() == 1);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\nsource setup.sh\n" + tail), "audit.unset_variable").empty());
}
