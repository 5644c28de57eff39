// `launchguard runs [RUN_ID]`: the runs in the journal and their attempts.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_input.hpp"
#include "cli/launch_support.hpp"
#include "cli/output.hpp"
#include "launch/journal.hpp"
#include "launch/run_state.hpp"

#include "util/terminal.hpp"

#include <fmt/format.h>

namespace lg::cli {

int run_runs(const GlobalOptions& global, const std::vector<std::string>& args)
{
  boost::program_options::options_description options("runs options");
  add_launch_options(options);
  const ParsedArgs parsed = parse_args("runs", options, args);
  const auto dir = state_dir(parsed);
  std::vector<std::string> ids = parsed.positional;
  const bool detail = !ids.empty();
  if (!detail) {
    ids = launch::list_runs(dir);
  }
  nlohmann::json list = nlohmann::json::array();
  for (const auto& id : ids) {
    const auto journal = launch::Journal::open(dir, id);
    int damaged = 0;
    auto state = launch::fold(id, journal.records(&damaged));
    state.damaged_records = damaged;
    if (global.json) {
      list.push_back(run_summary_json(state));
    } else if (detail) {
      print_run_summary(global, state);
    } else {
      const auto* last = state.attempts.empty() ? nullptr : &state.attempts.back();
      // Journal values, shown through the terminal sanitiser.
      fmt::print("{:<48} {:>2} attempt(s)  {:<10} {}\n", printable(id), state.attempts.size(),
                 printable(state.finished ? launch::to_string(state.outcome) : "running"),
                 last != nullptr ? printable(fmt::format("job {} {}", last->job_id.value_or("-"), watch::to_string(last->last_state))) : "");
    }
  }
  if (global.json) {
    print_json({{"runs", list}});
  } else if (ids.empty()) {
    fmt::print("no runs in {}\n", printable((dir / "runs").string()));
  }
  return k_exit_ok;
}

} // namespace lg::cli
