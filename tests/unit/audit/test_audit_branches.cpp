// Branches the script's own values decide (issue 13: "optional profiling
// branches evaluated in their default state"): an `if` whose condition is
// known false never runs, as bash's test builtin and conditional
// expressions define it (bash manual, "Bash Conditional Expressions"); an
// undecided condition keeps every branch, as before.
#include "audit/script_reader.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace lg::audit;

namespace {

// The last value assigned to `name` that the reader kept.
std::string last_value(const ScriptModel& m, const std::string& name)
{
  std::string value = "(unset)";
  for (const auto& a : m.assignments) {
    if (a.name == name && !a.value.empty()) {
      value = a.value.front().text();
    }
  }
  return value;
}

std::string with_condition(const std::string& condition, const std::string& set_first)
{
  return "#!/bin/bash\n" + set_first + "PROFILE_ARGS=\"\"\nif " + condition +
         "; then\n  PROFILE_ARGS=\"--profile\"\nfi\nsrun python pretrain_gpt.py $PROFILE_ARGS\n";
}

} // namespace

TEST_CASE("a profiling branch off by default is not read; on, it is")
{
  const ScriptModel off = read_script(with_condition("[ \"$PROFILE\" = 1 ]", "PROFILE=0\n"));
  CHECK(last_value(off, "PROFILE_ARGS") == "");
  REQUIRE(off.launches.size() == 1);
  const ScriptModel on = read_script(with_condition("[ \"$PROFILE\" = 1 ]", "PROFILE=1\n"));
  CHECK(last_value(on, "PROFILE_ARGS") == "--profile");
  // ${VAR:-default} for a variable the script never sets is its default.
  CHECK(last_value(read_script(with_condition("[ \"${PROFILE:-0}\" -eq 1 ]", "")), "PROFILE_ARGS") == "");
  CHECK(last_value(read_script(with_condition("[[ ${NSYS:-false} == true ]]", "")), "PROFILE_ARGS") == "");
  CHECK(last_value(read_script(with_condition("[ -n \"$NSYS\" ]", "NSYS=\n")), "PROFILE_ARGS") == "");
  CHECK(last_value(read_script(with_condition("! [ \"$PROFILE\" = 0 ]", "PROFILE=0\n")), "PROFILE_ARGS") == "");
  CHECK(last_value(read_script(with_condition("test \"$PROFILE\" != 0", "PROFILE=0\n")), "PROFILE_ARGS") == "");
  CHECK(last_value(read_script(with_condition("false", "")), "PROFILE_ARGS") == "");
}

TEST_CASE("undecided conditions keep every branch: unknown values, compound tests, patterns, commands")
{
  for (const char* condition : {"[ \"$PROFILE\" = 1 ]",            // PROFILE may come from the submitter
                                "[ \"$A\" = 1 ] || [ \"$B\" = 1 ]",  // only the first part is a test
                                "[[ $MODE == pro* ]]",               // a pattern
                                "command -v nsys"}) {
    CAPTURE(condition);
    const std::string set = std::string(condition).find("MODE") != std::string::npos ? "MODE=x\n" : "A=0\n";
    CHECK(last_value(read_script(with_condition(condition, set)), "PROFILE_ARGS") == "--profile");
  }
}

TEST_CASE("if/elif/else: the branch the values choose, and only it")
{
  const auto script = [](const std::string& size) {
    return "#!/bin/bash\nSIZE=" + size +
           "\nif [ \"$SIZE\" = big ]; then\n  TP=8\nelif [ \"$SIZE\" = mid ]; then\n  TP=4\nelse\n  TP=2\nfi\n"
           "srun python pretrain_gpt.py --tensor-model-parallel-size $TP\n";
  };
  CHECK(last_value(read_script(script("big")), "TP") == "8");
  CHECK(last_value(read_script(script("mid")), "TP") == "4");
  CHECK(last_value(read_script(script("small")), "TP") == "2");
  // A launch in the dead branch is not a launch of the job.
  const ScriptModel m = read_script("#!/bin/bash\nPROFILE=0\nif [ $PROFILE -eq 1 ]; then\n"
                                    "  srun nsys profile python pretrain_gpt.py\nelse\n"
                                    "  srun python pretrain_gpt.py\nfi\n");
  REQUIRE(m.launches.size() == 1);
  // Nested blocks inside a dead branch are dead too.
  const ScriptModel nested = read_script("#!/bin/bash\nDEBUG=0\nTP=2\nif [ $DEBUG = 1 ]; then\n"
                                         "  for i in 1; do\n    TP=1\n  done\nfi\n"
                                         "srun python pretrain_gpt.py --tensor-model-parallel-size $TP\n");
  CHECK(last_value(nested, "TP") == "2");
}
