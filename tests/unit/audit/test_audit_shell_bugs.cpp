// Shell bugs fatal for a batch job that shellcheck does not report as such
// (issue 13, held-out rounds 2-6): pipelines without pipefail, another
// scheduler's variables, bash syntax under #!/bin/sh, launches left in the
// background, `srun NAME=v`, a space after a backslash or after '=', `>` in
// [ ], function arguments, empty unquoted options. Each case is a synthetic
// script with one pattern; where the behaviour comes from (bash, sbatch,
// srun) is said per case.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("`deepspeed … | tee` without pipefail: the pipeline's status is tee's")
{
  // bash(1), "Pipelines": the status is the last command's unless pipefail is set.
  const AuditResult piped = run("#!/bin/bash\n#SBATCH -N 2\ndeepspeed --hostfile h pretrain_gpt.py 2>&1 | tee log\n");
  CHECK(with_rule(piped, "audit.pipe_status").size() == 1);
  const AuditResult set =
    run("#!/bin/bash\n#SBATCH -N 2\nset -o pipefail\ndeepspeed --hostfile h pretrain_gpt.py | tee log\n");
  CHECK(with_rule(set, "audit.pipe_status").empty());
}

TEST_CASE("Grid Engine/PBS variables in a Slurm batch script expand to nothing")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 2\nn=\"${NHOSTS}\"\ncd $PBS_O_WORKDIR\nm=${NSLOTS:-8}\n"
                            "srun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.other_scheduler_variable");
  REQUIRE(found.size() == 2);  // ${NSLOTS:-8} handles the unset case
  CHECK(line_of(found[0]) == 3);
  // Without #SBATCH lines nothing says Slurm runs the script.
  CHECK(with_rule(run("#!/bin/bash\necho $NHOSTS\n"), "audit.other_scheduler_variable").empty());
  // Written for both schedulers: #PBS lines too, or a test of which one runs it.
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 2\n#PBS -l nodes=2\ncd $PBS_O_WORKDIR\nsrun python train.py\n"),
                  "audit.other_scheduler_variable")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 2\nif [ -n \"$PBS_JOBID\" ]; then echo pbs; fi\nsrun python train.py\n"),
                  "audit.other_scheduler_variable")
          .empty());
}

TEST_CASE("#!/bin/sh with bash syntax: Slurm runs the interpreter the first line names")
{
  const AuditResult r = run("#!/bin/sh\n#SBATCH -N 1\nif [[ -z $X ]]; then X=1; fi\nsrun python train.py\n");
  const auto found = with_rule(r, "audit.shell_mismatch");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("line 3") != std::string::npos);
  CHECK(with_rule(run("#!/usr/bin/env sh\nA=(a b)\nsrun python train.py\n"), "audit.shell_mismatch").size() == 1);
  CHECK(with_rule(run("#!/bin/sh\n. ./env.sh\n[ -z \"$X\" ] && X=1\nsrun python train.py\n"), "audit.shell_mismatch")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\nif [[ 1 ]]; then :; fi\nsrun python train.py\n"), "audit.shell_mismatch").empty());
}

TEST_CASE("a heredoc read by bash -s or ssh HOST is launch code, not data")
{
  // bash(1): -s (or no file operand) reads commands from standard input; an
  // unquoted delimiter has the batch shell expand the body first, a quoted one not.
  const AuditResult s = run("#!/bin/bash\n#SBATCH -N 1\nLR=1\nbash -s <<EOF\nexport NCCL_DEBUG=TRACE\n"
                            "python train.py --lr $LR\nEOF\n");
  CAPTURE(describe(s));
  REQUIRE(with_rule(s, "env.debug_setting").size() == 1);
  CHECK(line_of(with_rule(s, "env.debug_setting")[0]) == 5);
  CHECK(with_rule(s, "audit.no_launch").empty());
  const AuditResult ssh = run("#!/bin/bash\n#SBATCH -N 2\nfor h in a b; do\n  ssh -p 22 $h <<'EOF' &\n"
                              "torchrun --nproc_per_node 8 -m pkg.train.py\nEOF\ndone\nwait\n");
  CAPTURE(describe(ssh));
  CHECK(with_rule(ssh, "audit.module_name").size() == 1);
  // cat/sbatch heredocs stay data.
  CHECK(with_rule(run("#!/bin/bash\ncat > cfg <<EOF\nexport NCCL_DEBUG=TRACE\nEOF\nsrun python train.py\n"),
                  "env.debug_setting")
          .empty());
}

