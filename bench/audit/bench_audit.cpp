// Audit speed: generate a 10,000-line sbatch script (directives, exports,
// arrays built up with +=, heredocs, comments, a few launch lines) and time
// audit_text on it; print the mean in milliseconds. Usage:
// bench_audit PRESETS_DIR [LINES] [REPEATS]
#include "audit/audit.hpp"
#include "config/loader.hpp"

#include <chrono>
#include <cstdio>
#include <string>

namespace {

std::string generate(int lines)
{
  std::string text = "#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --gpus-per-node=8\n#SBATCH --ntasks-per-node=1\n"
                     "#SBATCH --signal=TERM@120\nset -euo pipefail\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n";
  int n = 7;
  for (int i = 0; n < lines - 12; ++i) {
    switch (i % 6) {
    case 0:
      text += "export NCCL_VAR_" + std::to_string(i) + "=\"value-${SLURM_JOB_NUM_NODES}-" + std::to_string(i) + "\"\n";
      break;
    case 1:
      text += "ARGS+=(--extra-flag-" + std::to_string(i % 97) + " " + std::to_string(i) + ")  # tuning\n";
      break;
    case 2:
      text += "if [ -d /scratch/" + std::to_string(i) + " ]; then echo \"found $i\" >> log.txt; fi\n";
      break;
    case 3:
      text += "cat > cfg_" + std::to_string(i) + ".yaml <<EOF\nkey: " + std::to_string(i) + "\nEOF\n";
      ++n;
      ++n;
      break;
    case 4:
      text += "STEP=$((STEP_BASE * " + std::to_string(i) + " + 1))\n";
      break;
    default:
      text += "srun --ntasks-per-node=1 hostname | sort > hosts_" + std::to_string(i) + ".txt\n";
    }
    ++n;
  }
  text += "GPT_ARGS=(\n  --tensor-model-parallel-size 4 --pipeline-model-parallel-size 2\n"
          "  --num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 4096\n"
          "  --micro-batch-size 1 --global-batch-size 64 --use-distributed-optimizer --exit-signal-handler\n)\n"
          "srun --ntasks-per-node=1 python -m torch.distributed.run --nnodes \"$SLURM_JOB_NUM_NODES\" "
          "--nproc_per_node 8 pretrain_gpt.py \"${GPT_ARGS[@]}\" \"${ARGS[@]}\"\n";
  return text;
}

} // namespace

int main(int argc, char** argv)
{
  const std::string presets = argc > 1 ? argv[1] : "presets";
  const int lines = argc > 2 ? std::stoi(argv[2]) : 10000;
  const int repeats = argc > 3 ? std::stoi(argv[3]) : 20;
  lg::config::LoadOptions load;
  load.preset_dirs = {presets};
  lg::config::JobSpec probe;
  lg::config::resolve_gpu(probe, load);
  lg::audit::AuditOptions options;
  options.gpu = probe.cluster.gpu_info;
  const std::string text = generate(lines);
  std::size_t line_count = 0;
  for (char c : text) {
    line_count += c == '\n' ? 1 : 0;
  }
  std::size_t findings = lg::audit::audit_text(text, "bench.sbatch", options).findings.size();  // warm-up
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) {
    findings = lg::audit::audit_text(text, "bench.sbatch", options).findings.size();
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / repeats;
  std::printf("audit: %zu lines, %zu bytes, %zu findings: %.2f ms per audit (mean of %d)\n", line_count, text.size(),
              findings, ms, repeats);
  return 0;
}
