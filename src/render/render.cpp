// Rendering with kainjow Mustache. Two safety nets on top of the pre-quoted
// context: the escape for {{ }} is shell quoting (HTML escaping would be
// wrong for a shell script), and a name the context does not have is an
// error instead of an empty string, so a typo in a user template fails at
// render time rather than in the job.
#include "render/render.hpp"

#include "render/context.hpp"
#include "util/edit_distance.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <mustache.hpp>

#include <set>

namespace lg::render {

namespace {

namespace mustache = kainjow::mustache;

// A context that remembers the names it could not resolve.
class StrictContext : public mustache::context<std::string>
{
public:
  explicit StrictContext(const mustache::data* data)
    : mustache::context<std::string>(data)
  {
  }

  const mustache::data* get(const std::string& name) const override
  {
    const mustache::data* found = mustache::context<std::string>::get(name);
    if (found == nullptr) {
      m_missing.insert(name);
    }
    return found;
  }

  const std::set<std::string>& missing() const { return m_missing; }

private:
  mutable std::set<std::string> m_missing;
};

mustache::data to_mustache(const Object& object);

mustache::data to_mustache(const Value& value)
{
  switch (value.kind) {
  case Value::Kind::flag:
    return value.flag ? mustache::data::type::bool_true : mustache::data::type::bool_false;
  case Value::Kind::list: {
    mustache::data list{mustache::data::type::list};
    for (const auto& item : value.items) {
      list.push_back(to_mustache(item));
    }
    return list;
  }
  case Value::Kind::text:
    break;
  }
  return mustache::data{value.text};
}

mustache::data to_mustache(const Object& object)
{
  mustache::data out;
  for (const auto& [key, value] : object) {
    out.set(key, to_mustache(value));
  }
  return out;
}

void collect_names(const Object& object, const std::string& prefix, std::set<std::string>& out)
{
  for (const auto& [key, value] : object) {
    out.insert(prefix + key);
    if (value.kind == Value::Kind::list && !value.items.empty()) {
      collect_names(value.items.front(), prefix + key + ".", out);
    }
  }
}

void throw_unknown(const std::set<std::string>& missing)
{
  const auto names = template_variable_names();
  std::vector<std::string> bases;
  for (const auto& name : names) {
    bases.push_back(name.substr(name.rfind('.') + 1));
  }
  const std::string& first = *missing.begin();
  InputError error("template uses {{{{{}}}}}, which is not a template variable",
                   join(std::vector<std::string>(missing.begin(), missing.end()), "}}, {{"));
  if (auto near = nearest(first, bases)) {
    error.hint = "did you mean {{" + *near + "}}? (docs/templates.md lists every variable)";
  } else {
    error.hint = "docs/templates.md lists every variable";
  }
  throw error;
}

} // namespace

std::string render_sbatch(const config::JobSpec& spec, const env::Environment& environment,
                          std::string_view template_text)
{
  mustache::mustache tmpl{std::string(template_text)};
  if (!tmpl.is_valid()) {
    throw InputError("template is not valid Mustache: {}", tmpl.error_message());
  }
  tmpl.set_custom_escape([](const std::string& text) { return script_quote(text); });
  const mustache::data data = to_mustache(build_context(spec, environment));
  StrictContext context{&data};
  std::string out = tmpl.render(context);
  if (!tmpl.is_valid()) {
    throw InputError("template could not be rendered: {}", tmpl.error_message());
  }
  if (!context.missing().empty()) {
    throw_unknown(context.missing());
  }
  return out;
}

std::vector<std::string> template_variable_names()
{
  config::JobSpec sample;
  sample.slurm.extra_args = {"--exclusive"};
  env::Environment environment;
  env::Variable variable;
  variable.name = "A";
  environment.variables.push_back(variable);
  std::set<std::string> names;
  collect_names(build_context(sample, environment), "", names);
  return {names.begin(), names.end()};
}

} // namespace lg::render
