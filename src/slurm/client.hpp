// Everything launchguard asks of Slurm, behind one interface (ninja's
// CommandRunner): cli_client.cpp implements it with the Slurm command-line
// tools, FakeClient (fake_client.hpp) with canned states for unit tests.
#pragma once

#include "slurm/errors.hpp"
#include "slurm/job_status.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lg::slurm {

struct SubmitOptions
{
  // Passed to sbatch before the script, e.g. {"--account=research"}.
  std::vector<std::string> extra_args;
  // Our run id + attempt ("lg:20261129-1a2b:a1"), stored as the job's
  // --comment so that find_by_tag can find the job after an sbatch timeout.
  std::string tag;
  // --job-name; empty leaves the script's #SBATCH --job-name (or Slurm's
  // default) alone.
  std::string job_name;
};

class Client
{
public:
  virtual ~Client() = default;

  // Submit the batch script in `script` (a file) and return the new job id.
  // Throws SlurmRejected if sbatch refuses the job, TransientSlurmError if
  // Slurm could not be reached (the job may still have been queued: check
  // find_by_tag(options.tag) before submitting again).
  virtual JobId submit_file(const std::filesystem::path& script,
                            const SubmitOptions& options) = 0;

  // As submit_file, with the script text fed to sbatch on stdin.
  virtual JobId submit_text(std::string_view script,
                            const SubmitOptions& options) = 0;

  // Return the state of each job in `ids` that Slurm still knows, in one
  // call to Slurm for all of them (the polling budget of watch depends on
  // it). Ids Slurm does not know are omitted. A job that just ended may
  // first come from squeue (source == squeue, no exit code, no steps) before
  // its accounting record arrives: poll again for those. Throws
  // TransientSlurmError if Slurm cannot answer.
  virtual std::vector<JobStatus> query(std::span<const JobId> ids) = 0;

  // Return the jobs of the current user whose comment or name contains
  // `tag`, pending, running or finished recently (7 days).
  virtual std::vector<JobStatus> find_by_tag(std::string_view tag) = 0;

  // Cancel job `id`. Cancelling a job that already ended is not an error.
  virtual void cancel(const JobId& id) = 0;

  // Return true if slurmctld answers.
  virtual bool ping() = 0;
};

struct ClientOptions
{
  // Directory holding sbatch/sacct/squeue/scancel/scontrol; empty = PATH.
  std::filesystem::path bin_dir;
  // Added to (or replacing) the environment of every Slurm command.
  std::map<std::string, std::string> env;
  std::chrono::milliseconds submit_timeout{std::chrono::seconds(60)};
  std::chrono::milliseconds query_timeout{std::chrono::seconds(30)};
};

// Return a Client that runs the Slurm command-line tools. The tools run
// without the caller's SLURM_*, SBATCH_*, SRUN_* and PMIX_* variables (so
// launchguard run inside a job does not pass the outer job's settings to
// sbatch); SLURM_CONF is kept.
std::unique_ptr<Client> make_cli_client(const ClientOptions& options = {});

} // namespace lg::slurm
