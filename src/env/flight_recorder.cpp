#include "env/flight_recorder.hpp"

#include <filesystem>

namespace lg::env {

namespace {

constexpr const char* k_flight_recorder_citation =
  "[PyTorch] torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp (TORCH_NCCL_TRACE_BUFFER_SIZE, "
  "TORCH_NCCL_DUMP_ON_TIMEOUT); torch/csrc/distributed/c10d/FlightRecorder.hpp, FlightRecorder.cpp "
  "(DebugInfoWriter, TORCH_NCCL_DEBUG_INFO_TEMP_FILE)";

} // namespace

std::string flight_recorder_prefix(const config::LaunchSpec& launch)
{
  const std::filesystem::path output(launch.output);
  const std::string dir = output.parent_path().string();
  if (dir.find('%') != std::string::npos) {
    return "";
  }
  if (!output.is_absolute() && launch.workdir != ".") {
    return "";
  }
  return (dir.empty() ? std::string() : dir + "/") + k_flight_recorder_job_file_prefix;
}

std::string flight_recorder_dump_prefix(const Environment& environment)
{
  const Variable* variable = environment.find("TORCH_NCCL_DEBUG_INFO_TEMP_FILE");
  return variable != nullptr && variable->action != Action::unset ? variable->value : std::string();
}

std::optional<Decision> flight_recorder_buffer_row(const JobFeatures&)
{
  return Decision{"2000", "env.torch_nccl_trace_buffer_size",
                  "NCCL flight recorder on: the last 2000 collective events per rank are kept in memory "
                  "(PyTorch 2.6+'s default; 0, the default before, records nothing), so a hang or a timeout "
                  "can be dumped; set it to 0 in [env] to turn the recorder off",
                  k_flight_recorder_citation};
}

std::optional<Decision> flight_recorder_dump_row(const JobFeatures&)
{
  return Decision{"1", "env.torch_nccl_dump_on_timeout",
                  "the NCCL watchdog writes each rank's flight-recorder buffer when a collective times out or "
                  "fails (PyTorch 2.6+'s default; off before), so a hang leaves per-rank dumps that name the "
                  "collective every rank waits in and the rank that never reached it",
                  k_flight_recorder_citation};
}

std::optional<Decision> flight_recorder_file_row(const JobFeatures& f)
{
  if (f.flight_recorder_prefix.empty()) {
    return std::nullopt;  // PyTorch's /tmp/nccl_trace_rank_ on each node
  }
  Decision decision{
    f.flight_recorder_prefix, "env.torch_nccl_debug_info_temp_file",
    "flight-recorder dumps next to the job's logs, one file per rank (the rank is appended: " + f.flight_recorder_prefix
      + "0, …) and per job (%j: the Slurm job id, which the job script fills in, so a retry's dumps "
        "do not overwrite the failed attempt's), where `launchguard diagnose` and `watch` find them; "
        "PyTorch's default, /tmp/nccl_trace_rank_, is on each node's own disk. Read them with "
        "`python -m torch.distributed.flight_recorder.fr_trace DIR --prefix nccl_trace_JOBID_rank_`",
    k_flight_recorder_citation};
  decision.per_job = true;
  return decision;
}

} // namespace lg::env
