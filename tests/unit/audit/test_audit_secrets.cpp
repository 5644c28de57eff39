
// Held-out round 30: NeMo's `START_END_TOKEN=false` under set -x (a setting,
// not a credential), and OpenLLaMA2's `--use_wandb add91d3d…` (a 40-hex W&B
// API key given as an argument).
TEST_CASE("a TOKEN-named setting under set -x is no secret; a key given as an argument is one")
{
  const AuditResult setting = run("#!/bin/bash\nset -x\nSTART_END_TOKEN=false\nMAX_TOKENS_PER_GPU=4096\n"
                                  "srun python t.py --tok $START_END_TOKEN\n");
  CAPTURE(describe(setting));
  CHECK(with_rule(setting, "audit.xtrace_secret").empty());
  const AuditResult key = run("#!/bin/bash\nsrun python t.py --use_wandb add91d3d4ff79fc8b80686bba5c1e8192a199586\n");
  CAPTURE(describe(key));
  const auto found = with_rule(key, "audit.secret_in_script");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("--use_wandb") != std::string::npos);
  // A commit after an option that names no credential is not one.
  CHECK(with_rule(run("#!/bin/bash\nsrun python t.py --revision add91d3d4ff79fc8b80686bba5c1e8192a199586\n"),
                  "audit.secret_in_script")
          .empty());
}
