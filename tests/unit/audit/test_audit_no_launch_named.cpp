// The no-launch advice names the command it could not follow instead of the
// generic text on line 1: `docker run IMAGE CMD` (when the container's
// command is not a launch the audit reads) and a program that is the script's own arguments
// (`exec "$@" train.py …`: bash runs the caller's words as the command, bash
// manual, "Special Parameters", `@`). Round 19's docker array job and a
// Megatron-LM `exec "$@" …/pretrain_multimodal.py` script.
#include "audit_test_support.hpp"

#include <doctest/doctest.h>

using namespace lg::audit;
using namespace lg::audit::testing;

TEST_CASE("no launch read: docker run and a caller's launcher are named on their line")
{
  // A container command that is no launch (an entry script); one that is,
  // is read (test_audit_docker_gpus.cpp).
  const AuditResult docker = run("#!/bin/bash\n#SBATCH --gres=gpu:1\ncd /work\ndocker run --gpus all img ./entry.sh\n");
  CAPTURE(describe(docker));
  const auto d = with_rule(docker, "audit.no_launch");
  REQUIRE(d.size() == 1);
  CHECK(line_of(d[0]) == 4);
  CHECK(d[0]->diagnostic.message.find("runs `docker run`") != std::string::npos);

  const AuditResult caller = run("#!/usr/bin/env bash\nset -euo pipefail\nROOT=\"$(pwd)\"\n"
                                 "exec \"$@\" \"$ROOT/pretrain_gpt.py\" \\\n    --num-layers 4\n");
  CAPTURE(describe(caller));
  const auto p = with_rule(caller, "audit.no_launch");
  REQUIRE(p.size() == 1);
  CHECK(line_of(p[0]) == 4);
  CHECK(p[0]->diagnostic.message.find("the launcher the script's caller passes (`\"$@\"`) on pretrain_gpt.py")
        != std::string::npos);
}

TEST_CASE("no launch read and nothing to name: the generic advice on line 1")
{
  const AuditResult r = run("#!/bin/bash\n#SBATCH --nodes=1\nmkdir -p out\n./run_all.sh\n");
  CAPTURE(describe(r));
  const auto found = with_rule(r, "audit.no_launch");
  REQUIRE(found.size() == 1);
  CHECK(line_of(found[0]) == 1);
}
