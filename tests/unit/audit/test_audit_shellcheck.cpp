// audit --shellcheck: which of shellcheck's codes are merged, at which
// severity and line. The json1 texts are what ShellCheck 0.9.0 (Debian 12)
// printed for the scripts beside them (`shellcheck -f json1 -`); the codes'
// meanings are ShellCheck's wiki pages (https://www.shellcheck.net/wiki/SC2215 …).
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

AuditOptions with_shellcheck(std::optional<std::string> json1, std::string failure = {})
{
  AuditOptions options = h100_options();
  options.shellcheck = [json1, failure](const std::string&) { return ShellcheckRun{json1, failure}; };
  return options;
}

} // namespace

TEST_CASE("a lost line continuation and an unchecked cd are merged; quoting advice (SC2086) is not")
{
  const std::string script =
    "#!/bin/bash\n#SBATCH -N 1\nsrun python train.py\n  --tp 2\ncd /scratch/run\necho $HOSTS\n";
  const std::string json1 =
    R"({"comments":[{"file":"-","line":4,"endLine":4,"column":3,"endColumn":7,"level":"warning","code":2215,)"
    R"("message":"This flag is used as a command name. Bad line break or missing [ .. ]?","fix":null},)"
    R"({"file":"-","line":5,"endLine":5,"column":1,"endColumn":16,"level":"warning","code":2164,)"
    R"("message":"Use 'cd ... || exit' or 'cd ... || return' in case cd fails.","fix":null},)"
    R"({"file":"-","line":6,"endLine":6,"column":6,"endColumn":12,"level":"info","code":2086,)"
    R"("message":"Double quote to prevent globbing and word splitting.","fix":null}]})";
  const AuditResult r = run(script, with_shellcheck(json1));
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.shellcheck");
  REQUIRE(found.size() == 2);
  CHECK(line_of(found[0]) == 4);
  CHECK(found[0]->diagnostic.where->column == 3);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("SC2215") == 0);
  CHECK(found[0]->diagnostic.message.find("a `\\` is missing") != std::string::npos);
  CHECK(found[0]->diagnostic.fix == "see https://www.shellcheck.net/wiki/SC2215");
  CHECK(line_of(found[1]) == 5);
  CHECK(found[1]->diagnostic.message.find("SC2164") == 0);
}

TEST_CASE("shellcheck's parse errors count only where bash parses the script; bash's own error stays the one error")
{
  const std::string script = "#!/bin/bash\nif [ 1 ]; then\n";
  const std::string json1 =
    R"({"comments":[{"file":"-","line":2,"endLine":2,"column":1,"endColumn":1,"level":"info","code":1009,)"
    R"("message":"The mentioned syntax error was in this if expression.","fix":null},)"
    R"({"file":"-","line":2,"endLine":2,"column":11,"endColumn":11,"level":"error","code":1073,)"
    R"("message":"Couldn't parse this then clause. Fix to allow more checks.","fix":null},)"
    R"({"file":"-","line":3,"endLine":3,"column":1,"endColumn":1,"level":"error","code":1072,)"
    R"("message":"Expected a command. Fix any mentioned problems and try again.","fix":null}]})";
  AuditOptions bash_fails = with_shellcheck(json1);
  bash_fails.parse_error = [](const std::string&) {
    return std::optional<std::pair<int, std::string>>({3, "syntax error: unexpected end of file"});
  };
  const AuditResult both = run(script, bash_fails);
  CAPTURE(describe(both));
  CHECK(with_rule(both, "audit.parse_error").size() == 1);
  CHECK(with_rule(both, "audit.shellcheck").empty());
  // Without bash's verdict, shellcheck's parse error is reported, as a
  // warning: bash is what runs the script.
  const AuditResult alone = run(script, with_shellcheck(json1));
  const auto found = with_rule(alone, "audit.shellcheck");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("SC1073") == 0);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
}

TEST_CASE("an assignment with spaces is an error-level shellcheck finding (SC2283 is level error)")
{
  const std::string script = "#!/bin/bash\nNCCL_DEBUG = INFO\nsrun python train.py\n";
  const std::string json1 =
    R"({"comments":[{"file":"-","line":2,"endLine":2,"column":12,"endColumn":13,"level":"error","code":2283,)"
    R"("message":"Remove spaces around = to assign (or use [ ] to compare, or quote '=' if literal).","fix":null}]})";
  const AuditResult r = run(script, with_shellcheck(json1));
  const auto found = with_rule(r, "audit.shellcheck");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(line_of(found[0]) == 2);
}

TEST_CASE("shellcheck missing or its output unreadable: a warning that says so, never a silent pass")
{
  const std::string script = "#!/bin/bash\nsrun python train.py\n";
  const AuditResult not_run = run(script, with_shellcheck(std::nullopt, "cannot run shellcheck: not found"));
  const auto missing = with_rule(not_run, "audit.shellcheck");
  REQUIRE(missing.size() == 1);
  CHECK(missing[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(missing[0]->diagnostic.message.find("did not run: cannot run shellcheck") != std::string::npos);
  for (const char* garbage : {"", "[]", "{\"comments\": 3}", "{\"comments\":[{\"code\":\"x\",\"line\":1}, 7]}",
                              "{\"comments\":[{\"code\":2215,\"line\":99}]}"}) {
    CAPTURE(garbage);
    const AuditResult r = run(script, with_shellcheck(std::string(garbage)));
    const auto found = with_rule(r, "audit.shellcheck");
    CHECK(found.size() <= 1);
    for (const auto* f : found) {
      CHECK(f->diagnostic.severity == lg::Severity::warning);
    }
  }
}
