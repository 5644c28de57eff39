#include "diagnose/catalogue.hpp"
#include "diagnose/matcher.hpp"
#include "launch/job_source.hpp"
#include "launch/journal.hpp"
#include "launch/run_state.hpp"
#include "launch/runner.hpp"
#include "slurm/fake_client.hpp"
#include "support/builders.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using lg::slurm::JobState;

namespace {

const char* k_fragmentation_oom =
  "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity "
  "of 79.19 GiB of which 1.50 GiB is free. Including non-PyTorch memory, this process has 77.68 GiB memory in "
  "use. Of the allocated memory 60.10 GiB is allocated by PyTorch, and 16.50 GiB is reserved by PyTorch but "
  "unallocated. If reserved but unallocated memory is large try setting "
  "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.\n";

struct Fixture
{
  fs::path dir;
  lg::slurm::FakeClient client;
  lg::diagnose::Matcher matcher{lg::diagnose::default_catalogue()};
  lg::config::JobSpec spec = lg::testing::llama3_70b_sft();
  std::vector<std::string> lines;
  lg::watch::ManualClock clock;
  lg::launch::RunContext context;
  lg::launch::RunOptions options;

  Fixture()
  {
    char pattern[] = "/tmp/lg-runner-XXXXXX";
    dir = ::mkdtemp(pattern);
    spec.env = {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:False"}};
    spec.launch.output = "logs/%x-%j.out";
    context.client = &client;
    context.matcher = &matcher;
    context.render = [](const lg::config::JobSpec& s) {
      for (const auto& [name, value] : s.env) {
        if (name == "PYTORCH_CUDA_ALLOC_CONF") {
          return "#!/bin/bash\nexport PYTORCH_CUDA_ALLOC_CONF=" + value + "\n";
        }
      }
      return std::string("#!/bin/bash\n");
    };
    context.load_source = [this](const nlohmann::json&) { return spec; };
    context.clock = &clock;
    context.progress = [this](const std::string& line) { lines.push_back(line); };
    context.submit_dir = dir;
    options.max_attempts = 3;
  }
  ~Fixture() { fs::remove_all(dir); }

  void write_log(const std::string& job_id, const std::string& text)
  {
    fs::create_directories(dir / "logs");
    std::ofstream(dir / "logs" / ("llama3-70b-sft-" + job_id + ".out")) << text;
  }
};

} // namespace

TEST_SUITE_BEGIN("launch");

TEST_CASE("runner: a fragmentation OOM is diagnosed and retried with expandable segments")
{
  Fixture f;
  f.client.script_next_submission({JobState::running, JobState::failed});
  f.client.script_next_submission({JobState::running, JobState::completed});
  f.write_log("1000", std::string(" iteration 1/10 | lm loss: 10.1\n") + k_fragmentation_oom);
  f.write_log("1001", " iteration 10/10 | lm loss: 2.0\n");
  auto journal = lg::launch::Journal::create(f.dir / "state", f.spec.name);
  lg::launch::begin_run(journal, f.spec, {{"kind", "test"}}, f.options, f.context);
  const auto outcome = lg::launch::drive_run(journal, f.options, f.context);
  CHECK(outcome.finished);
  CHECK(outcome.outcome == lg::launch::RunResult::succeeded);
  REQUIRE(f.client.submissions().size() == 2);
  const auto state = lg::launch::fold(journal.run_id(), journal.records());
  REQUIRE(state.attempts.size() == 2);
  CHECK(state.attempts[0].category == "cuda_oom_fragmentation");
  CHECK(lg::watch::to_string(state.attempts[0].last_state) == "FAILED");
  CHECK(state.attempts[1].fix == "expandable_segments");
  std::ifstream script(journal.dir() / "attempt-2" / "job.sbatch");
  std::string text((std::istreambuf_iterator<char>(script)), std::istreambuf_iterator<char>());
  CHECK(text.find("expandable_segments:True") != std::string::npos);
  CHECK(f.client.submissions()[1].options.tag == state.attempts[1].tag);
}

TEST_CASE("runner: an sbatch that timed out after queueing is found by tag, never submitted twice")
{
  Fixture f;
  f.client.fail_next_submit(lg::slurm::FakeClient::SubmitFailure::timeout_after_queue);
  f.client.script_next_submission({JobState::completed});
  f.write_log("1000", " iteration 10/10 | lm loss: 2.0\n");
  auto journal = lg::launch::Journal::create(f.dir / "state", f.spec.name);
  lg::launch::begin_run(journal, f.spec, {}, f.options, f.context);
  const auto outcome = lg::launch::drive_run(journal, f.options, f.context);
  CHECK(outcome.outcome == lg::launch::RunResult::succeeded);
  CHECK(f.client.submissions().size() == 1);
  const auto state = lg::launch::fold(journal.run_id(), journal.records());
  CHECK(state.attempts[0].job_id == std::optional<std::string>("1000"));
}

TEST_CASE("runner: a run resumed after a crash between submit_started and submitted does not duplicate")
{
  Fixture f;
  f.client.script_next_submission({JobState::running, JobState::completed});
  f.write_log("1000", " iteration 10/10 | lm loss: 2.0\n");
  auto journal = lg::launch::Journal::create(f.dir / "state", f.spec.name);
  lg::launch::begin_run(journal, f.spec, {}, f.options, f.context);
  // Simulate: sbatch succeeded, then launchguard died before recording it.
  const auto state0 = lg::launch::fold(journal.run_id(), journal.records());
  journal.append("submit_started", {{"attempt", 1}, {"tag", state0.attempts[0].tag}});
  lg::slurm::SubmitOptions submit;
  submit.tag = state0.attempts[0].tag;
  f.client.submit_text("#!/bin/bash\n", submit);
  auto reopened = lg::launch::Journal::open(f.dir / "state", journal.run_id());
  const auto outcome = lg::launch::drive_run(reopened, f.options, f.context);
  CHECK(outcome.outcome == lg::launch::RunResult::succeeded);
  CHECK(f.client.submissions().size() == 1);
}

TEST_CASE("runner: with both submit_started and submitted damaged, a resume asks Slurm for the tag first")
{
  Fixture f;
  f.client.script_next_submission({JobState::running, JobState::completed});
  f.write_log("1000", " iteration 10/10 | lm loss: 2.0\n");
  auto journal = lg::launch::Journal::create(f.dir / "state", f.spec.name);
  lg::launch::begin_run(journal, f.spec, {}, f.options, f.context);
  const auto state0 = lg::launch::fold(journal.run_id(), journal.records());
  const auto started = journal.append("submit_started", {{"attempt", 1}, {"tag", state0.attempts[0].tag}});
  lg::slurm::SubmitOptions submit;
  submit.tag = state0.attempts[0].tag;
  const auto id = f.client.submit_text("#!/bin/bash\n", submit);
  // A second sbatch (the defect) gets a job that ends at once, so the check
  // below fails instead of the watch following a job pending forever.
  f.client.script_next_submission({JobState::completed});
  const auto submitted = journal.append("submitted", {{"attempt", 1}, {"job_id", id}});
  // Both records damaged (a disk error, a bad edit): the attempt looks
  // never submitted, but the job is queued.
  for (const auto seq : {started.seq, submitted.seq}) {
    char name[32];
    std::snprintf(name, sizeof name, "%08lld.json", static_cast<long long>(seq));
    std::ofstream(journal.dir() / "records" / name) << "{\"seq\": 1, \"type\": \"submitted\", \"data\": 3}";
  }
  auto reopened = lg::launch::Journal::open(f.dir / "state", journal.run_id());
  const auto outcome = lg::launch::drive_run(reopened, f.options, f.context);
  CHECK(outcome.outcome == lg::launch::RunResult::succeeded);
  CHECK(f.client.submissions().size() == 1);  // found by tag, not submitted again
}

TEST_CASE("runner: a config error is not retried and ends the run failed")
{
  Fixture f;
  f.client.script_next_submission({JobState::failed});
  f.write_log("1000", "ValueError: Currently there is no support for Pipeline parallelism with CPU offloading\n");
  auto journal = lg::launch::Journal::create(f.dir / "state", f.spec.name);
  lg::launch::begin_run(journal, f.spec, {}, f.options, f.context);
  const auto outcome = lg::launch::drive_run(journal, f.options, f.context);
  CHECK(outcome.outcome == lg::launch::RunResult::failed);
  CHECK(f.client.submissions().size() == 1);
  const auto state = lg::launch::fold(journal.run_id(), journal.records());
  CHECK(state.attempts[0].category == "cpu_offload_with_pp");
}

// Megatron-LM megatron/training/training.py training_log(): " iteration {:8d}/{:8d} |" …
std::string megatron_iterations(long first, long last)
{
  std::string text;
  for (long i = first; i <= last; ++i) {
    text += " [2026-08-22 15:22:22.123456] iteration " + std::to_string(i) +
            "/     100 | consumed samples: 32 | elapsed time per iteration (ms): 500.0 | lm loss: 2.0 |\n";
  }
  return text;
}

TEST_CASE("runner: a hang is reported, cancelled after the grace, diagnosed hang_no_progress and retried unchanged once")
{
  Fixture f;
  f.options.hang.floor = std::chrono::seconds(30);
  f.options.hang_grace = std::chrono::seconds(10);
  f.client.script_next_submission({JobState::running});  // runs until cancelled
  f.client.script_next_submission({JobState::running, JobState::completed});
  f.write_log("1000", megatron_iterations(1, 7));
  f.write_log("1001", megatron_iterations(1, 100));
  auto journal = lg::launch::Journal::create(f.dir / "state", f.spec.name);
  lg::launch::begin_run(journal, f.spec, {}, f.options, f.context);
  const auto outcome = lg::launch::drive_run(journal, f.options, f.context);
  CHECK(outcome.outcome == lg::launch::RunResult::succeeded);
  CHECK(f.client.cancelled() == std::vector<std::string>{"1000"});
  REQUIRE(f.client.submissions().size() == 2);
  const auto state = lg::launch::fold(journal.run_id(), journal.records());
  REQUIRE(state.attempts.size() == 2);
  CHECK(state.attempts[0].category == "hang_no_progress");
  CHECK(state.attempts[1].fix.empty());  // unchanged
  int hangs = 0;
  for (const auto& record : journal.records()) {
    if (record.type == "hang") {
      ++hangs;
      CHECK(record.data.at("last_iteration") == 7);
      CHECK(record.data.at("threshold_s") == 30.0);
    }
    if (record.type == "cancel_requested") {
      CHECK(record.data.at("reason") == "hang_no_progress");
    }
  }
  CHECK(hangs == 1);  // reported once, not on every look
}

TEST_CASE("runner: a run keeps the hang options it was created with, for a resumed watch")
{
  Fixture f;
  f.options.hang.floor = std::chrono::seconds(42);
  f.options.hang_grace = std::chrono::seconds(7);
  f.options.hang_cancel = false;
  auto journal = lg::launch::Journal::create(f.dir / "state", f.spec.name);
  lg::launch::begin_run(journal, f.spec, {}, f.options, f.context);
  lg::launch::RunOptions resumed;  // the defaults a later `watch RUN_ID` starts from
  lg::launch::read_hang_options(journal.records().front().data, resumed);
  CHECK(resumed.hang.floor == std::chrono::seconds(42));
  CHECK(resumed.hang_grace == std::chrono::seconds(7));
  CHECK_FALSE(resumed.hang_cancel);
  lg::launch::RunOptions older;  // a journal from before these fields
  lg::launch::read_hang_options(nlohmann::json::object(), older);
  CHECK(older.hang.floor == std::chrono::minutes(5));
  CHECK(older.hang_cancel);
}

TEST_CASE("runner: with hang cancelling off a hang is only reported, and beats the time limit it ran into")
{
  Fixture f;
  f.options.max_attempts = 1;
  f.options.hang.floor = std::chrono::seconds(30);
  f.options.hang_cancel = false;
  // Queries at 3, 8, 16, 28.8, 49.3, 82 s (the session's backoff), then TIMEOUT.
  f.client.script_next_submission({JobState::running, JobState::running, JobState::running, JobState::running,
                                   JobState::running, JobState::running, JobState::timeout});
  f.write_log("1000", megatron_iterations(1, 7));
  auto journal = lg::launch::Journal::create(f.dir / "state", f.spec.name);
  lg::launch::begin_run(journal, f.spec, {}, f.options, f.context);
  lg::launch::drive_run(journal, f.options, f.context);
  CHECK(f.client.cancelled().empty());
  const auto state = lg::launch::fold(journal.run_id(), journal.records());
  REQUIRE(state.attempts.size() == 1);
  CHECK(lg::watch::to_string(state.attempts[0].last_state) == "TIMEOUT");
  CHECK(state.attempts[0].category == "hang_no_progress");
}

TEST_CASE("runner: iterations that come back within the grace end the hang report; nothing is cancelled")
{
  Fixture f;
  f.options.max_attempts = 1;
  f.options.hang.floor = std::chrono::seconds(30);
  f.options.hang_grace = std::chrono::seconds(60);
  f.client.script_next_submission({JobState::running, JobState::running, JobState::running, JobState::running,
                                   JobState::running, JobState::running, JobState::completed});
  f.write_log("1000", megatron_iterations(1, 7));
  // The trainer goes on (a slow checkpoint save, say) right after the report.
  f.context.progress = [&f](const std::string& line) {
    f.lines.push_back(line);
    if (line.find("hang_no_progress") != std::string::npos) {
      f.write_log("1000", megatron_iterations(1, 100));
    }
  };
  auto journal = lg::launch::Journal::create(f.dir / "state", f.spec.name);
  lg::launch::begin_run(journal, f.spec, {}, f.options, f.context);
  const auto outcome = lg::launch::drive_run(journal, f.options, f.context);
  CHECK(outcome.outcome == lg::launch::RunResult::succeeded);
  CHECK(f.client.cancelled().empty());
  bool resumed = false;
  for (const auto& record : journal.records()) {
    resumed = resumed || record.type == "progress_resumed";
  }
  CHECK(resumed);
}

TEST_CASE("runner: an Xid on a node excludes that node from the retry, recorded and applied to the next job")
{
  Fixture f;
  f.client.script_next_submission({JobState::running, JobState::failed});
  f.client.script_next_submission({JobState::running, JobState::completed});
  // The NVIDIA driver's kernel-log line (syslog form, the host after the date).
  f.write_log("1000", megatron_iterations(1, 2) +
                        "Dec  1 15:00:00 n3 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has "
                        "fallen off the bus.\n");
  f.write_log("1001", megatron_iterations(1, 100));
  auto journal = lg::launch::Journal::create(f.dir / "state", f.spec.name);
  lg::launch::begin_run(journal, f.spec, {}, f.options, f.context);
  const auto outcome = lg::launch::drive_run(journal, f.options, f.context);
  CHECK(outcome.outcome == lg::launch::RunResult::succeeded);
  REQUIRE(f.client.submissions().size() == 2);
  const auto state = lg::launch::fold(journal.run_id(), journal.records());
  CHECK(state.attempts[0].category == "gpu_hardware");
  CHECK(state.attempts[0].host == "n3");
  CHECK(state.attempts[1].exclude == std::vector<std::string>{"n3"});
  const auto second = lg::launch::attempt_spec(f.spec, state, 2);
  CHECK(std::find(second.slurm.extra_args.begin(), second.slurm.extra_args.end(), "--exclude=n3") !=
        second.slurm.extra_args.end());
  const auto first = lg::launch::attempt_spec(f.spec, state, 1);
  CHECK(first.slurm.extra_args == f.spec.slurm.extra_args);
}

namespace {

// A 4-node job that ended NODE_FAIL, as sacct records it (Slurm 22.05:
// the job line's NodeList is the allocation; each step has its own).
std::vector<lg::slurm::JobStatus> four_node_job_lost_a_node(JobState batch_step)
{
  lg::slurm::JobStatus running;
  running.state = JobState::running;
  running.nodes = "n[1-4]";
  lg::slurm::JobStatus failed = running;
  failed.state = JobState::node_fail;
  failed.steps = {{"batch", "batch", batch_step, std::string(lg::slurm::to_string(batch_step)), {}, "n1"},
                  {"0", "python3", JobState::node_fail, "NODE_FAIL", {}, "n[1-4]"}};
  return {running, failed};
}

// Drive a run whose first job goes through `first_job` (a lost node), its
// retry completing: the run's state and the first diagnosis's evidence.
struct NodeFailRun
{
  lg::launch::RunState state;
  std::vector<std::string> evidence;
};

NodeFailRun drive_node_fail_run(Fixture& f, std::vector<lg::slurm::JobStatus> first_job)
{
  f.client.script_next_submission(std::move(first_job));
  f.client.script_next_submission({JobState::running, JobState::completed});
  f.write_log("1000", megatron_iterations(1, 2));
  f.write_log("1001", megatron_iterations(1, 100));
  auto journal = lg::launch::Journal::create(f.dir / "state", f.spec.name);
  lg::launch::begin_run(journal, f.spec, {}, f.options, f.context);
  lg::launch::drive_run(journal, f.options, f.context);
  NodeFailRun run{lg::launch::fold(journal.run_id(), journal.records()), {}};
  for (const auto& record : journal.records()) {
    if (record.type == "diagnosis" && run.evidence.empty()) {
      for (const auto& e : record.data.at("evidence")) {
        run.evidence.push_back(e.at("text").get<std::string>());
      }
    }
  }
  return run;
}

}  // namespace

TEST_CASE("runner: NODE_FAIL of a one-node job with no host in the logs excludes Slurm's node")
{
  Fixture f;
  lg::slurm::JobStatus running;
  running.state = JobState::running;
  running.nodes = "n2";  // sacct/squeue NodeList
  lg::slurm::JobStatus failed = running;
  failed.state = JobState::node_fail;
  const auto run = drive_node_fail_run(f, {running, failed});
  REQUIRE(run.state.attempts.size() == 2);
  CHECK(run.state.attempts[0].category == "slurm_preemption_or_node_failure");
  CHECK(run.state.attempts[0].host == "n2");
  CHECK(run.state.attempts[1].exclude == std::vector<std::string>{"n2"});
}

TEST_CASE("runner: a multi-node NODE_FAIL without a host names the node only when Slurm's record leaves one")
{
  // The batch step (on its batch host n1) and the srun step both ended
  // NODE_FAIL: the node both ran on, n1, is the one that failed.
  Fixture f;
  const auto run = drive_node_fail_run(f, four_node_job_lost_a_node(JobState::node_fail));
  REQUIRE(run.state.attempts.size() == 2);
  CHECK(run.state.attempts[0].host == "n1");
  CHECK(run.state.attempts[1].exclude == std::vector<std::string>{"n1"});
}

TEST_CASE("runner: a multi-node NODE_FAIL with several candidates names them and excludes none")
{
  // Only the 4-node srun step ended NODE_FAIL: any of n1..n4 may have failed.
  Fixture f;
  f.options.retry_infra = true;  // resubmitted unchanged, as any infrastructure failure
  const auto run = drive_node_fail_run(f, four_node_job_lost_a_node(JobState::cancelled));
  REQUIRE(run.state.attempts.size() == 2);
  CHECK(run.state.attempts[0].category == "slurm_preemption_or_node_failure");
  CHECK(run.state.attempts[0].host.empty());
  CHECK(run.state.attempts[1].exclude.empty());
  CHECK(std::any_of(run.evidence.begin(), run.evidence.end(), [](const std::string& text) {
    return text.find("one of 4 candidates (n1, n2, n3, n4") != std::string::npos;
  }));
}

TEST_CASE("runner: detach returns after submission; a later drive finishes the run")
{
  Fixture f;
  f.client.script_next_submission({JobState::pending, JobState::running, JobState::completed});
  f.write_log("1000", " iteration 10/10 | lm loss: 2.0\n");
  auto journal = lg::launch::Journal::create(f.dir / "state", f.spec.name);
  lg::launch::begin_run(journal, f.spec, {}, f.options, f.context);
  auto detached = f.options;
  detached.detach = true;
  const auto first = lg::launch::drive_run(journal, detached, f.context);
  CHECK(first.detached);
  CHECK(f.client.queries().empty());
  const auto second = lg::launch::drive_run(journal, f.options, f.context);
  CHECK(second.outcome == lg::launch::RunResult::succeeded);
  CHECK(f.client.submissions().size() == 1);
}

TEST_CASE("runner: a job carrying a secret: the attempt script and every journal record are 0600, whatever the umask")
{
  // Issue 10: an [env] token went into run_created (the job file's text) and
  // attempt-1/job.sbatch with mode 0644. The token has the Hugging Face
  // format (hf_ + 34 letters) that lg::secrets recognises.
  Fixture f;
  const std::string token = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567";
  f.spec.env.emplace_back("HF_TOKEN", token);
  f.context.render = [](const lg::config::JobSpec& s) {
    std::string script = "#!/bin/bash\n";
    for (const auto& [name, value] : s.env) {
      script += "export " + name + "='" + value + "'\n";
    }
    return script;
  };
  f.client.script_next_submission({JobState::running, JobState::completed});
  f.write_log("1000", " iteration 10/10 | lm loss: 2.0\n");
  const mode_t old_umask = ::umask(0);
  auto journal = lg::launch::Journal::create(f.dir / "state", f.spec.name);
  lg::launch::begin_run(journal, f.spec,
                        lg::launch::job_source(f.dir / "job.toml", "[env]\nHF_TOKEN = \"" + token + "\"\n", {}, {}),
                        f.options, f.context);
  const auto outcome = lg::launch::drive_run(journal, f.options, f.context);
  ::umask(old_umask);
  CHECK(outcome.outcome == lg::launch::RunResult::succeeded);
  const auto runner_mode_of = [](const fs::path& path) {
    struct stat info{};
    REQUIRE(::stat(path.c_str(), &info) == 0);
    return info.st_mode & 07777U;
  };
  const auto runner_text_of = [](const fs::path& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const fs::path script = journal.dir() / "attempt-1" / "job.sbatch";
  CHECK(runner_text_of(script).find(token) != std::string::npos);  // the file really holds it
  CHECK(runner_mode_of(script) == 0600U);
  CHECK(runner_mode_of(script.parent_path()) == 0700U);
  bool token_in_a_record = false;
  std::size_t records = 0;
  for (const auto& entry : fs::directory_iterator(journal.dir() / "records")) {
    ++records;
    token_in_a_record = token_in_a_record || runner_text_of(entry.path()).find(token) != std::string::npos;
    CHECK(runner_mode_of(entry.path()) == 0600U);
  }
  CHECK(records >= 3);
  CHECK(token_in_a_record);
}

TEST_SUITE_END();
