// The real Client: builds argv for sbatch/sacct/squeue/scancel/scontrol, runs
// them through util/process with a timeout, and hands the output to the pure
// parsers in parse.cpp.
//
// Polling load: query() is one sacct call for all ids (sites complain
// about per-job polling: submitit#1759, Snakemake-Profiles/slurm#74,
// ComparativeGenomicsToolkit/cactus#67). sacct runs without -X so that job steps
// come back too: under srun a step killed by the cgroup OOM handler is
// OUT_OF_MEMORY while the job itself ends FAILED (captured on Slurm 22.05).
// squeue is asked only for ids sacct does not know yet (the record reaches
// slurmdbd a moment after submission) or when accounting cannot answer.
#include "slurm/client.hpp"
#include "slurm/parse.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace lg::slurm {

namespace {

using process::Command;
using process::Result;

std::string comma_list(std::span<const JobId> ids)
{
  return join(std::vector<std::string>(ids.begin(), ids.end()), ",");
}

// What a refusal that is not transient means for the caller.
enum class Refusal { rejected, system_error };

bool contains_tag(const JobStatus& job, std::string_view tag)
{
  return job.comment.find(tag) != std::string::npos
         || job.name.find(tag) != std::string::npos;
}

class CliClient final : public Client
{
public:
  explicit CliClient(ClientOptions options)
    : m_options(std::move(options))
  {
  }

  JobId submit_file(const std::filesystem::path& script,
                    const SubmitOptions& options) override
  {
    Command command = submit_command(options);
    command.args.push_back(script.string());
    return submit(command);
  }

  JobId submit_text(std::string_view script,
                    const SubmitOptions& options) override
  {
    Command command = submit_command(options);
    command.stdin_text = std::string(script);
    return submit(command);
  }

  std::vector<JobStatus> query(std::span<const JobId> ids) override
  {
    if (ids.empty()) {
      return {};
    }
    const Command sacct = make("sacct",
                               {"--jobs=" + comma_list(ids),
                                "--parsable2",
                                "--noheader",
                                "--format=" + std::string(k_sacct_format)},
                               m_options.query_timeout);
    const Result result = run(sacct);
    if (!result.ok()) {
      // Accounting down or disabled: squeue still knows live jobs.
      return squeue(ids);
    }
    std::vector<JobStatus> jobs = match_requested(ids, parse_sacct(result.out));
    std::vector<JobId> missing;
    for (const auto& id : ids) {
      if (std::none_of(jobs.begin(), jobs.end(), [&](const JobStatus& job) {
            return job.id == id;
          })) {
        missing.push_back(id);
      }
    }
    if (!missing.empty()) {
      try {
        for (auto& job : squeue(missing)) {
          jobs.push_back(std::move(job));
        }
      } catch (const TransientSlurmError&) {
        // The missing ids stay missing this round; the caller polls again.
      }
    }
    return jobs;
  }

  std::vector<JobStatus> find_by_tag(std::string_view tag) override
  {
    if (tag.empty()) {
      throw Error("find_by_tag needs a non-empty tag");
    }
    std::vector<JobStatus> found;
    std::set<JobId> seen;
    const Command squeue_all =
      make("squeue",
           {"--me",
            "--noheader",
            "--states=all",
            "--format=" + std::string(k_squeue_format)},
           m_options.query_timeout);
    const Command sacct_recent =
      make("sacct",
           {"--allocations",
            "--parsable2",
            "--noheader",
            "--starttime=now-7days",
            "--format=" + std::string(k_sacct_format)},
           m_options.query_timeout);
    // squeue first: a job queued moments ago may not be in sacct yet, and
    // sacct stores the comment only once the job ends.
    const Result live = run(squeue_all);
    const Result recent = run(sacct_recent);
    if (!live.ok() && !recent.ok()) {
      fail(squeue_all, live, "cannot list jobs");
    }
    auto add = [&](std::vector<JobStatus> jobs) {
      for (auto& job : jobs) {
        if (contains_tag(job, tag) && seen.insert(job.id).second) {
          found.push_back(std::move(job));
        }
      }
    };
    if (live.ok()) {
      add(parse_squeue(live.out));
    }
    if (recent.ok()) {
      add(parse_sacct(recent.out));
    }
    return found;
  }

  void cancel(const JobId& id) override
  {
    const Command scancel = make("scancel", {id}, m_options.query_timeout);
    const Result result = run(scancel);
    if (!result.ok()) {
      fail(scancel, result, fmt::format("cannot cancel job {}", id));
    }
  }

