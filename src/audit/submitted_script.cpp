#include "audit/submitted_script.hpp"

#include <algorithm>

namespace lg::audit::detail {

namespace {

bool sbatch_word(const Word& w)
{
  return w.known && (w.text() == "sbatch" || w.text().ends_with("/sbatch"));
}

// Unquoted: the backslashes bash removes from a heredoc body.
std::string unescape(const std::string& body)
{
  std::string out;
  out.reserve(body.size());
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\\' && i + 1 < body.size() && (body[i + 1] == '$' || body[i + 1] == '`' || body[i + 1] == '\\')) {
      out += body[i + 1];
      ++i;
      continue;
    }
    out += body[i];
  }
  return out;
}

std::string strip_tabs(const std::string& body)
{
  std::string out;
  bool line_start = true;
  for (char ch : body) {
    if (line_start && ch == '\t') {
      continue;
    }
    line_start = ch == '\n';
    out += ch;
  }
  return out;
}

}  // namespace

std::vector<SubmittedScript> submitted_scripts(const ScriptModel& model)
{
  std::vector<SubmittedScript> out;
  const std::string& t = model.text;
  for (const Command& command : model.commands) {
    if (command.words.empty() || !sbatch_word(command.words.front()) || command.begin < 0) {
      continue;
    }
    const auto line_end = t.find('\n', static_cast<std::size_t>(command.begin));
    if (line_end == std::string::npos) {
      continue;
    }
    const auto op = t.find("<<", static_cast<std::size_t>(command.begin));
    if (op == std::string::npos || op > line_end || t.compare(op, 3, "<<<") == 0) {
      continue;
    }
    const auto body = std::find_if(model.heredocs.begin(), model.heredocs.end(), [&](const auto& h) {
      return h.first == static_cast<int>(line_end) + 1;
    });
    if (body == model.heredocs.end()) {
      continue;
    }
    std::size_t at = op + 2;
    const bool tabs = at < t.size() && t[at] == '-';
    at += tabs ? 1 : 0;
    while (at < line_end && (t[at] == ' ' || t[at] == '\t')) {
      ++at;
    }
    const auto word_end = t.find_first_of(" \t;&|)\n", at);
    const std::string delimiter = t.substr(at, std::min(word_end, line_end) - at);
    const bool quoted = delimiter.find_first_of("'\"\\") != std::string::npos;
    std::string text = t.substr(static_cast<std::size_t>(body->first),
                                static_cast<std::size_t>(body->second - body->first));
    if (tabs) {
      text = strip_tabs(text);
    }
    if (!quoted) {
      text = unescape(text);
    }
    out.push_back(SubmittedScript{std::move(text), model.line_of(body->first), command.begin});
  }
  return out;
}

}  // namespace lg::audit::detail
