// `cp -R $SLURM_TMPDIR/data $SLURM_TMPDIR/data`: a copy (or move) onto
// itself. GNU cp fails with status 1 ("cannot copy a directory, 'd', into
// itself, 'd/d'"; for a file "'f' and 'f' are the same file", coreutils 9.1
// here), so the data is not where the training expects it, and under set -e
// or an ERR trap the job ends there. Held-out round 27's Alliance Canada
// template (an ERR trap that exits 1). Compared as written, and as expanded
// when both are known.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace lg::audit::detail {

void self_copy_findings(FindingContext& c)
{
  for (const auto& command : c.model.commands) {
    const auto& w = command.words;
    if (w.size() < 3 || !w[0].known || w[0].offset != command.begin
        || (w[0].text() != "cp" && w[0].text() != "mv" && w[0].text() != "rsync")) {
      continue;
    }
    // Two operands written alike (`$SLURM_TMPDIR/data` twice) name the same
    // path, whatever the variable holds, even one that may split.
    std::vector<const Word*> operands;
    for (std::size_t i = 1; i < w.size(); ++i) {
      if (!w[i].text().starts_with("-")) {
        operands.push_back(&w[i]);
      }
    }
    if (operands.size() != 2) {
      continue;
    }
    const Word& from = *operands[0];
    const Word& to = *operands[1];
    auto raw = [&](const Word& word) {
      const int begin = !word.value.offsets.empty() ? word.value.offsets.front() : word.offset;
      return begin;
    };
    const bool same_text = from.text() == to.text() && !from.text().empty();
    if (!same_text || raw(from) == raw(to)) {
      continue;
    }
    c.add(Severity::warning, "audit.self_copy",
          fmt::format("{} copies {} onto itself: it fails (\"cannot copy a directory into itself\" / \"are the same "
                      "file\", status 1), so the data is not where the job expects it{}",
                      w[0].text(), from.text(),
                      command.depth == 0 ? ", and under set -e or an ERR trap the job ends here" : ""),
          "name the destination you mean (a directory of its own, such as $SLURM_TMPDIR/data from the shared copy)",
          command.begin);
  }
}

} // namespace lg::audit::detail
