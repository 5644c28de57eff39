// Injection tests: a job whose name, command arguments and environment values
// carry $(…), backticks, quotes, ';', newlines and "#SBATCH --foo" is rendered
// with each shipped template and run with bash against a stand-in `srun` that
// records its argv and environment NUL-separated. Nothing may execute, no
// directive may appear, and every argument and value must arrive byte for byte.
#include "env/compose.hpp"
#include "render/render.hpp"
#include "render_support.hpp"
#include "support/builders.hpp"

#include <doctest/doctest.h>

#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <vector>

using namespace lg;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> k_payloads = {
  "$(touch PWNED)",
  "`touch PWNED`",
  "it's",
  "say \"hi\"",
  "a; touch PWNED",
  "line1\nline2",
  "\n#SBATCH --foo",
  "#SBATCH --foo",
  "${HOME}",
  "*",
  "{{job_name_q}}",
  "'; touch PWNED; echo '",
  "\"; touch PWNED; echo \"",
  "back\\slash\\",
  " spaced  out ",
  "tab\there\r\x01",
  "",
  "=x",
  "caf\xc3\xa9",
};

config::JobSpec nasty_job()
{
  config::JobSpec spec = testing::minimal_job_spec();
  spec.name = "$(touch PWNED)`touch PWNED`'\";\n#SBATCH --foo";
  spec.launch.command = {"python", "train.py"};
  spec.launch.command.insert(spec.launch.command.end(), k_payloads.begin(), k_payloads.end());
  for (std::size_t i = 0; i < k_payloads.size(); ++i) {
    spec.env.emplace_back("NASTY_" + std::to_string(i), k_payloads[i]);
  }
  spec.launch.container_image = "image'$(touch PWNED)";
  spec.launch.container_mounts = {"/a b:/c`touch PWNED`"};
  return spec;
}

