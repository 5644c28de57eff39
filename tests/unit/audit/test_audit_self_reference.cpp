// `NAME=DIR:\$NAME`: bash keeps an escaped `$` literal (bash manual,
// "Escape Character" and "Double Quotes"), so NAME gets the text `$NAME` and
// loses its old value. Round 19's LUMI Megatron job prepended four library
// directories to LD_LIBRARY_PATH that way and kept only the last. Checked
// with bash 5.2: `X=a; X=b:\$X; echo "$X"` prints `b:$X`.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("NAME=DIR:\\$NAME gives NAME the text $NAME: a warning on the escaped dollar")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=1\n"
                             "export LD_LIBRARY_PATH=/opt/cxi/lib:\\$LD_LIBRARY_PATH\n"
                             "export LD_LIBRARY_PATH=\"/opt/rccl/lib:\\${LD_LIBRARY_PATH}\"\n"
                             "srun python train.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.escaped_self_reference");
  // One finding for the name, on its first line, naming the other.
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("the text `$LD_LIBRARY_PATH`") != std::string::npos);
  CHECK(found[0]->diagnostic.message.find("(the same on line 4)") != std::string::npos);
}

TEST_CASE("an escaped dollar meant for a later shell, a literal backslash, or another name: nothing")
{
  const std::string script =
    "#!/bin/bash\n"
    // For the task's shell: bash -c expands it on each node.
    "CMD=\"RANK=\\$SLURM_PROCID python train.py\"\n"
    // `\\$X`: a literal backslash, then $X expands.
    "export PATH=/opt/bin:\\\\$PATH\n"
    // Written into a file: the file's reader expands it.
    "cat > env.sh <<EOF\nexport LD_LIBRARY_PATH=/opt/lib:\\$LD_LIBRARY_PATH\nEOF\n"
    // Another variable whose name starts with the same letters.
    "LD=/x:\\$LD_LIBRARY_PATH\n"
    // Inside a command string another shell runs, the escape is what makes it work.
    "srun bash -c \"export LD_LIBRARY_PATH=/opt/x:\\$LD_LIBRARY_PATH; python train.py\"\n"
    "eval \"export PATH=/opt/bin:\\$PATH\"\n"
    "srun bash -c \"$CMD\"\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.escaped_self_reference").empty());
}
