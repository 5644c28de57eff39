// `sbatch <<EOF … EOF`: sbatch reads the job script from its standard input
// (sbatch(1): "If no file name is specified on the command line, sbatch will
// read the script from standard input"). In an unquoted heredoc bash removes
// the backslash of `\$`, `\`` and `\\` (bash(1), "Here Documents"), and
// `<<-` strips leading tabs. Round 22's DDP tutorial submitted a job with
// `--nodes 1` and `--gres=gpu:2` that ran torchrun with `--nnodes=2` and
// `--nproc_per_node=8`.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("the job script in an sbatch heredoc is audited, on the outer lines, its line numbers shifted")
{
  const std::string script = "{\n"
                             "\tmkdir -p slurm\n"
                             "\tsbatch <<- EOF\n"
                             "\t#!/bin/bash\n"
                             "\t#SBATCH --nodes 1\n"
                             "\t#SBATCH --gres=gpu:2\n"
                             "\texport master_addr=\"\\$(scontrol show hostname \\${SLURM_NODELIST} | head -n 1)\"\n"
                             "\tsrun --nodes=2 python -u -m torch.distributed.run --nproc_per_node=8 --nnodes=2 \\\n"
                             "\t--rdzv_backend=c10d --rdzv_endpoint=\\${master_addr}:29400 elastic_ddp.py\n"
                             "\tEOF\n"
                             "}\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.no_launch").empty());
  const auto gpus = with_rule(r, "audit.gpus_mismatch");
  REQUIRE(gpus.size() == 1);
  CHECK(gpus[0]->diagnostic.message.starts_with("in the job script sbatch reads from the heredoc on line 3: "));
  const auto nodes = with_rule(r, "audit.nodes_duplicated");
  REQUIRE(nodes.size() == 1);
  CHECK(nodes[0]->diagnostic.severity == lg::Severity::error);
  CHECK(nodes[0]->diagnostic.message.find("(#SBATCH --nodes line 5)") != std::string::npos);
}

TEST_CASE("a heredoc given to another command, or sbatch with a file: no second audit")
{
  const AuditResult r = run("#!/bin/bash\ncat > job.sh <<EOF\n#!/bin/bash\n#SBATCH -N 1\nsrun --nodes=2 torchrun "
                            "--nnodes=2 --nproc_per_node=8 t.py\nEOF\nsbatch job.sh\n");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.nodes_duplicated").empty());
}
