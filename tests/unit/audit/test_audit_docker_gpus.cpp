// `docker run` in a job that asks Slurm for GPUs: the container gets a GPU
// only with --gpus (Docker docs, "docker container run", --gpus), the NVIDIA
// runtime (NVIDIA Container Toolkit docs, "Running a Sample Workload":
// `--runtime=nvidia --gpus all`) or a CDI device (`--device
// nvidia.com/gpu=all`); the daemon starts it outside the job's cgroup.
// Round 19's diffusion-policy array job ran `docker run -t -e … -v … IMAGE
// /bin/bash -c "… python3 …"` under `#SBATCH --gres=gpu:1`.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_gpu_job = "#!/bin/bash\n#SBATCH --gres=gpu:1\n";

}  // namespace

TEST_CASE("docker run without --gpus in a GPU job: a warning on the docker line")
{
  // An unset variable in a -v value is that value, not a hidden option.
  const AuditResult r =
    run(k_gpu_job + "docker run -t -e A=1 -v ${ROOT}:/workspace img /bin/bash -c \"python3 train.py --gpus 1\"\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.docker_gpus");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.fix.find("SLURM_JOB_GPUS") != std::string::npos);
}

TEST_CASE("docker run with --gpus, the NVIDIA runtime, a CDI device, an unreadable word, or no GPU asked: nothing")
{
  for (const std::string& options :
       {std::string("--gpus all"), std::string("--gpus=\"device=0\""), std::string("--runtime=nvidia"),
        std::string("--runtime nvidia"), std::string("--device nvidia.com/gpu=all"),
        std::string("-e NVIDIA_VISIBLE_DEVICES=0"), std::string("$DOCKER_ARGS")}) {
    CAPTURE(options);
    CHECK(with_rule(run(k_gpu_job + "docker run " + options + " img python3 train.py\n"), "audit.docker_gpus").empty());
  }
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --cpus-per-task=4\ndocker run img python3 prep.py\n"), "audit.docker_gpus")
          .empty());
}

// Round 24's 4-node job: `srun docker run --gpus all … IMAGE torchrun
// --nnodes=4 …` under `--gres=gpu:1`. Docker's default bridge network puts
// the container behind NAT (Docker docs, "Bridge network driver"), and
// `--gpus all` exposes every GPU of the node.
TEST_CASE("docker run of torchrun on several nodes without --network=host, and --gpus all on 1 GPU: warnings")
{
  const std::string head = "#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --gres=gpu:1\n#SBATCH --ntasks-per-node=1\n";
  const AuditResult r = run(head + "srun docker run --gpus all -v /d:/w img:1 torchrun --nnodes=4 t.py\n");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.docker_network").size() == 1);
  const auto gpus = with_rule(r, "audit.docker_all_gpus");
  REQUIRE(gpus.size() == 1);
  CHECK(gpus[0]->diagnostic.message.find("not the 1 Slurm allocated") != std::string::npos);
  const AuditResult host = run(head + "srun docker run --network=host --gpus \"device=0\" img torchrun --nnodes=4 t.py\n");
  CHECK(with_rule(host, "audit.docker_network").empty());
  CHECK(with_rule(host, "audit.docker_all_gpus").empty());
}

// `docker run [OPTIONS] IMAGE COMMAND…` (Docker docs, "docker container
// run"): the container's command is the launch. Round 24: torchrun --nnodes=4
// inside it, with neither a rendezvous endpoint nor a node rank.
TEST_CASE("the command docker runs is read as the launch")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=1\n"
                            "srun docker run --rm -it --network=host -v /d:/w -e A=1 img:1 torchrun --nnodes=4 "
                            "--nproc_per_node=1 train.py\n");
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.no_launch").empty());
  CHECK(with_rule(r, "audit.torchrun_node_rank").size() == 1);
}
