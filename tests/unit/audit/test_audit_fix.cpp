// --fix: moves/inserts exports above the launch line and corrects values;
// fixing twice equals fixing once; nothing else changes. --fix=diff, SARIF.
#include "audit/sarif.hpp"
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const char* const k_broken = R"(#!/bin/bash
#SBATCH -N 1
#SBATCH --gpus-per-node=8
#SBATCH --ntasks-per-node=1
# keep this comment
NCCL_DEBUG=WARN
  srun torchrun --nproc_per_node 8 pretrain_gpt.py \
    --tensor-model-parallel-size 2 --use-megatron-fsdp \
    --num-layers 8 --hidden-size 1024 --num-attention-heads 16 \
    --micro-batch-size 1 --global-batch-size 8
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True   # after the launch
echo done
)";

const char* const k_fixed = R"(#!/bin/bash
#SBATCH -N 1
#SBATCH --gpus-per-node=8
#SBATCH --ntasks-per-node=1
# keep this comment
export NCCL_DEBUG=WARN
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True   # after the launch
  srun torchrun --nproc_per_node 8 pretrain_gpt.py \
    --tensor-model-parallel-size 2 --use-megatron-fsdp \
    --num-layers 8 --hidden-size 1024 --num-attention-heads 16 \
    --micro-batch-size 1 --global-batch-size 8
echo done
)";

} // namespace

TEST_CASE("--fix moves the late export, exports the plain assignment, and nothing else")
{
  CHECK(fix(k_broken) == k_fixed);
}

TEST_CASE("--fix is idempotent")
{
  const std::string once = fix(k_broken);
  CHECK(fix(once) == once);
  CHECK(with_rule(run(once), "audit.export_after_launch").empty());
}

TEST_CASE("--fix inserts a missing CUDA_DEVICE_MAX_CONNECTIONS with the launch line's indentation")
{
  const std::string script = "#SBATCH -N 1\nif true; then\n  torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2 "
                             "--num-layers 8 --hidden-size 1024 --num-attention-heads 16\nfi\n";
  const std::string fixed = fix(script);
  CHECK(fixed.find("then\n  export CUDA_DEVICE_MAX_CONNECTIONS=1\n  torchrun") != std::string::npos);
  CHECK(fix(fixed) == fixed);
}

TEST_CASE("--fix corrects a wrong literal value in place")
{
  const std::string script = "export CUDA_DEVICE_MAX_CONNECTIONS=1 # fsdp\ntorchrun --nproc_per_node 8 pretrain_gpt.py "
                             "--use-megatron-fsdp --num-layers 8 --hidden-size 1024 --num-attention-heads 16\n";
  const AuditResult r = run(script);
  REQUIRE(with_rule(r, "env.cuda_device_max_connections_fsdp").size() == 1);
  const std::string fixed = apply_fixes(script, r.findings);
  CHECK(fixed.starts_with("export CUDA_DEVICE_MAX_CONNECTIONS="));
  CHECK(!fixed.starts_with("export CUDA_DEVICE_MAX_CONNECTIONS=1 "));
  CHECK(fixed.find(" # fsdp\ntorchrun") != std::string::npos);
  CHECK(with_rule(run(fixed), "env.cuda_device_max_connections_fsdp").empty());
}

TEST_CASE("unified diff of a fix")
{
  const std::string diff = unified_diff(k_broken, fix(k_broken), "job.sbatch");
  CHECK(diff.starts_with("--- a/job.sbatch\n+++ b/job.sbatch\n@@ "));
  CHECK(diff.find("-NCCL_DEBUG=WARN\n") != std::string::npos);
  CHECK(diff.find("+export NCCL_DEBUG=WARN\n") != std::string::npos);
  CHECK(unified_diff("a\n", "a\n", "x").empty());
  CHECK(unified_diff("a\nb\nc\n", "a\nc\n", "x") == "--- a/x\n+++ b/x\n@@ -1,3 +1,2 @@\n a\n-b\n c\n");
}

TEST_CASE("SARIF 2.1.0 carries rules, levels and regions")
{
  const AuditResult r = run(k_broken);
  const std::string sarif = to_sarif({r}, "0.1.0");
  CHECK(sarif.find("\"version\": \"2.1.0\"") != std::string::npos);
  CHECK(sarif.find("\"ruleId\": \"audit.export_after_launch\"") != std::string::npos);
  CHECK(sarif.find("\"startLine\": 11") != std::string::npos);
  CHECK(sarif.find("\"level\": \"warning\"") != std::string::npos);
}

TEST_CASE("the project's templates audit clean")
{
  AuditOptions options = h100_options();
  options.template_mode = true;
  for (const char* name : {"torchrun.sbatch.mustache", "srun-native.sbatch.mustache"}) {
    std::ifstream in(std::string(LG_SOURCE_DIR) + "/templates/" + name);
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    const AuditResult r = audit_text(text.str(), name, options);
    CHECK_MESSAGE(r.findings.empty(), name, "\n", describe(r));
  }
}

TEST_CASE("SARIF for code scanning: relative uri with uriBaseId, ruleIndex, fingerprints, fixes, only rules that fired")
{
  // SARIF 2.1.0: artifactLocation.uriBaseId, result.ruleIndex, partialFingerprints, result.fixes[].
  AuditResult r = run(k_broken);
  r.path = "./jobs/train.sbatch";
  const auto log = nlohmann::json::parse(to_sarif({r}, "0.1.0"));
  const auto& run0 = log["runs"][0];
  const auto& rules = run0["tool"]["driver"]["rules"];
  CHECK(rules.size() < audit_rules().size());  // not every known rule
  for (const auto& result : run0["results"]) {
    const auto index = result["ruleIndex"].get<std::size_t>();
    REQUIRE(index < rules.size());
    CHECK(rules[index]["id"] == result["ruleId"]);
    const auto& where = result["locations"][0]["physicalLocation"]["artifactLocation"];
    CHECK(where["uri"] == "jobs/train.sbatch");
    CHECK(where["uriBaseId"] == "%SRCROOT%");
    CHECK(result["partialFingerprints"].contains("launchguardFinding/v1"));
  }
  bool fix_seen = false;
  for (const auto& result : run0["results"]) {
    if (result["ruleId"] == "audit.export_after_launch") {
      REQUIRE(result.contains("fixes"));
      const auto& change = result["fixes"][0]["artifactChanges"][0];
      CHECK(change["artifactLocation"]["uri"] == "jobs/train.sbatch");
      CHECK(change["replacements"].size() >= 1);
      fix_seen = true;
    }
  }
  CHECK(fix_seen);
}
