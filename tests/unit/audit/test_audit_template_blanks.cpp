// What templates leave for the reader to fill in. Round 22's NeMo BLOOM
// template: `#SBATCH -A account_name`, `-p partition_name` (Slurm rejects
// an account or partition that does not exist: "Invalid account or
// account/partition combination specified"), and `LUSTRE=  # Path to home
// dir`, an empty value whose comment says what belongs there; its Leonardo
// job wrote `DATA_DIR= <path> # path to dataset` twice over.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("an #SBATCH value that only names its option, short or long: a placeholder error")
{
  const std::string script = "#!/bin/bash\n#SBATCH -A account_name\n#SBATCH -p partition_name\n"
                             "#SBATCH --qos=my_qos\n#SBATCH -N 1\nsrun python t.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 3);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[2]) == 4);
  // Real names that merely contain the option's name are not.
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -A account_ml\n#SBATCH -p gpu_partition\nsrun python t.py\n"),
                  "audit.placeholder")
          .empty());
}

TEST_CASE("NAME=  # what goes here, then $NAME used: a warning listing the uses")
{
  const std::string script = "#!/bin/bash\n#SBATCH -N 1\n"
                             "LUSTRE=  # Path to home dir\n"
                             "OPTIONAL=\n"
                             "NEMO=${LUSTRE}/NeMo\n"
                             "srun --container-mounts=${LUSTRE}:${LUSTRE} python $NEMO/train.py $OPTIONAL\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("`# Path to home dir`") != std::string::npos);
  CHECK(found[0]->diagnostic.message.find("on lines 5, 6") != std::string::npos);
}

TEST_CASE("one <placeholder> on two lines is one finding, and its empty variables no second one")
{
  const std::string script = "#!/bin/bash\nDATA_DIR= <path> # path to dataset\nRESULTS_DIR= <path> # results\n"
                             "srun python train.py --data-dir $DATA_DIR --results-dir $RESULTS_DIR\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("(also on line 3)") != std::string::npos);
  CHECK(with_rule(r, "audit.empty_option_value").empty());
}

// Round 23's Megatron Bridge DeepSeek-V4 SFT example (and five development
// scripts of the same project): `CONTAINER_IMAGE=""`, then `if [ -z
// "$CONTAINER_IMAGE" ]; then … exit 1; fi`. bash(1), "Environment": the
// assignment replaces what the shell inherited, so the job always exits.
TEST_CASE("a variable set empty and then tested with -z and exit: a warning on the assignment")
{
  for (const std::string& guard : {std::string("if [ -z \"$IMG\" ]; then\n  echo set IMG\n  exit 1\nfi\n"),
                                  std::string("[ -z \"$IMG\" ] && exit 1\n")}) {
    const std::string script = "#!/bin/bash\n#SBATCH -N 8\nIMG=\"\"\n# IMG=/path/to/image.sqsh\n" + guard +
                               "srun --container-image=$IMG python t.py\n";
    const AuditResult r = run(script);
    CAPTURE(describe(r));
    const auto found = with_rule(r, "audit.empty_then_exit");
    REQUIRE(found.size() == 1);
    CHECK(line_of(found[0]) == 3);
    CHECK(found[0]->diagnostic.message.find("tested on line 5") != std::string::npos);
  }
  // Taken from the environment, or set in a branch first: nothing.
  for (const std::string& head : {std::string("IMG=${IMG:-}\n"), std::string("IMG=\"\"\nif [ -n \"$1\" ]; then IMG=$1; fi\n")}) {
    const std::string script = "#!/bin/bash\n#SBATCH -N 8\n" + head + "[ -z \"$IMG\" ] && exit 1\nsrun python t.py\n";
    CHECK(with_rule(run(script), "audit.empty_then_exit").empty());
  }
}
