// The DeepSpeed hostfile a job writes and the one its launcher reads
// (audit.hostfile_mismatch). The runner reads the file given by --hostfile/-H
// (default /job/hostfile) and starts one worker group per line "HOST
// slots=N" (deepspeedai/DeepSpeed deepspeed/launcher/runner.py,
// fetch_hostfile/_parse_hostfile). A script that writes this job's nodes to
// one path and passes another starts on whatever hosts that other file lists:
// a copy left by an earlier job or by another user.
#include "audit/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace lg::audit::detail {

namespace {

const std::string k_unknown_directory = "\x01dir";  // never part of a real path

std::string normal_path(std::string path)
{
  while (path.starts_with("./")) {
    path.erase(0, 2);
  }
  for (std::size_t at = path.find("//"); at != std::string::npos; at = path.find("//")) {
    path.erase(at, 1);
  }
  for (std::size_t at = path.find("/./"); at != std::string::npos; at = path.find("/./")) {
    path.erase(at, 2);
  }
  while (path.size() > 1 && path.back() == '/') {
    path.pop_back();
  }
  return path;
}

std::string base_name(const std::string& path)
{
  return path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
}

// The working directory at `offset`, from the `cd` commands before it: a
// path while every `cd` on the way named a directory the script spells out
// (absolute, or relative to a known one); else a stand-in that names the
// unknown directory (the submit directory the batch shell starts in, or where
// an unknown `cd` went), so two relative paths still compare equal when no
// `cd` lies between them.
std::string directory_at(const ScriptModel& m, int offset)
{
  std::string cwd = k_unknown_directory + "0";
  int unknown = 0;
  for (const auto& command : m.commands) {
    if (command.begin >= offset || command.words.empty() || !command.words[0].known
        || command.words[0].text() != "cd") {
      continue;
    }
    const bool spelled = command.words.size() >= 2 && command.words[1].known && !command.words[1].text().empty()
                         && !command.words[1].text().starts_with("-");
    const std::string to = spelled ? command.words[1].text() : std::string();
    if (spelled && to.starts_with("/")) {
      cwd = normal_path(to);
    } else if (spelled && to.find("..") == std::string::npos) {
      cwd = normal_path(cwd + "/" + to);
    } else {
      cwd = k_unknown_directory + std::to_string(++unknown);
    }
  }
  return cwd;
}

// `path` as seen from the working directory at `offset`.
std::string resolved(const ScriptModel& m, const std::string& path, int offset)
{
  return path.starts_with("/") ? normal_path(path) : normal_path(directory_at(m, offset) + "/" + path);
}

bool writes_hostfile_lines(const Command& command, const Word& target)
{
  std::string base = base_name(target.text());
  std::transform(base.begin(), base.end(), base.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return base.find("hostfile") != std::string::npos
         || std::any_of(command.words.begin(), command.words.end(),
                        [](const Word& w) { return w.text().find("slots=") != std::string::npos; });
}

// A file copy before `before` that names `name` (`cp hostfile /fsx/run/`,
// `tee`, `ln -s` …): the file may reach the launcher's path that way, so the
// two paths are not judged.
bool copied(const ScriptModel& m, const std::string& name, int before)
{
  static const std::vector<std::string> k_copiers = {"cp", "mv", "ln", "rsync", "scp", "install", "tee", "sbcast"};
  return std::any_of(m.commands.begin(), m.commands.end(), [&](const Command& command) {
    if (command.begin >= before || command.words.empty()
        || std::find(k_copiers.begin(), k_copiers.end(), base_name(command.words[0].text())) == k_copiers.end()) {
      return false;
    }
    return std::any_of(command.words.begin() + 1, command.words.end(),
                       [&](const Word& w) { return !w.known || base_name(w.text()) == name; });
  });
}

// Whether two resolved paths can be compared: both absolute, or both
// relative to the same unknown directory (no `cd` the script cannot read lies
// between them).
bool comparable(const std::string& a, const std::string& b)
{
  const bool a_unknown = a.starts_with(k_unknown_directory);
  const bool b_unknown = b.starts_with(k_unknown_directory);
  return a_unknown == b_unknown && (!a_unknown || a.substr(0, a.find('/')) == b.substr(0, b.find('/')));
}

struct Written
{
  std::string path;     // resolved
  std::string spelled;  // as the script names it
  int offset = -1;
};

} // namespace

void hostfile_findings(FindingContext& c)
{
  const ScriptModel& m = c.model;
  for (const auto& launch : m.launches) {
    const LaunchStage* deepspeed = launch.stage("deepspeed");
    const LaunchOption* option = deepspeed == nullptr ? nullptr : deepspeed->find("hostfile");
    option = option != nullptr || deepspeed == nullptr ? option : deepspeed->find("H");
    if (option == nullptr || !option->value || !option->value->known || option->value->text().empty()) {
      continue;
    }
    const int at = m.commands[static_cast<std::size_t>(launch.command)].begin;
    const std::string reads = resolved(m, option->value->text(), at);
    std::vector<Written> written;
    bool unknown = false;
    // Written relative to the submit directory, read as an absolute path after
    // a `cd` the script spells out (held-out round 30's CARC job: `… >
    // hostfile`, `cd /scratch1/…/LLaVA`, `--hostfile=hostfile`): the same file
    // only when the job is submitted from there.
    std::vector<Written> from_submit_directory;
    const std::string submit = k_unknown_directory + "0";
    for (const auto& command : m.commands) {
      for (const auto& target : command.outputs) {
        if (command.begin >= at || !writes_hostfile_lines(command, target)) {
          continue;
        }
        const std::string path = target.known ? resolved(m, target.text(), command.begin) : std::string();
        if (target.known && path.starts_with(submit + "/") && reads.starts_with("/")
            && !option->value->text().starts_with("/")) {
          from_submit_directory.push_back(Written{path, target.text(), target.offset});
          continue;
        }
        unknown = unknown || !target.known || !comparable(path, reads);
        if (!unknown) {
          written.push_back(Written{path, target.text(), target.offset});
        }
      }
    }
    if (!unknown && written.empty() && !from_submit_directory.empty() && !copied(m, base_name(reads), at)) {
      const Written& w = from_submit_directory.back();
      const std::string dir = reads.substr(0, reads.rfind('/'));
      c.add(Severity::advice, "audit.hostfile_mismatch",
            fmt::format("deepspeed reads the hostfile {} (after the `cd` to {}), but this script writes its node "
                        "list to {} in the directory the job started in (line {}): the same file only when the job "
                        "is submitted from {}",
                        reads, dir, w.spelled, m.line_of(w.offset), dir),
            fmt::format("write and read one absolute path: --hostfile \"$SLURM_SUBMIT_DIR/{}\"", w.spelled),
            option->offset);
      continue;
    }
    if (unknown || written.empty()
        || std::any_of(written.begin(), written.end(), [&](const Written& w) { return w.path == reads; })
        || copied(m, base_name(reads), at)
        || std::any_of(written.begin(), written.end(),
                       [&](const Written& w) { return copied(m, base_name(w.path), at); })) {
      continue;
    }
    const Written& last = written.back();
    auto shown = [](const std::string& path, const std::string& as_written) {
      return path.starts_with(k_unknown_directory) ? as_written : path;
    };
    // The fix names the written file as the launch's own directory sees it.
    const std::string pass =
      resolved(m, last.spelled, at) == last.path ? last.spelled : shown(last.path, last.spelled);
    c.add(Severity::warning, "audit.hostfile_mismatch",
          fmt::format("deepspeed reads the hostfile {}, but the node list this script writes goes to {} (line {}): "
                      "the runner starts on the hosts of a file the script does not write (one left by an earlier "
                      "job or another user), not on this job's nodes",
                      shown(reads, option->value->text()), shown(last.path, last.spelled), m.line_of(last.offset)),
          fmt::format("pass the file the script writes: --hostfile {}", pass), option->offset);
  }
}

} // namespace lg::audit::detail
