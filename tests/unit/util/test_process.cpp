#include "util/process.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>

using lg::process::Command;
using lg::process::Result;
using lg::process::run;
using namespace std::chrono_literals;

namespace {

// -Wextra rejects partial designated initializers, so build commands here.
Command program(std::string name, std::vector<std::string> args = {})
{
  Command command;
  command.program = std::move(name);
  command.args = std::move(args);
  return command;
}

Command shell(std::string script)
{
  return program("sh", {"-c", std::move(script)});
}

} // namespace

TEST_SUITE_BEGIN("util");

TEST_CASE("process::run: captures stdout, stderr and the exit code"
          * doctest::timeout(5))
{
  const Result result = run(shell("echo out; echo err >&2; exit 3"));
  CAPTURE(result.err);
  CHECK(result.out == "out\n");
  CHECK(result.err == "err\n");
  CHECK(result.exit_code == 3);
  CHECK_FALSE(result.signal);
  CHECK_FALSE(result.ok());
}

TEST_CASE("process::run: reads more than 64 KiB on both streams at once"
          * doctest::timeout(5))
{
  // Interleaved writes: a reader that drains one pipe at a time deadlocks.
  const Result result =
    run(shell("i=0; while [ $i -lt 4 ]; do"
              "  head -c 50000 /dev/zero | tr '\\0' a;"
              "  head -c 75000 /dev/zero | tr '\\0' b >&2;"
              "  i=$((i+1)); done"));
  CAPTURE(result.exit_code);
  CHECK(result.ok());
  CHECK(result.out.size() == 200000);
  CHECK(result.err.size() == 300000);
  CHECK(result.out.find_first_not_of('a') == std::string::npos);
  CHECK(result.err.find_first_not_of('b') == std::string::npos);
}

TEST_CASE("process::run: feeds stdin while reading stdout"
          * doctest::timeout(5))
{
  Command command = program("cat");
  command.stdin_text = std::string(300000, 'x');
  const Result result = run(command);
  CHECK(result.ok());
  CHECK(result.out == *command.stdin_text);

  SUBCASE("stdin is /dev/null when not fed")
  {
    CHECK(run(program("cat")).out.empty());
  }
  SUBCASE("a child that ignores its stdin does not hang us")
  {
    Command ignorer = shell("exec 0<&-; echo done");
    ignorer.stdin_text = std::string(1 << 20, 'y');
    CHECK(run(ignorer).out == "done\n");
  }
}

TEST_CASE("process::run: a missing program is an error, not a result"
          * doctest::timeout(5))
{
  CHECK_THROWS_AS(run(program("lg-no-such-program")),
                  lg::SystemError);
  CHECK_THROWS_WITH(
    run(program("lg-no-such-program")),
    "cannot run 'lg-no-such-program': No such file or directory");
}

TEST_CASE("process::run: a timeout kills the whole process group"
          * doctest::timeout(5))
{
  // sh forks sleep: killing only sh would leave sleep holding the pipes.
  Command command = shell("echo started; sleep 30; echo never");
  command.timeout = 500ms;
  const auto start = std::chrono::steady_clock::now();
  try {
    run(command);
    FAIL("expected a TimeoutError");
  } catch (const lg::process::TimeoutError& error) {
    CHECK(error.out == "started\n");
    CHECK(std::string(error.what())
          == "'sh -c 'echo started; sleep 30; echo never'' did not finish "
             "within 500 ms and was killed");
  }
  CHECK(std::chrono::steady_clock::now() - start < 3s);
}

TEST_CASE("process::run: death by signal is not an exit code"
          * doctest::timeout(5))
{
  const Result killed = run(shell("kill -9 $$"));
  REQUIRE(killed.signal);
  CHECK(*killed.signal == 9);
  CHECK(lg::process::describe_status(killed) == "signal 9 (Killed)");

  const Result exited = run(shell("exit 9"));
  CHECK_FALSE(exited.signal);
  CHECK(exited.exit_code == 9);
  CHECK(lg::process::describe_status(exited) == "exit code 9");
}

TEST_CASE("process::run: environment overrides and removed prefixes"
          * doctest::timeout(5))
{
  ::setenv("SLURM_JOB_ID", "42", 1);
  ::setenv("SBATCH_PARTITION", "debug", 1);
  ::setenv("LG_TEST_KEEP", "kept", 1);
  Command command =
    shell("echo \"${SLURM_JOB_ID:-none} ${SBATCH_PARTITION:-none} "
          "${SLURM_CONF:-none} $LG_TEST_KEEP $LG_TEST_NEW\"");
  command.env_remove_prefixes = {"SLURM_", "SBATCH_", "SRUN_", "PMIX_"};
  command.env = {{"SLURM_CONF", "/etc/x.conf"}, {"LG_TEST_NEW", "new"}};
  CHECK(run(command).out == "none none /etc/x.conf kept new\n");

  ::unsetenv("SLURM_JOB_ID");
  ::unsetenv("SBATCH_PARTITION");
  ::unsetenv("LG_TEST_KEEP");
}

TEST_CASE("process::to_display_string: shell-quoted, env first")
{
  Command command =
    program("sbatch", {"--parsable", "--comment=lg run 1", "job.sbatch"});
  command.env = {{"SLURM_CONF", "/tmp/a b/slurm.conf"}};
  CHECK(lg::process::to_display_string(command)
        == "SLURM_CONF='/tmp/a b/slurm.conf' sbatch --parsable "
           "'--comment=lg run 1' job.sbatch");
}

TEST_CASE("process::to_display_string: a secret in the environment or an argument is not shown")
{
  // An sbatch refusal prints the command as its hint: the token given to
  // --export must not reach the terminal or a CI log.
  Command command = program("sbatch", {"--export=ALL,HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123456789", "job.sbatch"});
  command.env = {{"WANDB_API_KEY", "0123456789abcdef0123456789abcdef01234567"}};
  const std::string shown = lg::process::to_display_string(command);
  CHECK(shown.find("hf_abc") == std::string::npos);
  CHECK(shown.find("0123456789abcdef") == std::string::npos);
  CHECK(shown == "WANDB_API_KEY=<secret, not shown> sbatch '--export=ALL,HF_TOKEN=<secret, not shown>' job.sbatch");
}

TEST_SUITE_END();
