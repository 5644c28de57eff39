// Shell problems that make a job fail (issue 13, "real problems to find"):
// synthetic scripts, one pattern each; bash semantics from the bash manual,
// #SBATCH expansion from the sbatch man page.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("CRLF line ends: one error, and --fix converts them (only them)")
{
  const std::string script = "#!/bin/bash\r\n#SBATCH -N 1\r\nNCCL_DEBUG=WARN\r\nsrun python train.py \\\r\n  --x 1\r\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  REQUIRE(with_rule(r, "audit.crlf").size() == 1);
  CHECK(with_rule(r, "audit.crlf")[0]->diagnostic.severity == lg::Severity::error);
  const std::string fixed = apply_fixes(script, r.findings);
  CHECK(fixed == "#!/bin/bash\n#SBATCH -N 1\nNCCL_DEBUG=WARN\nsrun python train.py \\\n  --x 1\n");
}

TEST_CASE("#SBATCH values with $VAR are not expanded by sbatch")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=$NUM_NODES\n#SBATCH --output=%x-%j.out\nsrun python train.py\n");
  const auto found = with_rule(r, "audit.directive_unexpanded");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
}

TEST_CASE("#SBATCH -G $NUM_GPU after the first command: ignored there, and unexpanded once moved up")
{
  // sbatch(1): directives after the first command are not read, and #SBATCH values are not expanded.
  const AuditResult r = run("#!/bin/bash\nNUM_GPU=4\n#SBATCH -G $NUM_GPU\nsrun python train.py\n");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.directive_ignored").size() == 1);
  const auto found = with_rule(r, "audit.directive_unexpanded");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.starts_with("#SBATCH -G $NUM_GPU: "));  // as written, not "-G=$NUM_GPU"
  CHECK(found[0]->diagnostic.message.find("moved above the first command") != std::string::npos);
}

TEST_CASE("#SBATCH counts, times and memory holding a word: sbatch stops before queueing")
{
  // The messages are Slurm 22.05's (src/common/slurm_opt.c), as the local
  // cluster's sbatch --test-only prints them for the same lines.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=NN_2\n#SBATCH -n X\n#SBATCH -t TIME\n#SBATCH --mem=1.5G\n"
                            "#SBATCH --ntasks-per-node=8\nsrun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.directive_value");
  REQUIRE(found.size() == 4);
  CHECK(line_of(found[0]) == 2);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("\"NN_2\" is not a valid node count") != std::string::npos);
  CHECK(found[1]->diagnostic.message.find("Invalid numeric value \"X\" for --ntasks.") != std::string::npos);
  CHECK(found[2]->diagnostic.message.find("Invalid --time specification") != std::string::npos);
  CHECK(found[3]->diagnostic.message.find("Invalid --mem specification") != std::string::npos);
  // What sbatch accepts is not judged: ranges, day-hour times, units, UNLIMITED.
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=2-4\n#SBATCH -t 1-00:00\n#SBATCH --time=UNLIMITED\n#SBATCH --mem=200G\n"
                      "#SBATCH --mem=0\nsrun python train.py\n"),
                  "audit.directive_value")
          .empty());
  // Blanks left for the reader (a public Megatron-LM Singularity launcher).
  const AuditResult blank = run("#!/bin/bash\n#SBATCH --partition=             # <---- partition\n#SBATCH --nodes=2\n"
                                "srun python train.py\n");
  REQUIRE(with_rule(blank, "audit.directive_value").size() == 1);
  CHECK(line_of(with_rule(blank, "audit.directive_value")[0]) == 2);
  // --nodes=NUM_NODES names its option: a placeholder, reported once as such.
  const AuditResult own = run("#!/bin/bash\n#SBATCH --nodes=NUM_NODES\nsrun python train.py\n");
  CHECK(with_rule(own, "audit.directive_value").empty());
  CHECK(with_rule(own, "audit.placeholder").size() == 1);
  // $VAR and placeholders have their own findings, not a second one here.
  const AuditResult other = run("#!/bin/bash\n#SBATCH --nodes=$N\n#SBATCH --time=<time>\nsrun python train.py\n");
  CHECK(with_rule(other, "audit.directive_value").empty());
  CHECK(with_rule(other, "audit.directive_unexpanded").size() == 1);
}

