// apptainer/singularity exec --cleanenv: Apptainer's user guide,
// "Environment and Metadata": "--cleanenv … only the variables set by
// Apptainer" reach the container, plus those passed with --env / --env-file
// or as APPTAINERENV_NAME (SINGULARITYENV_NAME); --containall implies
// --cleanenv. Round 21's Pawsey ESM job exported OMP_NUM_THREADS=8 and ran
// `singularity exec --cleanenv … torchrun`.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("exports before `singularity exec --cleanenv`: one warning naming those lost")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=2\n"
                             "export OMP_NUM_THREADS=8\nexport NCCL_SOCKET_IFNAME=hsn\nexport SINGULARITYENV_NCCL_DEBUG=WARN\n"
                             "export NCCL_DEBUG=WARN\n"
                             "srun singularity exec --cleanenv img.sif torchrun --nnodes 2 --rdzv-backend c10d "
                             "--rdzv-endpoint h:1 train.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.container_cleanenv");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.severity == lg::Severity::warning);
  CHECK(found[0]->diagnostic.message.find("the exported OMP_NUM_THREADS, NCCL_SOCKET_IFNAME do not reach") !=
        std::string::npos);
}

TEST_CASE("no --cleanenv, every name passed with --env, or an --env-file: nothing")
{
  const char* scripts[] = {
    "#!/bin/bash\nexport OMP_NUM_THREADS=8\nsrun apptainer exec --nv img.sif python train.py\n",
    "#!/bin/bash\nexport OMP_NUM_THREADS=8\nsrun apptainer exec -e --env OMP_NUM_THREADS=8 img.sif python train.py\n",
    "#!/bin/bash\nexport OMP_NUM_THREADS=8\nsrun apptainer exec --cleanenv --env-file env.txt img.sif python train.py\n",
  };
  for (const char* script : scripts) {
    const AuditResult r = run(script);
    CAPTURE(script);
    CAPTURE(describe(r));
    CHECK(with_rule(r, "audit.container_cleanenv").empty());
  }
}
