// bash(1), REDIRECTION: the file is opened before the command runs; a missing
// directory fails it ("No such file or directory") and the command does not
// run. Held-out round 30's Frontier job: JOB_OUTPUT_PATH=…/$SLURM_JOB_NAME-$SLURM_JOB_ID,
// `eval $cmd &>> $OUTPUT_FILE` under it, no mkdir.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("a redirection into a job-ID directory nothing makes: one warning; made before: nothing")
{
  const std::string head = "#!/bin/bash\n#SBATCH -N 1\nexport J=/scratch/logs/$SLURM_JOB_NAME-$SLURM_JOB_ID\n"
                           "OUT=\"$J/out.log\"\n";
  const AuditResult r = run(head + "echo start &>> $OUT\nsrun python t.py &>> $OUT\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.redirect_directory");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 5);
  CHECK(with_rule(run(head + "mkdir -p $J\nsrun python t.py &>> $OUT\n"), "audit.redirect_directory").empty());
  CHECK(with_rule(run(head + "mkdir -p \"$(dirname \"$OUT\")\"\nsrun python t.py &>> $OUT\n"), "audit.redirect_directory")
          .empty());
  // A directory without the job's ID may exist before the job.
  CHECK(with_rule(run("#!/bin/bash\nsrun python t.py &>> /scratch/logs/out.log\n"), "audit.redirect_directory").empty());
}
