// The failure categories, each spelled once: the X-macro below is the only
// list. To add a category, add one row (name, kind) here and its
// [categories.<name>] entry (default fix) to signatures/default.toml;
// docs/failure-categories.md is generated from the catalogue.
//
// kind: `memory` (a memory fix on the retry ladder can help), `infrastructure`
// (the machine failed, not the job: resubmit unchanged with --retry-infra),
// `job` (only a person's change helps), `hang` (the job stopped advancing
// while Slurm ran it: resubmitted unchanged once per run, as a stuck peer or
// file system is often transient; a second hang is the job's own), `verdict`
// (unknown, none).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace lg::diagnose {

#define LG_FAILURE_CATEGORIES(X)              \
  X(cuda_oom_fragmentation, memory)           \
  X(cuda_oom_capacity, memory)                \
  X(cuda_oom_other_process, infrastructure)   \
  X(cuda_oom_in_nccl, memory)                 \
  X(cublas_cudnn_alloc_failed, memory)        \
  X(host_oom, job)                            \
  X(nccl_timeout, infrastructure)             \
  X(nccl_error, infrastructure)               \
  X(gpu_hardware, infrastructure)             \
  X(illegal_memory_access, job)               \
  X(slurm_time_limit, job)                    \
  X(slurm_preemption_or_node_failure, infrastructure) \
  X(cpu_offload_with_pp, job)                 \
  X(nccl_ub_expandable_segments, job)         \
  X(allocator_config_error, job)              \
  X(loss_nan_divergence, job)                 \
  X(config_error, job)                        \
  X(import_error, job)                        \
  X(segfault, job)                            \
  X(device_assert, job)                       \
  X(rendezvous_error, infrastructure)         \
  X(port_in_use, job)                         \
  X(disk_full_or_quota, job)                  \
  X(shm_exhausted, job)                       \
  X(hang_no_progress, hang)                   \
  X(unknown, verdict)                         \
  X(none, verdict)

enum class Category {
#define LG_CATEGORY_ENUM(name, kind) name,
  LG_FAILURE_CATEGORIES(LG_CATEGORY_ENUM)
#undef LG_CATEGORY_ENUM
};

enum class CategoryKind { memory, infrastructure, job, hang, verdict };

// The category's one spelling ("cuda_oom_fragmentation").
std::string_view to_string(Category category);

// The category spelled `name`, or nullopt.
std::optional<Category> parse_category(std::string_view name);

CategoryKind kind_of(Category category);

// True when `name` is a category of that kind (false for unknown names).
bool is_memory_failure(std::string_view name);
bool is_infrastructure_failure(std::string_view name);
bool is_hang_failure(std::string_view name);

// True when `name` is a failure: any category but none (an empty name is not).
bool is_failure(std::string_view name);

// Every category in the order above.
const std::vector<Category>& all_categories();

} // namespace lg::diagnose
