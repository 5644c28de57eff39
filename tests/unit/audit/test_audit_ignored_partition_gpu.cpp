// A GPU named only on #SBATCH lines sbatch does not read: sbatch stops
// reading directives at the first command (sbatch(1), "The batch script may
// contain options preceded with "#SBATCH" before any executable commands"),
// so `#SBATCH --partition=h100` below `DIR=`pwd`` does not choose the
// partition, and its word is not the job's GPU. Round 18's Megatron job
// (left open there: the note said "GPU h100-80gb, the script names it on
// line 9").
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;

TEST_CASE("a GPU named on an #SBATCH line below the first command is not the job's GPU")
{
  // The preset names shipped in presets/gpus (as test_audit_shell.cpp's gpu_of).
  const std::vector<std::string> presets = {"a100-40gb", "a100-80gb", "b200",      "b300",
                                            "gb200",     "gb300",     "h100-80gb", "h200-141gb"};
  const std::string late = "#!/bin/bash\nDIR=`pwd`\n#SBATCH --partition=h100\n#SBATCH --nodes=1\nsrun python train.py\n";
  CHECK_FALSE(gpu_from_script(late, presets).has_value());
  // Read where sbatch reads it, the same word names the GPU.
  const std::string read = "#!/bin/bash\n#SBATCH --partition=h100\n#SBATCH --nodes=1\nDIR=`pwd`\nsrun python train.py\n";
  const auto hint = gpu_from_script(read, presets);
  REQUIRE(hint.has_value());
  CHECK(hint->preset == "h100-80gb");
  // A comment elsewhere still names it.
  CHECK(gpu_from_script("#!/bin/bash\n# runs on 8 H100 GPUs\nDIR=`pwd`\n#SBATCH --partition=h100\n", presets)
          .has_value());
}
