// --fix moves only what it can move safely (issue 13, "--fix must be safe"):
// top-level simple commands whose expansions do not depend on what is
// between; otherwise the finding keeps its fix text and makes no edit.
// Message: findings_hygiene.cpp (audit.export_after_launch). Synthetic scripts.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const char* const k_launch = "srun python pretrain_gpt.py --num-layers 8 --hidden-size 1024 --num-attention-heads 16\n";

bool has_edit(const AuditResult& r, const std::string& rule)
{
  for (const auto* f : with_rule(r, rule)) {
    if (!f->edits.empty()) {
      return true;
    }
  }
  return false;
}

} // namespace

TEST_CASE("fix moves: a top-level late export moves above a top-level launch")
{
  const std::string script = std::string("#!/bin/bash\n") + k_launch + "export NCCL_DEBUG=WARN\n";
  const AuditResult r = run(script);
  REQUIRE(with_rule(r, "audit.export_after_launch").size() == 1);
  CHECK(fix(script) == std::string("#!/bin/bash\nexport NCCL_DEBUG=WARN\n") + k_launch);
}

TEST_CASE("fix moves: an export inside an if block is reported but not moved (no empty if…fi)")
{
  const std::string script = std::string("#!/bin/bash\n") + k_launch + "if true; then\n  export NCCL_DEBUG=WARN\nfi\n";
  const AuditResult r = run(script);
  REQUIRE(with_rule(r, "audit.export_after_launch").size() == 1);
  CHECK_FALSE(has_edit(r, "audit.export_after_launch"));
  CHECK(fix(script) == script);
}

TEST_CASE("fix moves: an export whose value reads a variable set after the launch is not moved")
{
  const std::string script = std::string("#!/bin/bash\n") + k_launch + "LEVEL=WARN\nexport NCCL_DEBUG=$LEVEL\n";
  const AuditResult r = run(script);
  REQUIRE(with_rule(r, "audit.export_after_launch").size() == 1);
  CHECK_FALSE(has_edit(r, "audit.export_after_launch"));
}

TEST_CASE("fix moves: a launch inside a branch or after `&&` gets no moved export")
{
  const std::string branch = "#!/bin/bash\nif true; then\n  " + std::string(k_launch) + "fi\nexport NCCL_DEBUG=WARN\n";
  CHECK_FALSE(has_edit(run(branch), "audit.export_after_launch"));
  const std::string chained = "#!/bin/bash\ncd /tmp && " + std::string(k_launch) + "export NCCL_DEBUG=WARN\n";
  CHECK_FALSE(has_edit(run(chained), "audit.export_after_launch"));
}

TEST_CASE("fix moves: an inserted export never lands inside a continued command")
{
  // The launch continues the line before (`cd /tmp && \`): no line can go between.
  const std::string script = "#SBATCH -N 1\ncd /tmp && \\\n  torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2 "
                             "--num-layers 8 --hidden-size 1024 --num-attention-heads 16\n";
  const AuditResult r = run(script);
  REQUIRE(with_rule(r, "env.cuda_device_max_connections_tp_cp").size() == 1);
  CHECK_FALSE(has_edit(r, "env.cuda_device_max_connections_tp_cp"));
}
