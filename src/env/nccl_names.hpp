// The NCCL_* environment variable names that NCCL (any release in its public
// history) or PyTorch's NCCL process group reads; generated into
// nccl_names.cpp by scripts/gen-nccl-names. A name outside the list is read
// by nothing those two ship (a network or tuner plugin may still read it).
#pragma once

#include <span>
#include <string_view>

namespace lg::env {

bool nccl_reads(std::string_view name);
std::span<const std::string_view> nccl_names();  // sorted

}  // namespace lg::env