TEST_CASE("#SBATCH lines sbatch does not read: indented, or behind '!'")
{
  // Seen with the local cluster's sbatch: an indented "#SBATCH --job-name" leaves
  // the job named after the script. "!#SBATCH --signal" is from a public DDP script.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=1\n  #SBATCH --time=10:00\n!#SBATCH --signal=SIGUSR1@90\n"
                            "##SBATCH --exclusive\nsrun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.directive_unread");
  REQUIRE(found.size() == 2);
  CHECK(line_of(found[0]) == 3);
  CHECK(line_of(found[1]) == 4);
  CHECK(found[1]->diagnostic.message.find("--signal=SIGUSR1@90") != std::string::npos);
  // Inside a heredoc the text is another script's (<<- strips its tabs).
  CHECK(with_rule(run("#!/bin/bash\ncat > job.sh <<-EOF\n\t#SBATCH --nodes=2\nEOF\nsbatch job.sh\n"), "audit.directive_unread").empty());
}

TEST_CASE("assignments in front of cd reach nothing that runs after it")
{
  // The shape of NeMo-Framework-Launcher output seen in public scripts:
  // `bash -c "TRANSFORMERS_OFFLINE=1 HYDRA_FULL_ERROR=1 NCCL_DEBUG=INFO cd /opt/NeMo; …"`.
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=1\nsrun bash -c \"NCCL_DEBUG=INFO HYDRA_FULL_ERROR=1 cd /opt/NeMo; "
                            "python3 -u train.py\"\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.prefix_assignment");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("NCCL_DEBUG HYDRA_FULL_ERROR are set in front of `cd`") != std::string::npos);
  // In front of the program they are what the author meant.
  CHECK(with_rule(run("#!/bin/bash\nNCCL_DEBUG=INFO srun python train.py\n"), "audit.prefix_assignment").empty());
}

TEST_CASE("a launch line whose program the audit cannot read says so once")
{
  // `srun -N NUM_NODES $@` (a public Megatron-DeepSpeed template) and a srun whose
  // bash -c runs docker: advice, never a silent pass.
  const AuditResult args_result = run("#!/bin/bash\n#SBATCH --nodes=2\nsrun -N 2 $@\n");
  const auto args = with_rule(args_result, "audit.no_launch");
  REQUIRE(args.size() == 1);
  CHECK(args[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(args[0]->diagnostic.message.find("the script's own arguments") != std::string::npos);
  const AuditResult docker_result = run("#!/bin/bash\n#SBATCH --nodes=2\nsrun bash -c \"docker run --gpus all img bash train.sh\"\n");
  const auto docker = with_rule(docker_result, "audit.no_launch");
  REQUIRE(docker.size() == 1);
  CHECK(docker[0]->diagnostic.message.find("docker") != std::string::npos);
  // A Python program is read: nothing to say.
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=1\nsrun python train.py\n"), "audit.no_launch").empty());
}

TEST_CASE("srun | tee without pipefail hides a failed run; with pipefail it does not")
{
  const std::string body = "#SBATCH -N 1\nsrun python train.py 2>&1 | tee log.txt\n";
  CHECK(with_rule(run("#!/bin/bash\nset -e\n" + body), "audit.pipe_status").size() == 1);
  CHECK(with_rule(run("#!/bin/bash\nset -eo pipefail\n" + body), "audit.pipe_status").empty());
  CHECK(with_rule(run("#!/bin/bash\nset -euo pipefail\n" + body), "audit.pipe_status").empty());
}

TEST_CASE("SBATCH_* input variables are unset inside the job")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 2\nsrun torchrun --nnodes $SBATCH_NODES train.py\n");
  CHECK(with_rule(r, "audit.sbatch_input_variable").size() == 1);
}

TEST_CASE("set -u with $1 stops the job; ${1:-default} does not")
{
  CHECK(with_rule(run("#!/bin/bash\nset -eu\nCONFIG=$1\nsrun python train.py --config $CONFIG\n"), "audit.nounset_positional").size() == 1);
  CHECK(with_rule(run("#!/bin/bash\nset -eu\nCONFIG=${1:-a.yaml}\nsrun python train.py\n"), "audit.nounset_positional").empty());
}

TEST_CASE("a value built from a variable assigned only later; a guarded default is not reported")
{
  const AuditResult r = run("#!/bin/bash\nexport TORCHELASTIC_ERROR_FILE=$TRAIN_PATH/err.json\nTRAIN_PATH=/data/run\n"
                            "srun python train.py\n");
  const auto found = with_rule(r, "audit.use_before_assignment");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 2);
  CHECK(with_rule(run("#!/bin/bash\nif [ -z \"$DIR\" ]; then\n  DIR=$(pwd)\nfi\nsrun python train.py\n"),
                  "audit.use_before_assignment")
          .empty());
}

