// pyxis options on srun lines (src/audit/findings_container.cpp). Issue 13,
// round 17 (bench/audit/corpus.md): a public NeMo job built
// `--container-mounts=$DATA_DIR:/data,$RESULT_DIR/$EXP_NAME:/result:$MODELS:/pretrained`,
// a ',' short: pyxis reads each ','-separated entry as SRC:DST[:FLAGS] and
// takes everything after the second ':' as the flags (NVIDIA/pyxis args.c,
// parse_mount_option; the option's help "SRC:DST[:FLAGS][,SRC:DST...]"), so
// the model directory was never mounted. Each script is synthetic.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

namespace {

const std::string k_mount_head = "#!/bin/bash\n#SBATCH -N 1\n#SBATCH --ntasks-per-node=8\n#SBATCH --gpus-per-node=8\n";

}  // namespace

TEST_CASE("container: a path in a mount entry's flags is a second mount with its ',' missing")
{
  const AuditResult r =
    run(k_mount_head
        + "MOUNTS=\"--container-mounts=$DATA_DIR:/data,/home/me/run:/result:/gpfs/models:/pretrained\"\n"
          "srun --container-image=nvcr.io/nvidia/pytorch:24.01-py3 $MOUNTS python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.container_mounts");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.severity == lg::Severity::error);
  CHECK(found[0]->diagnostic.message.find("`/gpfs/models:/pretrained` is not mounted") != std::string::npos);
  CHECK(found[0]->diagnostic.fix.find("/home/me/run:/result,/gpfs/models:/pretrained") != std::string::npos);
  // Written on the srun line itself, the same.
  const AuditResult direct =
    run(k_mount_head + "srun --container-image=img.sqsh --container-mounts=/a:/a:/b:/b python train.py\n");
  CHECK(with_rule(direct, "audit.container_mounts").size() == 1);
}

TEST_CASE("container: mount flags, short forms and entries the script cannot read are left alone")
{
  for (const char* mounts :
       {"/tmp:/mnt:ro", "/tmp:/mnt:unbindable+ro", "/var/lib", "/a:/a,/b:/b", "$DATA:/data:$FLAGS"}) {
    const AuditResult r =
      run(k_mount_head + "srun --container-image=img.sqsh --container-mounts=" + mounts + " python train.py\n");
    CAPTURE(mounts);
    CAPTURE(describe(r));
    CHECK(with_rule(r, "audit.container_mounts").empty());
  }
}
