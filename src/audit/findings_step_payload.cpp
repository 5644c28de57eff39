// `srun … --container-image=IMG \` / `  pip install ray; \` / `  ray start …`:
// the `;` (or `&&`) ends the srun command, and the `\` after it only joins
// the next line to the shell's input, so what follows is commands of the batch
// shell (bash(1), "Lists": `;` separates commands), run once on the first
// node, outside the step and its container. Written as a continued payload,
// it was meant to be the step's: held-out round 30's OpenLLaMA2 Ray template
// (the head and workers then start on the batch host, and the second node
// never joins).
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <string>

namespace lg::audit::detail {

void step_payload_findings(FindingContext& c)
{
  const std::string& t = c.model.text;
  for (std::size_t k = 0; k < c.model.commands.size(); ++k) {
    const Command& command = c.model.commands[k];
    const auto& w = command.words;
    if (w.empty() || !w[0].known || w[0].text() != "srun" || w[0].offset != command.begin || command.end < 0
        || (command.terminator != ";" && command.terminator != "&&")) {
      continue;
    }
    std::size_t at = static_cast<std::size_t>(command.end);
    while (at < t.size() && (t[at] == ' ' || t[at] == '\t')) {
      ++at;
    }
    const std::string& op = command.terminator;
    if (t.compare(at, op.size(), op) != 0) {
      continue;
    }
    at += op.size();
    while (at < t.size() && (t[at] == ' ' || t[at] == '\t')) {
      ++at;
    }
    if (at + 1 >= t.size() || t[at] != '\\' || t[at + 1] != '\n' || k + 1 >= c.model.commands.size()) {
      continue;
    }
    const Command& next = c.model.commands[k + 1];
    const std::string first = next.words.empty()      ? std::string("the next command")
                              : next.words.size() == 1 ? next.words[0].text()
                                                       : next.words[0].text() + " " + next.words[1].text();
    c.add(Severity::warning, "audit.step_payload_split",
          fmt::format("`{} \\` ends the srun command on line {}: the `\\` after it only continues the shell's input, "
                      "so `{}` and the lines after it run in the batch shell, once, on the first node, outside the "
                      "step{}",
                      op, c.model.line_of(static_cast<int>(at)), first,
                      words_contain(command, "--container-image") ? " and its container" : ""),
          "give srun one command: `srun … bash -c 'pip install …; ray start …'`", static_cast<int>(at));
  }
}

} // namespace lg::audit::detail