TEST_CASE("a launch left in the background with nothing waiting ends with the batch script")
{
  // The local Slurm 22.05: `srun sleep 30 &` as the last line, job COMPLETED after 1 s.
  const AuditResult bg = run("#!/bin/bash\n#SBATCH -N 1\nsrun torchrun --nproc_per_node 2 train.py &\n");
  REQUIRE(with_rule(bg, "audit.background_launch").size() == 1);
  CHECK(line_of(with_rule(bg, "audit.background_launch")[0]) == 3);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\nsrun python a.py &\nsrun python b.py &\nwait\n"),
                  "audit.background_launch")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH -N 1\nsrun python server.py &\nsrun python train.py\n"),
                  "audit.background_launch")
          .empty());
  // Without #SBATCH lines it may run under salloc, where the step outlives the script.
  CHECK(with_rule(run("#!/bin/bash\nsrun python train.py &\n"), "audit.background_launch").empty());
}

TEST_CASE("srun NAME=v cmd: srun executes the assignment as a program")
{
  // The local Slurm 22.05: "slurmstepd: error: execve(): FOO=1: No such file or directory".
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nsrun FOO=1 BAR=2 python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.step_assignment");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("\"FOO=1\"") != std::string::npos);
  CHECK(with_rule(run("#!/bin/bash\nFOO=1 srun env BAR=2 python train.py --x=1\n"), "audit.step_assignment").empty());
}

TEST_CASE("$1, $@ and $* inside a function are the function's arguments")
{
  // bash manual, "Shell Functions": "the arguments to the function become the
  // positional parameters during its execution".
  const AuditResult r =
    run("#!/bin/bash\n#SBATCH -N 1\nset -euo pipefail\ncheck() {\n  local v=\"$1\"\n  echo \"$v\"\n}\n"
        "check A\nsrun python train.py\n");
  CHECK(with_rule(r, "audit.nounset_positional").empty());
  CHECK(with_rule(run("#!/bin/bash\nset -u\necho \"$1\"\nsrun python train.py\n"), "audit.nounset_positional").size()
        == 1);
  // A launch wrapped in a function runs what its callers pass, not the script's arguments.
  const AuditResult f =
    run("#!/bin/bash\n#SBATCH -N 1\nlaunch() {\n  srun bash -c \"torchrun --nproc_per_node=4 $*\"\n}\n"
        "launch itwinai exec-pipeline\n");
  const auto advice = with_rule(f, "audit.no_launch");
  REQUIRE(advice.size() == 1);
  CHECK(advice[0]->diagnostic.message.find("script's own arguments") == std::string::npos);
  CHECK(advice[0]->diagnostic.message.find("function") != std::string::npos);
  CHECK(line_of(advice[0]) == 4);
}

TEST_CASE("a space after the line-continuation backslash ends the command")
{
  // bash(1), QUOTING: only `\` followed by a newline continues the line; bash
  // here runs `torchrun ' '` and then "--master_port=29501: command not found".
  const AuditResult r =
    run("#!/bin/bash\ntorchrun \\ \n    --master_port=29501 --nproc_per_node=1 \\ \n    -m train\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.space_after_backslash");
  REQUIRE(found.size() == 1);  // line 3's own space is named in the same finding
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("line 3 (`--master_port=29501`") != std::string::npos);
  // A quoted space and a clean continuation are fine.
  CHECK(
    with_rule(run("#!/bin/bash\necho \"a \\ b\"\ntorchrun \\\n  train.py\n"), "audit.space_after_backslash").empty());
}

TEST_CASE("a > inside [ ] is a redirection")
{
  // bash(1): redirections may appear anywhere in a simple command; bash here
  // creates a file named 0 for `[ "$N" > 0 ]` and the test is true.
  const AuditResult r =
    run("#!/bin/bash\nif [ \"$SLURM_CPUS_PER_TASK\" > 0 ] ; then\n  echo\nfi\n[ -n \"$X\" ] > /dev/null\n"
        "[[ $a > $b ]]\nsrun python train.py\n");
  const auto found = with_rule(r, "audit.test_redirect");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.message.find("`0`") != std::string::npos);
}

