// Test builders: small, valid JobSpecs that tests then modify.
#pragma once

#include "config/job_spec.hpp"

namespace lg::testing {

// Llama3-70B SFT on 32 x H100 80GB: TP4 PP4 VPP5 DP2 MBS1 GBS32 seq 4096
// FP8-CS, SP, distributed optimizer — the source document's baseline case.
config::JobSpec llama3_70b_sft();

// A tiny dense model on one 8-GPU H100 node, TP1 PP1, bf16.
config::JobSpec minimal_job_spec();

} // namespace lg::testing
