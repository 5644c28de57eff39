// Layering: the policy rows decide, then job [env] and --set values replace
// them (PYTORCH_CUDA_ALLOC_CONF merges key by key, see alloc_merge.cpp), then
// the hard rules check the result.
#include "env/compose.hpp"

#include "env/alloc_merge.hpp"
#include "env/allocator_conf.hpp"
#include "env/hard_rules.hpp"
#include "env/policy.hpp"
#include "util/secrets.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <iterator>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace lg::env {

namespace {

std::optional<SourceLocation> where_in_job(const config::JobSpec& spec, const std::string& name)
{
  auto where = spec.location_of("env." + name);
  return where ? where : spec.location_of("env");
}

// A credential in [env] or --set is written into the rendered script and the
// run journal; passing it through the submit environment keeps it off disk.
Diagnostic secret_finding(const std::string& name, Layer layer, const config::JobSpec& spec)
{
  return Diagnostic{
    Severity::warning, "env.secret_in_job",
    fmt::format("{} ({}) looks like a credential: it is written into the rendered sbatch script and the run journal",
                name, layer == Layer::job ? "job [env]" : "--set"),
    fmt::format("leave {} out of the job and export it in the shell that runs `launchguard submit`: sbatch's default "
                "--export=ALL carries it into the job without writing it to disk (launchguard keeps files that hold "
                "a secret at mode 0600)",
                name),
    layer == Layer::job ? where_in_job(spec, name) : std::nullopt};
}

// Valid user assignments in layer order (job first, then command line); an
// invalid name becomes an error finding and is dropped.
std::vector<UserValue> collect_user_values(const config::JobSpec& spec,
                                           const Assignments& command_line,
                                           std::vector<Diagnostic>& findings)
{
  std::vector<UserValue> out;
  auto add = [&](const auto& pair, Layer layer) {
    if (is_valid_name(pair.first)) {
      if (secrets::holds_secret(pair.first, pair.second)) {
        findings.push_back(secret_finding(pair.first, layer, spec));
      }
      out.push_back({pair.first, pair.second, layer});
      return;
    }
    findings.push_back(Diagnostic{
      Severity::error, "env.invalid_name",
      fmt::format("environment variable name \"{}\" ({}) is not a shell name "
                  "([A-Za-z_][A-Za-z0-9_]*); it is left out of the environment",
                  pair.first, layer == Layer::job ? "job [env]" : "--set"),
      "rename the variable", layer == Layer::job ? spec.location_of("env") : std::nullopt});
  };
  for (const auto& pair : spec.env) {
    add(pair, Layer::job);
  }
  for (const auto& pair : command_line) {
    add(pair, Layer::command_line);
  }
  return out;
}

// The highest-layer user value for `name`, or nullptr.
const UserValue* last_user_value(const std::vector<UserValue>& values, std::string_view name)
{
  const UserValue* found = nullptr;
  for (const auto& value : values) {
    if (value.name == name) {
      found = &value;
    }
  }
  return found;
}

std::string layer_words(Layer layer)
{
  return layer == Layer::command_line ? "set on the command line (--set)" : "set in the job's [env]";
}

Variable user_variable(const UserValue& user, const std::optional<Decision>& policy)
{
  Variable v{user.name, user.value, Action::set, user.layer, "env.user", layer_words(user.layer), ""};
  if (policy) {
    v.rule = policy->rule;
    v.citation = policy->citation;
    v.reason += policy->unset ? "; the policy would unset it"
                              : fmt::format("; the policy would set {}: {}", policy->value,
                                            policy->reason);
  }
  return v;
}

Variable policy_variable(const char* name, const Decision& d)
{
  return Variable{name,
                  d.unset ? "" : d.value,
                  d.unset ? Action::unset : Action::set,
                  Layer::policy,
                  d.rule,
                  d.reason,
                  d.citation,
                  d.per_job};
}

bool is_policy_name(std::string_view name)
{
  const auto rows = policy_rows();
  return std::any_of(rows.begin(), rows.end(), [&](const PolicyRow& r) { return r.name == name; });
}

// Append the user's variables the policy has no row for, each once, in
// first-seen order with its last value. Linear: a job may set 1e6 of them.
void add_user_only(const std::vector<UserValue>& users, Environment& env)
{
  std::unordered_map<std::string_view, const UserValue*> last;
  for (const auto& user : users) {
    last[user.name] = &user;
  }
  std::unordered_set<std::string_view> done;
  for (const auto& variable : env.variables) {
    done.insert(variable.name);
  }
  std::vector<Variable> added;
  for (const auto& user : users) {
    if (!done.insert(user.name).second || is_policy_name(user.name)) {
      continue;
    }
    added.push_back(user_variable(*last[user.name], std::nullopt));
  }
  env.variables.insert(env.variables.end(), std::make_move_iterator(added.begin()),
                       std::make_move_iterator(added.end()));
}

} // namespace

Environment compose(const config::JobSpec& spec, const Assignments& command_line_overrides)
{
  Environment env;
  JobFeatures features = features_of(spec);
  const auto users = collect_user_values(spec, command_line_overrides, env.findings);

  const Variable alloc = merge_alloc_conf(features, spec, users, env.findings);
  features.expandable_segments = alloc_has_expandable(alloc);
  for (const PolicyRow& row : policy_rows()) {
    if (row.name == std::string_view(k_alloc_conf)) {
      env.variables.push_back(alloc);
      continue;
    }
    const std::optional<Decision> decision = row.decide(features);
    if (const UserValue* user = last_user_value(users, row.name)) {
      env.variables.push_back(user_variable(*user, decision));
    } else if (decision) {
      env.variables.push_back(policy_variable(row.name, *decision));
    }
  }
  add_user_only(users, env);
  auto hard = check_hard_rules(features, spec, env);
  env.findings.insert(env.findings.end(), hard.begin(), hard.end());
  return env;
}

std::optional<std::pair<std::string, std::string>> parse_assignment(std::string_view text)
{
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return std::nullopt;
  }
  return std::make_pair(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
}

} // namespace lg::env
