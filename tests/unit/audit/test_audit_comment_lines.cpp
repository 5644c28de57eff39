// A comment line inside a backslash-continued command. bash(1), COMMENTS: a
// word beginning with `#` causes that word and all remaining characters on
// that line to be ignored; the `\` that ends the comment line is one of them,
// so the command ends there. Checked with bash 5.2: `echo a \` /
// `# b \` / `--c` prints "a", then "--c: command not found" (127). Round 21's
// NeMo GPT job lost eight overrides (resume, checkpoints) that way.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("a commented-out argument line inside a continued launch: an error on the comment")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=1\n"
                             "srun torchrun --nproc-per-node=8 megatron_gpt_pretraining.py \\\n"
                             "    trainer.devices=8 \\\n"
                             "    # exp_manager.wandb_logger_kwargs.id=abc \\\n"
                             "#   exp_manager.wandb_logger_kwargs.resume=allow \\\n"
                             "    exp_manager.resume_if_exists=True \\\n"
                             "    exp_manager.create_checkpoint_callback=True\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.comment_continuation");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 5);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("lines 7-8 (`exp_manager.resume_if_exists=True` …)") != std::string::npos);
}

TEST_CASE("a comment after a command that is not continued, or before a new command: nothing")
{
  const char* scripts[] = {
    // the comment follows a finished command; the next line is a command
    "#!/bin/bash\nsrun python train.py \\\n  --lr 1\n# --old 2 \\\n--flag-file x\n",
    // continued into a comment, then a new command (not argument-shaped)
    "#!/bin/bash\nsrun python train.py \\\n  --lr 1 \\\n# done\necho finished\n",
    // a blank line between: not meant as one command
    "#!/bin/bash\nsrun python train.py \\\n  --lr 1 \\\n# --old 2 \\\n\n--x 1\n",
    // `#` inside quotes is no comment
    "#!/bin/bash\nsrun bash -c \"python train.py \\\n# not a comment \\\n--x 1\"\n",
  };
  for (const char* script : scripts) {
    const AuditResult r = run(script);
    CAPTURE(script);
    CAPTURE(describe(r));
    CHECK(with_rule(r, "audit.comment_continuation").empty());
  }
}

// Round 24's Leonardo JEPA job: `--model_name #model_path \`. A `#` at the
// start of a word begins a comment (bash(1), COMMENTS), which takes the
// line's `\` with it: the launch ends at `--model_name` (argparse: "expected
// one argument") and the lines after run as a command of their own (127).
TEST_CASE("a #word on a continued launch line: an error on the #, naming the lines cut off")
{
  const std::string script = "#!/bin/bash\n#SBATCH -N 1\n"
                             "srun torchrun --nproc_per_node=4 finetune.py \\\n"
                             "  --model_name #model_path \\\n"
                             "  --output_dir out \\\n"
                             "  --num_epochs 6\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.comment_continuation");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 4);
  CHECK(found[0]->diagnostic.message.find("`#model_path` on line 4 starts a comment") != std::string::npos);
  CHECK(found[0]->diagnostic.message.find("lines 5-6 (`--output_dir` …)") != std::string::npos);
  // A comment after a finished command, or a quoted '#': nothing.
  CHECK(with_rule(run("#!/bin/bash\nsrun python t.py --a 1  # the run\necho done\n"), "audit.comment_continuation")
          .empty());
  CHECK(with_rule(run("#!/bin/bash\nsrun python t.py --tag '#1' \\\n  --b 2\n"), "audit.comment_continuation").empty());
}

// bash 5.2: `source #x` says "source: filename argument required".
TEST_CASE("source with no file: a warning")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\nsource #path environment\nsrun python t.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.empty_source");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(with_rule(run("#!/bin/bash\nsource env.sh # the environment\nsrun python t.py\n"), "audit.empty_source").empty());
}
