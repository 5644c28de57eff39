// `read -r -d '' NAME <<EOF … EOF` puts a heredoc's whole body into NAME
// (src/audit/shell_eval_command.cpp, read_heredoc; bash(1), read: "-d delim
// … continue until the first character of delim is read", '' being NUL), and
// `srun … bash -c "$NAME"` then runs it in each task. A family left open by
// the earlier rounds of issue 13 and seen again in round 17
// (bench/audit/corpus.md): a public NeMo job and the development set's
// Megatron Bridge Step-3.5 script build their training command this way, so
// their launch, its environment and its parallel layout were never read.
// Each script is synthetic.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_read_head = "#!/bin/bash\n#SBATCH -N 1\n#SBATCH --ntasks-per-node=8\n#SBATCH --gpus-per-node=8\n"
                                "DATA=/data\n";

}  // namespace

TEST_CASE("read heredoc: the body of read -d '' is the command bash -c runs, with its environment")
{
  const std::string body = "export CUDA_LAUNCH_BLOCKING=1\necho \"rank \\${SLURM_PROCID}\"\n"
                           "python train.py --data ${DATA}\n";
  for (const std::string& delimiter : {std::string("EOF"), std::string("'EOF'")}) {
    const AuditResult r = run(k_read_head + "read -r -d '' CMD <<" + delimiter + "\n" + body
                              + "EOF\nsrun --container-image=img.sqsh bash -c \"${CMD}\"\n");
    CAPTURE(delimiter);
    CAPTURE(describe(r));
    CHECK(with_rule(r, "audit.no_launch").empty());
    const auto debug = with_rule(r, "env.debug_setting");
    REQUIRE(debug.size() == 1);
    CHECK(line_of(debug[0]) == 7);  // the export inside the body
  }
}

TEST_CASE("read heredoc: a read with a delimiter or several names is not followed")
{
  const std::string tail = "export CUDA_LAUNCH_BLOCKING=1\npython train.py\nEOF\nsrun bash -c \"${CMD}\"\n";
  for (const char* read : {"read -r CMD <<EOF\n", "read -r -d ';' CMD <<EOF\n", "read -r -d '' CMD OTHER <<EOF\n"}) {
    const AuditResult r = run(k_read_head + read + tail);
    CAPTURE(read);
    CAPTURE(describe(r));
    CHECK(with_rule(r, "env.debug_setting").empty());
  }
}