TEST_CASE("export of a word that is not a name sets nothing")
{
  // bash 5.2 here: `export /=x` prints "`/=x': not a valid identifier" and returns 1.
  const AuditResult r =
    run("#!/bin/bash\nexport /=/gpfs/cache\nexport HF_HOME=/gpfs/cache a[1]=x\nsrun python train.py\n");
  const auto found = with_rule(r, "audit.invalid_name");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
}

TEST_CASE("a script bash cannot parse gets no second finding that nothing was read")
{
  // bash here: `HF_TOKEN=<HF_TOKEN>` is "syntax error near unexpected token `newline'".
  AuditOptions options;
  options.parse_error = [](const std::string&) {
    return std::optional<std::pair<int, std::string>>{{3, "syntax error"}};
  };
  const AuditResult r = audit_text("#!/bin/bash\nX=1\nHF_TOKEN=<HF_TOKEN>\n", "t.sh", options);
  // The placeholder is the parse error: one finding, which says both.
  CHECK(with_rule(r, "audit.parse_error").empty());
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("cannot parse") != std::string::npos);
  CHECK(with_rule(r, "audit.no_launch").empty());
}

TEST_CASE("an option whose variable is empty and unquoted takes the next word")
{
  // bash(1), Word Splitting: an unquoted expansion that yields nothing is
  // removed, so `--nemo_model ${NEMO_MODEL} --hf_token x` reaches the program
  // as `--nemo_model --hf_token x` (argparse: "expected one argument").
  const AuditResult r = run("#!/bin/bash\nNEMO_MODEL=\nEXTRA=\nsrun python finetune.py --nemo_model ${NEMO_MODEL} \\\n"
                            "    --hf_token x --fp16 $EXTRA --seed 1 --name \"$NEMO_MODEL\"\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.empty_option_value");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 4);
  CHECK(found[0]->diagnostic.message.find("takes `--hf_token`") != std::string::npos);
}

TEST_CASE("a typographic dash in the #! line makes the interpreter open a file of that name")
{
  // The local Slurm 22.05: `#!/bin/sh –l` (U+2013) ends with "/bin/sh: 0: cannot open –l: No such file".
  const AuditResult r = run("#!/bin/sh \xE2\x80\x93l\n#SBATCH -N 2\nmpirun -n 8 python t.py\n");
  REQUIRE(with_rule(r, "audit.shebang_argument").size() == 1);
  CHECK(with_rule(run("#!/bin/bash -l\n#SBATCH -N 2\nsrun python t.py\n"), "audit.shebang_argument").empty());
}

TEST_CASE("a space after = runs the value as a command")
{
  // bash here: `port= 6379` prints "6379: command not found" and port stays unset.
  const AuditResult r =
    run("#!/bin/bash\nport= 6379 #20156\nCUDA_VISIBLE_DEVICES= python check.py\nsrun ray start --port=$port\n");
  const auto found = with_rule(r, "audit.assignment_space");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
}

TEST_CASE("a quoted empty variable among srun's options becomes the program")
{
  // The local Slurm 22.05: `srun "" hostname` fails with "execve(): : No such file or directory".
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nSAVE=\"\"\nif [ -f x ]; then SAVE=\"--container-save=x\"; fi\n"
                            "srun --container-image img \"${SAVE}\" -w \"$NODE\" python train.py\n");
  const auto found = with_rule(r, "audit.empty_quoted_word");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("SAVE") != std::string::npos);
}

// Round 21's bionemo template: `--cache-dir <cache_dir>` at a line end. The
// `>` before the newline is the syntax error bash -n reports (bash 5.2:
// "syntax error near unexpected token `newline'"), so the placeholder and the
// parse error are one problem: one finding, the placeholder's, which says so.
TEST_CASE("a <placeholder> that is the parse error: one finding")
{
  AuditOptions options = h100_options();
  options.parse_error = [](const std::string&) -> std::optional<std::pair<int, std::string>> {
    return std::pair<int, std::string>{3, "syntax error near unexpected token `newline'"};
  };
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=1\nsrun python train.py --cache-dir <cache_dir>\n";
  const AuditResult r = run(script, options);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.parse_error").empty());
  const auto found = with_rule(r, "audit.placeholder");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("bash cannot parse the script at all") != std::string::npos);
  // A parse error on another line is its own finding.
  options.parse_error = [](const std::string&) -> std::optional<std::pair<int, std::string>> {
    return std::pair<int, std::string>{2, "syntax error"};
  };
  CHECK(with_rule(run(script, options), "audit.parse_error").size() == 1);
}