std::vector<std::string> split_nul(const std::string& text)
{
  std::vector<std::string> out;
  std::string current;
  for (char c : text) {
    if (c == '\0') {
      out.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  return out;
}

struct Run
{
  fs::path dir;
  int status = -1;
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
  std::string log;
};

void write_stub(const fs::path& path, const std::string& body)
{
  testing::write_text(path.string(), "#!/bin/bash\n" + body);
  fs::permissions(path, fs::perms::owner_all);
}

Run run_script(const std::string& script)
{
  char pattern[] = "/tmp/lg-render-inject.XXXXXX";
  REQUIRE(mkdtemp(pattern) != nullptr);
  Run run;
  run.dir = pattern;
  fs::create_directory(run.dir / "bin");
  write_stub(run.dir / "bin/srun",
             "printf '%s\\0' \"$@\" > \"$OUT/argv\"\nenv -0 > \"$OUT/env\"\n");
  write_stub(run.dir / "bin/scontrol", "echo node1\n");
  testing::write_text((run.dir / "job.sbatch").string(), script);
  const std::string command = "cd '" + run.dir.string() + "' && env -i PATH='" + run.dir.string()
                              + "/bin:/usr/bin:/bin' HOME='" + run.dir.string() + "' OUT='"
                              + run.dir.string()
                              + "' SLURM_JOB_NODELIST=node1 SLURM_JOB_NUM_NODES=1 "
                                "SLURM_JOB_ID=42 bash job.sbatch > log 2>&1";
  run.status = std::system(command.c_str());
  run.log = testing::read_text((run.dir / "log").string());
  run.argv = split_nul(testing::read_text((run.dir / "argv").string()));
  for (const auto& entry : split_nul(testing::read_text((run.dir / "env").string()))) {
    const auto eq = entry.find('=');
    run.env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return run;
}

// The directives of `script`: every line that starts with "#SBATCH".
std::vector<std::string> directives(const std::string& script)
{
  std::vector<std::string> out;
  std::istringstream in(script);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#SBATCH", 0) == 0) {
      out.push_back(line);
    }
  }
  return out;
}

void check_template(const std::string& template_name)
{
  const config::JobSpec spec = nasty_job();
  const auto environment = env::compose(spec, {});
  const std::string script =
    render::render_sbatch(spec, environment, testing::shipped_template(template_name));
  // Only the template's own directives, each option once.
  std::vector<std::string> options;
  for (const auto& line : directives(script)) {
    options.push_back(line.substr(0, line.find('=')));
  }
  const std::vector<std::string> expected = {
    "#SBATCH --job-name", "#SBATCH --nodes", "#SBATCH --ntasks-per-node", "#SBATCH --gpus-per-node",
    "#SBATCH --time", "#SBATCH --output", "#SBATCH --signal"};
  CHECK(options == expected);
  CHECK(script.find("\n#SBATCH --foo") == std::string::npos);

  const Run run = run_script(script);
  INFO("script:\n" << script << "\nlog:\n" << run.log);
  CHECK(run.status == 0);
  CHECK_FALSE(fs::exists(run.dir / "PWNED"));
  // Nothing but what the test itself wrote appeared in the job's directory.
  std::vector<std::string> entries;
  for (const auto& entry : fs::directory_iterator(run.dir)) {
    entries.push_back(entry.path().filename().string());
  }
  std::sort(entries.begin(), entries.end());
  CHECK(entries == std::vector<std::string>{"argv", "bin", "env", "job.sbatch", "log"});

  // The payloads are the last arguments srun received, byte for byte.
  REQUIRE(run.argv.size() >= k_payloads.size());
  const std::vector<std::string> tail(run.argv.end() - static_cast<long>(k_payloads.size()),
                                      run.argv.end());
  CHECK(tail == k_payloads);
  CHECK(std::find(run.argv.begin(), run.argv.end(), "--container-image=image'$(touch PWNED)")
        != run.argv.end());
  CHECK(std::find(run.argv.begin(), run.argv.end(), "--container-mounts=/a b:/c`touch PWNED`")
        != run.argv.end());
  for (std::size_t i = 0; i < k_payloads.size(); ++i) {
    const std::string name = "NASTY_" + std::to_string(i);
    CAPTURE(name);
    REQUIRE(run.env.count(name) == 1);
    CHECK(run.env.at(name) == k_payloads[i]);
  }
  // A per-job policy value (the flight-recorder dump prefix) gets the job id
  // the script ran as, and nothing else changes.
  int per_job = 0;
  for (const auto& v : environment.variables) {
    if (v.per_job) {
      ++per_job;
      std::string as_run = v.value;
      as_run.replace(as_run.find("%j"), 2, "42");
      CAPTURE(v.name);
      REQUIRE(run.env.count(v.name) == 1);
      CHECK(run.env.at(v.name) == as_run);
    }
  }
  CHECK(per_job == 1);
  fs::remove_all(run.dir);
}

} // namespace

TEST_CASE("srun-native: hostile names, arguments and values stay inert" * doctest::timeout(20))
{
  check_template("srun-native");
}

TEST_CASE("torchrun: hostile names, arguments and values stay inert" * doctest::timeout(20))
{
  check_template("torchrun");
}

TEST_CASE("No user byte starts a line of the script")
{
  const config::JobSpec spec = nasty_job();
  const std::string script = render::render_sbatch(spec, env::compose(spec, {}),
                                                   testing::shipped_template("srun-native"));
  const std::string clean = render::render_sbatch(
    testing::minimal_job_spec(), env::compose(testing::minimal_job_spec(), {}),
    testing::shipped_template("srun-native"));
  // Same template lines: the payloads add no line of their own (the
  // container block adds its 4 lines, each payload env var one export).
  const auto lines = [](const std::string& text) { return std::count(text.begin(), text.end(), '\n'); };
  CHECK(lines(script) == lines(clean) + 4 + static_cast<long>(k_payloads.size()));
}

TEST_CASE("A workdir that starts with '-' is a directory for cd, not an option")
{
  // Before: `cd -P` (workdir "-P") ran `cd` with an option and stayed in the
  // submit directory; `cd --` ends option parsing (POSIX cd, bash builtin).
  for (const char* name : {"srun-native", "torchrun"}) {
    config::JobSpec spec = testing::minimal_job_spec();
    spec.launch.workdir = "-P";
    const std::string script = render::render_sbatch(spec, env::compose(spec, {}), testing::shipped_template(name));
    CAPTURE(name);
    CHECK(script.find("\ncd -- ") != std::string::npos);
    CHECK(script.find("\ncd -P") == std::string::npos);
    CHECK(script.find("\ncd '-P'") == std::string::npos);
  }
}