TEST_CASE("no launch line read: said as advice, not silence")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH -N 1\necho hello\n");
  CHECK(with_rule(r, "audit.no_launch").size() == 1);
}

TEST_CASE("a parse error reported by the caller's bash -n becomes an error finding")
{
  AuditOptions options = h100_options();
  options.parse_error = [](const std::string&) { return std::make_optional(std::make_pair(3, std::string("syntax error"))); };
  const AuditResult r = run("#!/bin/bash\nif true; then\n  srun python train.py\n", options);
  const auto found = with_rule(r, "audit.parse_error");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
}

// The GPU presets shipped in presets/gpus (names only: the families and sizes are read from them).
std::optional<GpuHint> gpu_of(const std::string& text)
{
  static const std::vector<std::string> presets = {"a100-40gb", "a100-80gb", "b200",      "b300",
                                                   "gb200",     "gb300",     "h100-80gb", "h200-141gb"};
  return gpu_from_script(text, presets);
}

TEST_CASE("the GPU a script names: gres/constraint, NVL72 variables, one GPU in comments; GB200 needs 4 per node")
{
  CHECK(gpu_of("#SBATCH --gres=gpu:h100:8\n")->preset == "h100-80gb");
  CHECK(gpu_of("#SBATCH --gres=gpu:h100:8\n")->no_preset.empty());
  // GH200 is named, but its HBM (96 or 144 GB) has no single preset; its GPU
  // is a Hopper H100 (compute capability 9.0, NVIDIA GH200 Grace Hopper
  // Superchip datasheet), so the H100 preset lends its generation and the
  // name stays GH200's (issue 13: the note said "GPU h100-80gb").
  CHECK(gpu_of("#SBATCH --constraint=gh200\n")->preset == "h100-80gb");
  CHECK(gpu_of("#SBATCH --constraint=gh200\n")->name == "gh200");
  CHECK(gpu_of("#SBATCH --gres=gpu:h100:8\n")->name.empty());
  CHECK_FALSE(gpu_of("#SBATCH --constraint=gh200\n")->no_preset.empty());
  CHECK_FALSE(gpu_of("# GH200 nodes\n# or H100 nodes\n").has_value());  // two GPUs named: no guess
  // A memory size in the name picks the preset: A100 ships as SXM4-40GB and SXM4-80GB (NVIDIA A100 datasheet).
  CHECK(gpu_of("#SBATCH -p asus_a100x4_40gb\n")->preset == "a100-40gb");
  CHECK(gpu_of("#SBATCH -C a100-40\n")->preset == "a100-40gb");
  CHECK(gpu_of("#SBATCH --gres=gpu:a100_80g:4\n")->preset == "a100-80gb");
  CHECK(gpu_of("# 8 A100 40GB per node\n")->preset == "a100-40gb");
  CHECK_FALSE(gpu_of("#SBATCH -p h100_94gb\n").has_value());  // H100 NVL: no preset
  CHECK(gpu_of("export NVLINK_DOMAIN_SIZE=72\n")->preset == "gb200");
  CHECK(gpu_of("#SBATCH --gpus-per-node=4\n# 8 GB200 nodes\n")->preset == "gb200");
  CHECK_FALSE(gpu_of("#SBATCH --ntasks-per-node=8  # change to 4 for GB200\n"));
  CHECK_FALSE(gpu_of("# H100 or A100\n"));
  CHECK_FALSE(gpu_of("#SBATCH -N 2\n"));
}

