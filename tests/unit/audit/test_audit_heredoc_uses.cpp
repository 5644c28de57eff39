// A variable read only inside an unquoted heredoc is used: bash expands the
// body of `cat > env.sh <<EOF … $NAME … EOF` before the command reads it
// (bash manual, "Here Documents": with the delimiter unquoted, "all lines of
// the here-document are subjected to parameter expansion, command
// substitution, and arithmetic expansion"; quoted, `<<'EOF'`, "the lines in
// the here-document are not expanded"). Issue 13, round 11: NCCL settings
// assigned and then written into a generated env file or command were
// reported as assigned and never exported.
#include "audit_test_support.hpp"

#include "audit/script_reader.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_heredoc_head = "#!/bin/bash\n#SBATCH --nodes=1 --gpus-per-node=8\nNCCL_IB_HCA=mlx5_0\n"
                                   "NCCL_SOCKET_IFNAME=eth0\n";
const std::string k_heredoc_launch = "srun bash -c \"source env.sh; torchrun --nproc_per_node 8 train.py\"\n";

}  // namespace

TEST_CASE("$NAME and ${NAME} in an unquoted heredoc's body are uses; \\$NAME is text")
{
  const ScriptModel m = read_script(k_heredoc_head
                                    + "cat > env.sh <<EOF\nexport NCCL_IB_HCA=$NCCL_IB_HCA\n"
                                      "export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-eth1}\n"
                                      "echo \\$HOME ${#ARR} $1\nEOF\n"
                                    + k_heredoc_launch);
  std::vector<std::string> names;
  for (const auto& use : m.heredoc_uses) {
    names.push_back(use.name);
  }
  CHECK(names == std::vector<std::string>{"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "ARR", "1"});
  REQUIRE(m.heredoc_uses.size() == 4);
  CHECK(m.line_of(m.heredoc_uses[0].offset) == 6);
  CHECK(m.heredoc_uses[1].guarded);
  CHECK_FALSE(m.heredoc_uses[0].guarded);
}

TEST_CASE("a runtime variable written into a generated file through an unquoted heredoc is not 'not exported'")
{
  const AuditResult r = run(k_heredoc_head
                            + "cat > env.sh <<EOF\nexport NCCL_IB_HCA=$NCCL_IB_HCA\n"
                              "export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME}\nEOF\n"
                            + k_heredoc_launch);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.not_exported").empty());
  // `read -r -d '' CMD <<EOF` (a command built in a heredoc) reads them the same way.
  const AuditResult read_cmd = run(k_heredoc_head
                                   + "read -r -d '' CMD <<EOF\nexport NCCL_IB_HCA=${NCCL_IB_HCA} "
                                     "NCCL_SOCKET_IFNAME=$NCCL_SOCKET_IFNAME && python train.py\nEOF\n"
                                     "srun bash -c \"${CMD}\"\n");
  CAPTURE(describe(read_cmd));
  CHECK(with_rule(read_cmd, "audit.not_exported").empty());
}

TEST_CASE("a quoted heredoc leaves $NAME as text: the variable is still unused and unexported")
{
  for (const std::string delimiter : {"'EOF'", "\"EOF\"", "\\EOF"}) {
    const AuditResult r = run(k_heredoc_head + "cat > env.sh <<" + delimiter + "\nexport NCCL_IB_HCA=$NCCL_IB_HCA\n"
                              + "export NCCL_SOCKET_IFNAME=$NCCL_SOCKET_IFNAME\nEOF\n" + k_heredoc_launch);
    CAPTURE(delimiter);
    CAPTURE(describe(r));
    CHECK(with_rule(r, "audit.not_exported").size() == 2);
  }
}
