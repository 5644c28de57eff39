// read_script (script_reader.hpp): lines, template filtering, lexing,
// directives, the variables Slurm derives from the directives, evaluation.
#include "audit/script_reader.hpp"

#include "audit/job_from_script.hpp"
#include "audit/shell_eval.hpp"

#include <algorithm>

namespace lg::audit {

namespace {

std::vector<int> line_starts_of(const std::string& text)
{
  std::vector<int> starts{0};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size()) {
      starts.push_back(static_cast<int>(i + 1));
    }
  }
  return starts;
}

// A line holding only a mustache section tag: {{#x}}, {{/x}}, {{^x}}.
bool section_tag_line(std::string_view line)
{
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
    line.remove_prefix(1);
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r' || line.back() == '\n')) {
    line.remove_suffix(1);
  }
  return line.size() > 5 && line.starts_with("{{") && line.ends_with("}}")
         && (line[2] == '#' || line[2] == '/' || line[2] == '^')
         && line.find("}}") == line.size() - 2;
}

Text source_text(const std::string& text, const std::vector<int>& starts, bool template_mode)
{
  Text out;
  out.text.reserve(text.size());
  out.offsets.reserve(text.size());
  for (std::size_t l = 0; l < starts.size(); ++l) {
    const auto begin = static_cast<std::size_t>(starts[l]);
    const std::size_t end = l + 1 < starts.size() ? static_cast<std::size_t>(starts[l + 1]) : text.size();
    if (template_mode && section_tag_line(std::string_view(text).substr(begin, end - begin))) {
      continue;
    }
    for (std::size_t i = begin; i < end; ++i) {
      out.append(text[i], static_cast<int>(i));
    }
  }
  return out;
}

// SLURM_JOB_NUM_NODES and friends, known from the directives.
detail::Variables slurm_variables(const std::vector<Directive>& directives)
{
  detail::Variables vars;
  auto seed = [&](const char* directive, std::initializer_list<const char*> names, bool gpus = false) {
    const Directive* found = nullptr;
    for (const auto& d : directives) {
      if (!d.ignored && d.name == directive && d.has_value) {
        found = &d;
      }
      // A heterogeneous job: Slurm sets these per component, with a
      // _HET_GROUP_<n> suffix (sbatch(1), "SLURM_*_HET_GROUP_#"); which
      // component the plain name holds is not read from the script.
      if (!d.ignored && d.component > 0) {
        return;
      }
    }
    if (found == nullptr || found->value.empty()) {
      return;
    }
    // A GPU request's count: `v100:4`, `gpu:a100:2` (gpu_count), its digits
    // where they are written.
    std::string value = found->value;
    std::size_t at = 0;
    if (gpus && value.find_first_not_of("0123456789") != std::string::npos) {
      if (std::string_view(directive) == "gres" && !value.starts_with("gpu")) {
        return;
      }
      const int n = gpu_count(value);
      if (n <= 0) {
        return;
      }
      value = std::to_string(n);
      at = found->value.rfind(value);
      at = at == std::string::npos ? 0 : at;
    }
    if (value.find_first_not_of("0123456789") != std::string::npos) {
      return;
    }
    Word w;
    for (std::size_t i = 0; i < value.size(); ++i) {
      w.value.append(value[i], found->value_offset + static_cast<int>(at + i));
    }
    w.offset = found->value_offset;
    for (const char* name : names) {
      detail::Var var;
      var.items.push_back(w);
      var.exported = true;
      var.offset = found->value_offset;
      vars[name] = var;
    }
  };
  seed("nodes", {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"});
  seed("ntasks-per-node", {"SLURM_NTASKS_PER_NODE"});
  // SLURM_GPUS_ON_NODE from either request, SLURM_GPUS_PER_NODE from
  // --gpus-per-node only (the local Slurm 22.05: `--gres=gpu:2` sets the
  // first and not the second); --gres decides when both are given
  // (job_cluster.cpp).
  seed("gpus-per-node", {"SLURM_GPUS_PER_NODE", "SLURM_GPUS_ON_NODE"}, true);
  seed("gres", {"SLURM_GPUS_ON_NODE"}, true);
  return vars;
}

} // namespace

ScriptModel read_script(std::string text, const ReadOptions& options)
{
  ScriptModel model;
  model.text = std::move(text);
  model.line_starts = line_starts_of(model.text);
  const Text source = source_text(model.text, model.line_starts, options.template_mode);
  detail::LexResult lexed = detail::lex(source, 0);
  model.heredocs = lexed.heredocs;
  model.angle_redirects = lexed.angle_redirects;
  model.test_redirects = lexed.test_redirects;
  if (!lexed.commands.empty()) {
    model.first_command_offset = lexed.commands.front().begin;
  }
  model.directives =
    detail::read_directives(model.text, model.line_starts, model.first_command_offset, model.heredocs,
                            &model.directive_strays);
  read_late_directives_as_meant(model);
  for (const auto& d : model.directives) {
    model.components = std::max(model.components, d.component + 1);
  }
  const auto shebang_end = model.text.find('\n');
  const std::string shebang = model.text.substr(0, shebang_end == std::string::npos ? model.text.size() : shebang_end);
  model.xtrace_from_shebang = shebang.starts_with("#!") && shebang.find(" -") != std::string::npos
                              && shebang.find('x', shebang.find(" -")) != std::string::npos;
  detail::Evaluator evaluator(model, slurm_variables(model.directives), true, options.template_mode, 0);
  evaluator.run(lexed);
  return model;
}

Position ScriptModel::position(int offset) const
{
  if (offset < 0 || line_starts.empty()) {
    return {};
  }
  const auto it = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
  const auto line = static_cast<int>(it - line_starts.begin());
  return Position{line, offset - line_starts[static_cast<std::size_t>(line - 1)] + 1};
}

int ScriptModel::line_begin(int line) const
{
  if (line < 1 || static_cast<std::size_t>(line) > line_starts.size()) {
    return static_cast<int>(text.size());
  }
  return line_starts[static_cast<std::size_t>(line - 1)];
}

void read_late_directives_as_meant(ScriptModel& model)
{
  for (auto& late : model.directives) {
    if (!late.late) {
      continue;
    }
    const bool read_above = std::any_of(model.directives.begin(), model.directives.end(), [&](const Directive& d) {
      return !d.late && d.name == late.name && d.component == late.component;
    });
    late.ignored = read_above;
  }
}

const Directive* ScriptModel::directive(const std::string& name, int component) const
{
  const Directive* found = nullptr;
  for (const auto& d : directives) {
    if (!d.ignored && d.name == name && d.component == component) {
      found = &d;
    }
  }
  return found;
}

} // namespace lg::audit