TEST_CASE("an Ascend NPU from the CANN runtime's or HCCL's variables: no preset fits, and the hint says why")
{
  // CANN documentation, "Environment Variables": ASCEND_RT_VISIBLE_DEVICES,
  // ASCEND_GLOBAL_LOG_LEVEL; HCCL (Huawei Collective Communication Library):
  // HCCL_CONNECT_TIMEOUT, HCCL_SOCKET_IFNAME.
  for (const char* text : {"export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3\n", "export HCCL_CONNECT_TIMEOUT=1200\n"}) {
    CAPTURE(text);
    const auto hint = gpu_of(text);
    REQUIRE(hint.has_value());
    CHECK(hint->preset == "ascend");
    CHECK(hint->no_preset.find("Ascend NPU") != std::string::npos);
  }
  // A GPU the directives name comes first.
  CHECK(gpu_of("#SBATCH --gres=gpu:h100:8\nexport HCCL_CONNECT_TIMEOUT=1200\n")->preset == "h100-80gb");
  CHECK_FALSE(gpu_of("export NCCL_SOCKET_IFNAME=eth0\n"));
}

TEST_CASE("a GPU type in --gres that no preset matches is the script's GPU, not an assumed H100")
{
  // Slurm gres.conf: --gres=gpu:TYPE:COUNT names the type the nodes declare.
  const auto p6000 = gpu_of("#SBATCH --gres=gpu:p6000:2\n");
  REQUIRE(p6000.has_value());
  CHECK(p6000->preset == "p6000");
  CHECK(p6000->evidence == "#SBATCH --gres=gpu:p6000:2");
  // A count alone, a placeholder, or no count: nothing is said.
  CHECK_FALSE(gpu_of("#SBATCH --gres=gpu:4\n"));
  CHECK_FALSE(gpu_of("#SBATCH --gres=gpu:your_gpu_type:4\n"));
  CHECK_FALSE(gpu_of("#SBATCH --gres=gpu:p6000\n"));
  // A type a preset matches keeps its preset.
  CHECK(gpu_of("#SBATCH --gres=gpu:h100:8\n")->preset == "h100-80gb");
  // --gpus-per-node=[type:]number (sbatch(1)): round 17's Alvis job
  // (bench/audit/corpus.md) asked for --gpus-per-node=A40:4 and was noted
  // as an assumed H100 with no GPU named.
  const auto a40 = gpu_of("#SBATCH --gpus-per-node=A40:4\n");
  REQUIRE(a40.has_value());
  CHECK(a40->preset == "a40");
  CHECK(a40->evidence == "#SBATCH --gpus-per-node=A40:4");
  CHECK_FALSE(gpu_of("#SBATCH --gpus-per-node=4\n"));
}

TEST_CASE("an A100 with no memory size and AMD GPUs: no preset fits, and the hint says why")
{
  // TACC Lonestar6's gpu-a100 partition has A100 40GB (TACC Lonestar6 user guide), others 80GB.
  const auto a100 = gpu_of("#SBATCH --partition=gpu-a100\n");
  REQUIRE(a100.has_value());
  CHECK(a100->preset == "a100-40gb");  // for the generation (Ampere) only
  CHECK(a100->no_preset.find("a100-40gb and a100-80gb") != std::string::npos);
  // LUMI-G's partitions hold MI250X (docs.lumi-supercomputer.eu, Slurm partitions); ROCm's own variables.
  CHECK(gpu_of("#SBATCH --partition=standard-g\n")->preset == "amd");
  CHECK(gpu_of("#SBATCH --gres=gpu:mi250:8\n")->preset == "amd");
  CHECK(gpu_of("export MIOPEN_USER_DB_PATH=/tmp/x\n")->preset == "amd");
  CHECK(gpu_of("export ROCR_VISIBLE_DEVICES=$SLURM_LOCALID\n")->no_preset.find("AMD") != std::string::npos);
  CHECK_FALSE(gpu_of("#SBATCH --partition=standard\n").has_value());
}
