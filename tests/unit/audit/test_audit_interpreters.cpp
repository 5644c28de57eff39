// A batch script whose first line names an interpreter that is not a Bourne
// shell (csh, tcsh, fish, Python, Perl …). slurmd executes the script, so the
// kernel runs it with its #! interpreter (execve(2)); sbatch reads the
// #SBATCH lines whatever the language (sbatch(1): "The batch script may
// contain options preceded with "#SBATCH" before any executable commands").
// bash's reading of the rest says nothing about the job: `bash -n` stops at
// tcsh's `endif` ("syntax error: unexpected end of file"), which the job never
// meets. Issue 13, round 13: a public tcsh torchrun job got a parse error.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_tcsh_body = "#SBATCH --nodes=2\n#SBATCH --gpus-per-node=1\n#SBATCH --ntasks-per-node=1\n"
                                "#SBATCH --partition=your_partition\n"
                                "if ( $?SLURM_CPUS_PER_TASK ) then\n   setenv omp_threads $SLURM_CPUS_PER_TASK\nelse\n"
                                "   setenv omp_threads 1\nendif\nsetenv RDZV_HOST `hostname -s`\n"
                                "srun torchrun --nnodes=$SLURM_JOB_NUM_NODES --nproc_per_node=4 "
                                "--rdzv_backend=c10d --rdzv_endpoint=$RDZV_HOST:29500 train.py\n";

AuditOptions with_bash_n()
{
  AuditOptions options = h100_options();
  // What `bash -n` says of the tcsh text (bash 5.2): the `if` never ends.
  options.parse_error = [](const std::string& text) -> std::optional<std::pair<int, std::string>> {
    if (text.find("endif") != std::string::npos) {
      return std::pair<int, std::string>{14, "syntax error: unexpected end of file"};
    }
    return std::nullopt;
  };
  return options;
}

}  // namespace

TEST_CASE("#!/bin/tcsh: no bash parse error and no finding from reading it as bash; its #SBATCH lines are judged")
{
  for (const std::string shebang : {"#!/encs/bin/tcsh\n", "#!/bin/csh -f\n", "#!/usr/bin/env tcsh\n"}) {
    const AuditResult r = run(shebang + k_tcsh_body, with_bash_n());
    CAPTURE(shebang);
    CAPTURE(describe(r));
    CHECK(with_rule(r, "audit.parse_error").empty());
    CHECK(with_rule(r, "audit.gpus_mismatch").empty());  // 4 workers on 1 GPU: read from a line bash did not parse
    const auto said = with_rule(r, "audit.foreign_shell");
    REQUIRE(said.size() == 1);
    CHECK(said[0]->diagnostic.severity == lg::Severity::advice);
    CHECK(line_of(said[0]) == 1);
    // A placeholder in an #SBATCH line is the same mistake in any language.
    CHECK(with_rule(r, "audit.placeholder").size() == 1);
  }
}

TEST_CASE("Bourne shells are still read as bash: sh, bash, dash, zsh, ksh, env bash")
{
  for (const std::string shebang : {"#!/bin/bash\n", "#!/bin/sh\n", "#!/usr/bin/env bash\n", "#!/bin/zsh\n"}) {
    const AuditResult r = run(shebang + "#SBATCH --nodes=1 --gres=gpu:1\nsrun torchrun --nproc_per_node=4 train.py\n");
    CAPTURE(shebang);
    CHECK(with_rule(r, "audit.foreign_shell").empty());
    CHECK(with_rule(r, "audit.gpus_mismatch").size() == 1);
  }
  // A Python batch script (sbatch runs any interpreter) is not bash either.
  const AuditResult py = run("#!/usr/bin/env python3\n#SBATCH --gres=gpu:1\nimport os\nos.system('torchrun x.py')\n");
  CHECK(with_rule(py, "audit.foreign_shell").size() == 1);
}

// Round 15's tcsh job set `setenv CUDA_LAUNCH_BLOCKING 1` (missed, left open;
// bench/audit/corpus.md). tcsh(1), Builtin commands: "setenv [name [value]]
// … Sets the value of environment variable name to value": for csh and tcsh
// those lines are read as exports, and the debugging switches they set are
// judged like bash's; nothing else of the csh text is.
TEST_CASE("#!/bin/tcsh: a debugging switch set by setenv is reported on its line")
{
  std::string body = k_tcsh_body;
  body.insert(body.find("srun torchrun"), "setenv CUDA_LAUNCH_BLOCKING 1\n");
  const AuditResult r = run("#!/encs/bin/tcsh\n" + body, with_bash_n());
  CAPTURE(describe(r));
  const auto debug = with_rule(r, "env.debug_setting");
  REQUIRE(debug.size() == 1);
  CHECK(line_of(debug[0]) == 12);
  const auto foreign = with_rule(r, "audit.foreign_shell");
  REQUIRE(foreign.size() == 1);
  CHECK(foreign[0]->diagnostic.message.find("the debugging switches its setenv lines set") != std::string::npos);
  CHECK(with_rule(r, "audit.parse_error").empty());
  // Python is not read for them.
  const AuditResult python = run("#!/usr/bin/env python3\n#SBATCH --nodes=1\nsetenv CUDA_LAUNCH_BLOCKING 1\n");
  CHECK(with_rule(python, "env.debug_setting").empty());
}
