// audit.hostfile_mismatch: deepspeed --hostfile/-H names another file than the
// one the script writes its node list to. The runner reads only the file it is
// given (deepspeedai/DeepSpeed deepspeed/launcher/runner.py, fetch_hostfile;
// one "HOST slots=N" line per node, _parse_hostfile). Shape from held-out
// round 18 (bench/audit/corpus.md): an Open-Assistant DeepSpeed job that
// writes hostfile.txt in its working directory and passes another user's
// /fsx/…/hostfile.txt.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit::testing;

namespace {

std::string job(const std::string& setup, const std::string& launch_dir, const std::string& hostfile)
{
  return "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:8\n" + setup
         + "HOSTNAMES=`scontrol show hostnames \"$SLURM_JOB_NODELIST\"`\n"
           "hostfile=\"hostfile.txt\"\nrm -f $hostfile\nfor node in $HOSTNAMES; do\n"
           "  echo $node slots=8 >> $hostfile\ndone\n"
         + launch_dir + "deepspeed --hostfile=" + hostfile + " --launcher OpenMPI train.py --deepspeed\n";
}

} // namespace

TEST_CASE("hostfile_mismatch: the launcher reads another path than the one the loop writes")
{
  const auto r = run(job("cd /admin/me/project\n", "cd /admin/me/project/training/\n",
                         "'/fsx/someone-else/hostfile.txt'"));
  const auto found = with_rule(r, "audit.hostfile_mismatch");
  REQUIRE(found.size() == 1);
  const auto& d = found[0]->diagnostic;
  CHECK(line_of(found[0]) == 12);  // the --hostfile option
  CHECK(d.severity == lg::Severity::warning);
  for (const char* part : {"reads the hostfile /fsx/someone-else/hostfile.txt",
                           "writes goes to /admin/me/project/hostfile.txt (line 9)"}) {
    CHECK_MESSAGE(d.message.find(part) != std::string::npos, part);
  }
  // The launch runs in another directory: the fix names the written file absolutely.
  CHECK(d.fix == "pass the file the script writes: --hostfile /admin/me/project/hostfile.txt");
}

TEST_CASE("hostfile_mismatch: the same file, spelled relative or absolute, is not reported")
{
  CHECK(with_rule(run(job("", "", "hostfile.txt")), "audit.hostfile_mismatch").empty());
  CHECK(with_rule(run(job("", "", "./hostfile.txt")), "audit.hostfile_mismatch").empty());
  CHECK(with_rule(run(job("cd /work/run\n", "", "/work/run/hostfile.txt")), "audit.hostfile_mismatch").empty());
  // A function writing the file, called with `> hostfile` (the perl-generated shape).
  const auto r = run(R"(#!/bin/bash
#SBATCH --nodes=2
makehostfile() {
  perl -e 'print "x slots=8\n"'
}
makehostfile > hostfile
deepspeed -H hostfile --launcher OPENMPI train.py
)");
  CHECK(with_rule(r, "audit.hostfile_mismatch").empty());
}

TEST_CASE("hostfile_mismatch: not judged where the script could reach the path some other way")
{
  // Copied to the launcher's path.
  CHECK(with_rule(run(job("", "cp hostfile.txt /fsx/run/\n", "/fsx/run/hostfile.txt")), "audit.hostfile_mismatch")
          .empty());
  // A `cd` the script cannot read between the write and a relative launcher path.
  CHECK(with_rule(run(job("", "cd \"$WORKDIR\"\n", "hostfile.txt")), "audit.hostfile_mismatch").empty());
  // The submit directory is unknown: a relative write against an absolute path.
  CHECK(with_rule(run(job("", "", "/fsx/run/hostfile.txt")), "audit.hostfile_mismatch").empty());
  // The launcher's hostfile is not known.
  CHECK(with_rule(run(job("", "", "$DS_HOSTFILE")), "audit.hostfile_mismatch").empty());
}

// Held-out round 30's CARC job: `… | awk … > hostfile` in the directory the
// job started in, `cd /scratch1/…/LLaVA`, `deepspeed --hostfile=hostfile`:
// one file only when the job is submitted from the cd's directory. Advice.
TEST_CASE("a hostfile written in the submit directory and read after a cd: advice naming the directory")
{
  const lg::audit::AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=2\n"
                            "scontrol show hostnames $SLURM_NODELIST | awk '{print $1, \"slots=2\"}' > hostfile\n"
                            "cd /scratch/x\ndeepspeed --launcher slurm --num_nodes=2 --hostfile=hostfile t.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.hostfile_mismatch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(found[0]->diagnostic.message.find("submitted from /scratch/x") != std::string::npos);
}