  bool ping() override
  {
    const Command scontrol =
      make("scontrol", {"ping"}, m_options.query_timeout);
    try {
      const Result result = run(scontrol);
      return result.ok() && result.out.find("is UP") != std::string::npos;
    } catch (const TransientSlurmError&) {
      return false;
    }
  }

private:
  Command make(std::string tool,
               std::vector<std::string> args,
               std::chrono::milliseconds timeout) const
  {
    Command command;
    command.program = m_options.bin_dir.empty()
                        ? tool
                        : (m_options.bin_dir / tool).string();
    command.args = std::move(args);
    command.env_remove_prefixes = {"SLURM_", "SBATCH_", "SRUN_", "PMIX_"};
    if (const char* conf = std::getenv("SLURM_CONF")) {
      command.env["SLURM_CONF"] = conf;
    }
    for (const auto& [name, value] : m_options.env) {
      command.env[name] = value;
    }
    command.timeout = timeout;
    return command;
  }

  Command submit_command(const SubmitOptions& options) const
  {
    std::vector<std::string> args{"--parsable"};
    if (!options.job_name.empty()) {
      args.push_back("--job-name=" + options.job_name);
    }
    if (!options.tag.empty()) {
      args.push_back("--comment=" + options.tag);
    }
    args.insert(
      args.end(), options.extra_args.begin(), options.extra_args.end());
    return make("sbatch", std::move(args), m_options.submit_timeout);
  }

  JobId submit(const Command& command)
  {
    const Result result = run(command);
    if (!result.ok()) {
      fail(command, result, "sbatch rejected the job", Refusal::rejected);
    }
    if (auto id = parse_sbatch_parsable(result.out)) {
      return *id;
    }
    SystemError error("sbatch printed no job id: '{}'",
                      std::string(trim(result.out)));
    error.hint = "command: " + process::to_display_string(command);
    throw error;
  }

  std::vector<JobStatus> squeue(std::span<const JobId> ids)
  {
    const Command command = make("squeue",
                                 {"--noheader",
                                  "--states=all",
                                  "--jobs=" + comma_list(ids),
                                  "--format=" + std::string(k_squeue_format)},
                                 m_options.query_timeout);
    const Result result = run(command);
    if (!result.ok()) {
      // All ids unknown (ended more than MinJobAge ago, or never existed).
      if (result.err.find("Invalid job id specified") != std::string::npos) {
        return {};
      }
      fail(command, result, "cannot query jobs");
    }
    return match_requested(ids, parse_squeue(result.out));
  }

  // Run `command`; a timeout or a missing tool becomes a Slurm error.
  static Result run(const Command& command)
  {
    try {
      return process::run(command);
    } catch (const process::TimeoutError& timeout) {
      TransientSlurmError error("{} did not answer in time", command.program);
      error.hint = std::string(timeout.what());
      throw error;
    } catch (const TransientSlurmError&) {
      throw;
    } catch (const SystemError& spawn) {
      SystemError error("{}", spawn.what());
      error.hint = "is Slurm installed and its tools on PATH?";
      throw error;
    }
  }

  // Throw the error that fits `result`: transient when Slurm was
  // unreachable, SlurmRejected for sbatch refusals, SystemError otherwise.
  [[noreturn]] static void fail(const Command& command,
                                const Result& result,
                                const std::string& what,
                                Refusal refusal = Refusal::system_error)
  {
    const std::string reason = slurm_error_reason(result.err);
    const std::string status = process::describe_status(result);
    const std::string hint = "command: " + process::to_display_string(command);
    if (is_transient_error(result.err)) {
      TransientSlurmError error("{}: Slurm did not answer ({}): {}",
                                std::filesystem::path(command.program)
                                  .filename()
                                  .string(),
                                status,
                                reason);
      error.hint = hint;
      throw error;
    }
    if (refusal == Refusal::rejected) {
      SlurmRejected error("{} ({}): {}", what, status, reason);
      error.slurm_message = reason;
      error.hint = hint;
      throw error;
    }
    SystemError error("{} ({}): {}", what, status, reason);
    error.hint = hint;
    throw error;
  }

  ClientOptions m_options;
};

} // namespace

std::unique_ptr<Client> make_cli_client(const ClientOptions& options)
{
  return std::make_unique<CliClient>(options);
}

} // namespace lg::slurm
