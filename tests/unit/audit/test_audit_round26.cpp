// Round 26's families (held-out scripts judged by reading first).
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

// torch/distributed/run.py, get_rdzv_endpoint: --master-addr:--master-port is
// the endpoint for the static backend only; c10d with no --rdzv-endpoint
// reads localhost:29400 (elastic/rendezvous/utils.py, parse_rendezvous_endpoint).
TEST_CASE("c10d with --master_addr and no --rdzv_endpoint on two nodes: each node meets itself")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n"
                             "srun torchrun --nnodes=2 --nproc_per_node=3 --rdzv_backend=c10d --master_addr=$HEAD "
                             "--master_port=29400 train.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.torchrun_local_rendezvous");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("reads no --master-addr") != std::string::npos);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\nsrun torchrun --nnodes=2 "
                      "--nproc_per_node=3 --rdzv_backend=c10d --rdzv_endpoint=$HEAD:29400 train.py\n"),
                  "audit.torchrun_local_rendezvous")
          .empty());
}

// Any text is a job name: `--job-name JOB_NAME` is no stand-in (MegaMolBART).
TEST_CASE("--job-name JOB_NAME is not a placeholder; --partition PARTITION_NAME is")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --partition PARTITION_NAME\n#SBATCH --job-name JOB_NAME\n"
                            "srun python t.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
}

// `srun $ADDITIONAL_FLAGS …`: an optional hook; empty, it is no word.
TEST_CASE("an unset variable that is a word of its own, or names flags: not unset_variable")
{
  const std::string head = "#!/bin/bash\n#SBATCH -N 1\nA=1\nB=2\nC=3\n";
  CHECK(with_rule(run(head + "srun $ADDITIONAL_FLAGS python t.py --a $A --b $B --c $C $MORE\n"), "audit.unset_variable")
          .empty());
  CHECK(with_rule(run(head + "srun python t.py --a $A --b $B --c $C --d $D\n"), "audit.unset_variable").size() == 1);
}

// bash reads and runs a script a command at a time: the launch before the
// error runs (round 26's mmdet job trained, then stopped at line 51).
TEST_CASE("a parse error after the launch: the fix says what ran")
{
  AuditOptions options = h100_options();
  options.parse_error = [](const std::string&) -> std::optional<std::pair<int, std::string>> {
    return std::pair<int, std::string>{4, "syntax error near unexpected token `)'"};
  };
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nsrun python train.py\nclass_name=('cat', )\n", options);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.parse_error");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.fix.find("the launch on line 3 among them") != std::string::npos);
}

// `#SBATCH --account=??`, `IMAGE=??` (BioNeMo's ESM2 template).
TEST_CASE("?? left for a value: a placeholder, an error in #SBATCH")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --account=??\n#SBATCH --time=??\nIMAGE=??\n"
                            "srun --container-image=$IMAGE python t.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("(also used on lines 3, 4") != std::string::npos);
}

// bash(1), "Command Substitution": the command runs in a subshell, so an
// `exit` in it ends the subshell (round 25's OCI NeMo job).
TEST_CASE("a function's exit guard called inside $(…) without set -e: a warning at the call")
{
  const std::string script = "#!/bin/bash\n#SBATCH -N 1\nread_token() {\n  [[ -r \"$1\" ]] || exit 1\n  cat \"$1\"\n}\n"
                             "TOKEN=\"$(read_token ~/.token)\"\nsrun python t.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.exit_in_substitution");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 7);
  CHECK(with_rule(run("#!/bin/bash\nset -e\nf() {\n  exit 1\n}\nX=$(f)\n"), "audit.exit_in_substitution").empty());
  CHECK(with_rule(run("#!/bin/bash\nf() {\n  exit 1\n}\nX=$(f) || exit 1\n"), "audit.exit_in_substitution").empty());
}

// Round 26's LUMI job ran a second training step from /users/username.
TEST_CASE("a /users/username path is a placeholder; a real user directory is not")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nsrun bash -c 'cd /users/username; python t.py'\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("username") != std::string::npos);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\nsrun bash -c 'cd /users/hdreuning; python t.py'\n"), "audit.placeholder")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\nsrun python t.py --user /users/usernames.txt\n"), "audit.placeholder")
          .empty());
}

// On the local Slurm 22.05 a job with `#SBATCH --time=5` then `--time=7` got
// TimeLimit=00:07:00, and three --mail-type lines gave MailType=BEGIN,END,FAIL
// (they add up).
TEST_CASE("a single-valued #SBATCH option set twice: advice on the line that does nothing; --mail-type adds up")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --time=5\n#SBATCH --mail-type=BEGIN\n#SBATCH --mail-type=END\n"
                            "#SBATCH -t 7\nsrun python t.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.directive_repeated");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.message.find("set again on line 5 (-t 7)") != std::string::npos);
}

// Round 27's Alliance Canada template: `#SBATCH --account={CC_ACCOUNT}` and
// `--mail-user={EMAIL}`, names in braces left for a formatter. sbatch passes
// the account to Slurm, which rejects it; a bad mail address only loses mail.
TEST_CASE("{NAME} in #SBATCH values: an error for the account, a warning for --mail-user; ${NAME} is no placeholder")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --account={CC_ACCOUNT}\n#SBATCH --mail-user={EMAIL}\n"
                            "OUT=${HOME}/out\nsrun python t.py --out $OUT\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[1]->diagnostic.severity == lg::Severity::warning);
}

// Round 27's c10d job exported NODE_RANK=$SLURM_NODEID and passed it as
// --node_rank: torchrun ignores the node rank under a dynamic rendezvous.
TEST_CASE("a batch-host NODE_RANK passed to torchrun under c10d is not the rank error")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\nexport NODE_RANK=$SLURM_NODEID\n"
                            "srun torchrun --nnodes=2 --nproc_per_node=4 --node_rank=$NODE_RANK --rdzv_backend=c10d "
                            "--rdzv_endpoint=h:29500 train.py\n");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.per_task_variable").empty());
}

// Round 27: `accelerate launch —-config_file="fsdp.yaml"` with an em dash.
TEST_CASE("a launcher word that starts with a typographic dash: an error naming the option meant")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nsrun accelerate launch \xE2\x80\x94-config_file=fsdp.yaml t.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.typographic_dash");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.fix == "write it with ASCII hyphens: `--config_file`");
  CHECK(with_rule(run("#!/bin/bash\nsrun accelerate launch --config_file=fsdp.yaml t.py\n"), "audit.typographic_dash")
          .empty());
}
