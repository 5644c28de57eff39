// NCCL_* names nothing reads. The list (src/env/nccl_names.cpp) is generated
// by scripts/gen-nccl-names from every commit of NVIDIA/nccl: NCCL_PARAM(Name,
// "SUFFIX", default) defines NCCL_SUFFIX (src/include/param.h), e.g.
// src/transport/net_ib/connect.cc `NCCL_PARAM(IbTimeout, "IB_TIMEOUT", 20)`,
// and ncclGetEnv("NCCL_SOCKET_IFNAME") reads a name directly
// (src/misc/socket.cc); PyTorch's ProcessGroupNCCL.hpp adds its own
// (NCCL_ASYNC_ERROR_HANDLING, NCCL_BLOCKING_WAIT …). No NCCL release reads
// NCCL_TIMEOUT: round 20's scripts set it believing it raises the collective
// timeout, which is torch.distributed's.
#include "audit_test_support.hpp"

#include "env/nccl_names.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("the generated list holds the names NCCL and PyTorch read, sorted, and not NCCL_TIMEOUT")
{
  CHECK(lg::env::nccl_reads("NCCL_IB_TIMEOUT"));
  CHECK(lg::env::nccl_reads("NCCL_SOCKET_IFNAME"));
  CHECK(lg::env::nccl_reads("NCCL_NVLS_ENABLE"));
  CHECK(lg::env::nccl_reads("NCCL_ASYNC_ERROR_HANDLING"));  // PyTorch's
  CHECK_FALSE(lg::env::nccl_reads("NCCL_TIMEOUT"));
  CHECK_FALSE(lg::env::nccl_reads("NCCL_SOCKET_IFNAM"));
  const auto names = lg::env::nccl_names();
  CHECK(names.size() > 300);
  CHECK(std::is_sorted(names.begin(), names.end()));
}

TEST_CASE("an NCCL_* name nothing reads: advice once, its other lines listed, with the timeout's real home")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=2\n"
                             "export NCCL_TIMEOUT=3600\n"
                             "export NCCL_IB_TIMEOUT=22\n"
                             "export NCCL_TIMEOUT=7200\n"
                             "srun python train.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.nccl_name_unread");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.severity == lg::Severity::advice);
  CHECK(found[0]->diagnostic.message.find("NCCL_TIMEOUT is read by no NCCL release") != std::string::npos);
  CHECK(found[0]->diagnostic.message.find("(set again on line 5)") != std::string::npos);
  CHECK(found[0]->diagnostic.fix.find("--distributed-timeout-minutes") != std::string::npos);
}

TEST_CASE("a misspelt NCCL name in the launch's own environment names the one meant")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=1\n"
                             "NCCL_SOCKET_IFNAM=eth0 srun python train.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.nccl_name_unread");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.fix == "did you mean NCCL_SOCKET_IFNAME?");
}

TEST_CASE("plugin names, read names, the script's own names, nccl-tests' names, unset names and AMD GPUs (RCCL reads its own) are not judged")
{
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=1\n"
                             "export NCCL_GPUDIRECTTCPX_SOCKET_IFNAME=eth1\n"  // GCP's TCPX plugin
                             "export NCCL_OFI_NIC_DUP_CONNS=4\n"             // aws-ofi-nccl
                             "export NCCL_DEBUG=INFO\n"
                             "export NCCL_IBEXT_DISABLE=1\n"                // nccl-rdma-sharp-plugins' IBext
                             "unset NCCL_TIMEOUT\n"
                             // the script's own switch (MLPerf's run.sub)
                             ": \"${NCCL_TEST:=1}\"\n"
                             "if [[ ${NCCL_TEST} -eq 1 ]]; then\n"
                             // nccl-tests read names of their own
                             "  NCCL_SPLIT_MASK=0x7 srun all_reduce_perf -b 8 -e 128M\n"
                             "fi\n"
                             "srun python train.py\n";
  const AuditResult r = run(script);
  CAPTURE(describe(r));
  CHECK(with_rule(r, "audit.nccl_name_unread").empty());

  AuditOptions amd = h100_options();
  amd.gpu_vendor = "amd";
  const AuditResult on_amd = run("#!/bin/bash\nexport NCCL_TIMEOUT=1\nsrun python train.py\n", amd);
  CHECK(with_rule(on_amd, "audit.nccl_name_unread").empty());
}

// NCCL manual, "Environment Variables", NCCL_IB_DISABLE: "Disable the IB/RoCE
// transport that is to be used by NCCL. Instead, NCCL will fall back to
// using IP sockets." Round 23's 2-node job set it next to NCCL_IB_HCA.
TEST_CASE("NCCL_IB_DISABLE=1 next to NCCL_IB_HCA on two nodes: a warning; alone or on one node: nothing")
{
  const std::string body = "export NCCL_IB_DISABLE=1\nexport NCCL_IB_HCA=mlx5_0\nsrun python train.py\n";
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=2\n" + body);
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.nccl_ib_disabled");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 3);
  CHECK(found[0]->diagnostic.message.find("so NCCL_IB_HCA has no effect") != std::string::npos);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=1\n" + body), "audit.nccl_ib_disabled").empty());
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=2\nexport NCCL_IB_DISABLE=1\nsrun python train.py\n"),
                  "audit.nccl_ib_disabled")
          .empty());
}

// Round 25's Alvis job: NCCL_IB_DISABLE=1 with NCCL_SOCKET_IFNAME=ib0, so
// NCCL's sockets run over IPoIB on a cluster that has InfiniBand.
TEST_CASE("NCCL_IB_DISABLE=1 with an ib* socket interface on two nodes: a warning")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=2\nexport NCCL_IB_DISABLE=1\nexport NCCL_SOCKET_IFNAME=ib0\n"
                            "srun python train.py\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.nccl_ib_disabled");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->diagnostic.message.find("NCCL_SOCKET_IFNAME=ib0") != std::string::npos);
  CHECK(with_rule(run("#!/bin/bash\n#SBATCH --nodes=2\nexport NCCL_IB_DISABLE=1\nexport NCCL_SOCKET_IFNAME=eth0\n"
                      "srun python train.py\n"),
                  "audit.nccl_ib_disabled")
          .empty());
}
