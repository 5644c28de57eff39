// Megatron-LM's --exit-duration-in-mins M: the training loop compares the
// minutes since the program started with M after each step and, once past
// it, saves a checkpoint (with --save) and exits (megatron/training/training.py,
// train(): "Exiting based on duration", save_checkpoint_and_time, then
// "exiting program after … minutes"). It exists to stop before the job's time
// limit; with M at or above #SBATCH --time, Slurm ends the job first and that
// save never happens (round 19: `-t 0:30:00` with `--exit-duration-in-mins
// 230`). Not judged when either value is not known.
#include "audit/findings.hpp"

#include "config/slurm_fields.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string>

namespace lg::audit::detail {

namespace {

// The value of `--exit-duration-in-mins M` or `--exit-duration-in-mins=M` in
// `args` and the word that holds it; minutes 0 when absent or not a number.
struct ExitDuration
{
  long long minutes = 0;
  const Word* word = nullptr;
};

ExitDuration exit_duration(const std::vector<Word>& args)
{
  static const std::string flag = "--exit-duration-in-mins";
  ExitDuration found;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Word* value = nullptr;
    std::string text;
    if (args[i].known && args[i].text() == flag && i + 1 < args.size()) {
      value = &args[i + 1];
      text = value->text();
    } else if (args[i].known && args[i].text().starts_with(flag + "=")) {
      value = &args[i];
      text = value->text().substr(flag.size() + 1);
    }
    if (value == nullptr) {
      continue;
    }
    long long minutes = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), minutes);
    // argparse keeps the last value given; an unreadable one is not judged.
    found = value->known && error == std::errc() && end == text.data() + text.size() ? ExitDuration{minutes, value}
                                                                                    : ExitDuration{};
  }
  return found;
}

}  // namespace

void exit_duration_findings(FindingContext& c)
{
  if (!c.job.megatron || c.job.launch == nullptr) {
    return;
  }
  const ExitDuration exit = exit_duration(c.job.launch->args);
  const Directive* time = c.model.directive("time");
  if (exit.word == nullptr || exit.minutes <= 0 || time == nullptr || !time->has_value) {
    return;
  }
  const auto limit = config::parse_slurm_time(time->value);
  if (!limit || *limit <= 0 || exit.minutes < *limit) {
    return;
  }
  const long long margin = *limit > 20 ? 10 : *limit / 5;
  c.add(Severity::warning, "audit.exit_duration",
        fmt::format("--exit-duration-in-mins {} is not below the job's time limit of {} minutes (#SBATCH {}{}{} "
                    "on line {}): Slurm ends the job first, so Megatron-LM's timed exit, and the checkpoint it "
                    "saves on the way out, never happen",
                    exit.minutes, *limit, time->spelled, time->spelled.starts_with("--") ? "=" : " ", time->value,
                    c.model.line_of(time->offset)),
        fmt::format("set --exit-duration-in-mins below the limit, leaving time for the save (e.g. {})",
                    *limit - margin),
        exit.word->offset);
}

}  // namespace lg::audit::detail

namespace lg::audit::detail {

// `--save DIR` with no `--load`: Megatron reads a checkpoint only from
// --load (or --pretrained-checkpoint): megatron/training/training.py,
// setup_model_and_optimizer, `if (args.load is not None or
// args.pretrained_checkpoint is not None) … load_checkpoint(…)`. So a rerun
// of the script (a requeue, the next job of a chain, a resubmission after
// the time limit) starts again at iteration 0, and its saves replace the
// ones it could have resumed from. A warning when the script plans for being
// interrupted (--exit-duration-in-mins, --exit-signal-handler,
// --exit-interval, #SBATCH --requeue or --signal): those exist to resume;
// advice otherwise. Round 21's LUMI job: 600,000 iterations under 12 hours.
void save_without_load(FindingContext& c)
{
  if (!c.job.megatron || c.job.bridge || c.job.launch == nullptr || c.job.args_opaque) {
    return;
  }
  const Word* save = nullptr;
  bool load = false;
  bool interrupted = c.model.directive("requeue") != nullptr || c.model.directive("signal") != nullptr;
  for (const Word& w : c.job.launch->args) {
    const std::string& t = w.text();
    const std::string flag = t.substr(0, t.find('='));
    if (flag == "--save") {
      save = &w;
    }
    load = load || flag == "--load" || flag == "--pretrained-checkpoint" || flag == "--pretrained_checkpoint";
    interrupted = interrupted || flag == "--exit-duration-in-mins" || flag == "--exit-signal-handler"
                  || flag == "--exit-interval";
  }
  if (save == nullptr || load) {
    return;
  }
  c.add(interrupted ? Severity::warning : Severity::advice, "audit.save_without_load",
        fmt::format("--save with no --load: Megatron resumes only from --load, so a rerun of this job{} starts "
                    "again at iteration 0 and its saves replace the checkpoints it could have resumed from",
                    interrupted ? " (which it plans for: a timed or signalled exit, or a requeue)" : ""),
        "add --load with the --save directory (an empty or missing one starts from scratch, as now)", save->offset);
}

}  // namespace lg::audit::detail
