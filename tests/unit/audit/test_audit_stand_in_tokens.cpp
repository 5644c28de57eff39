// A token cut short where the script was published (`HF_TOKEN=hf_aK...`),
// or a token prefix followed by filler (`hf_xxxxxxxx`): a stand-in, not a
// credential; the Hub answers 401 to it. Round 21's bionemo GB300 job wrote
// it inside the command string its srun runs with `bash -c "$CMD"`.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("an elided token is a stand-in (placeholder), not a secret, also inside the launch's command string")
{
  const std::string script = "#!/bin/bash\n#SBATCH -N 1\nset -x\n"
                             "export WANDB_API_KEY=wandb_xxxxxxxx\n"
                             "CMD=\"HF_TOKEN=hf_aK... torchrun --nproc-per-node=8 train.py\"\n"
                             "srun bash -c \"$CMD\"\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.secret_in_script").empty());
  CHECK(with_rule(r, "audit.xtrace_secret").empty());
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 2);
  CHECK(line_of(found[0]) == 4);
  CHECK(line_of(found[1]) == 5);
  CHECK(found[1]->diagnostic.message.find("HF_TOKEN=hf_aK... is a stand-in") != std::string::npos);
}

TEST_CASE("a real-looking token inside the launch's command string is a secret written into the script")
{
  const std::string script = "#!/bin/bash\n#SBATCH -N 1\n"
                             "CMD=\"HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH torchrun train.py\"\n"
                             "srun bash -c \"$CMD\"\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.secret_in_script");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
}

// huggingface_hub, "Environment variables", HF_HUB_OFFLINE: with 1 no HTTP
// call is made to the Hub, so a placeholder token is never sent. Round 24.
TEST_CASE("a placeholder HF_TOKEN with HF_HUB_OFFLINE=1 exported is advice")
{
  const std::string body = "export HF_TOKEN=\"Your_HF_key\"\n";
  const AuditResult offline = run("#!/bin/bash\n#SBATCH -N 1\n" + body + "export HF_HUB_OFFLINE=1\nsrun python t.py\n");
  CAPTURE(describe(offline));
  auto found = with_rule(offline, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  const AuditResult online = run("#!/bin/bash\n#SBATCH -N 1\n" + body + "srun python t.py\n");
  found = with_rule(online, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
}
