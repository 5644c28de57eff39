#include "first_rank.hpp"

#include "diagnose/diagnose.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace lg::bench {

namespace {

constexpr int k_ranks = 64;
constexpr int k_gpus_per_node = 8;

std::string node_of(int rank)
{
  return fmt::format("gpu-node{:03d}", rank / k_gpus_per_node);
}

// One line of one rank at `seconds` after the job start.
struct Line
{
  int rank = -1;  // -1: a line of the launcher or of Slurm (no rank)
  double seconds = 0;  // when it happened (its timestamp)
  std::string text;
  double written = -1;  // when it reached the log, if later (a buffered stderr flushed at exit)
};

double written_at(const Line& line)
{
  return line.written >= 0 ? line.written : line.seconds;
}

struct Scenario
{
  const char* name;
  const char* category;  // what the diagnosis should say
  bool peers_same_category;  // the consequences repeat the root cause's category
};

// The root cause's lines on `rank` at time `t` (upstream formats: PyTorch
// CUDACachingAllocator / c10 CUDA errors, faulthandler, ATen Indexing.cu,
// NCCL net_ib.cc, Slurm slurmstepd/srun, Megatron rerun_state_machine).
std::vector<Line> root_cause(const std::string& scenario, int rank, double t)
{
  const int dev = rank % k_gpus_per_node;
  const std::string node = node_of(rank);
  if (scenario == "cuda_oom") {
    return {{rank, t, "Traceback (most recent call last):"},
            {rank, t, "  File \"/opt/megatron/pretrain_gpt.py\", line 284, in <module>"},
            {rank, t, fmt::format("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {} has "
                                  "a total capacity of 79.10 GiB of which 1.21 GiB is free. Including non-PyTorch "
                                  "memory, this process has 77.88 GiB memory in use. Of the allocated memory 74.12 "
                                  "GiB is allocated by PyTorch, and 2.23 GiB is reserved by PyTorch but unallocated.",
                                  dev)}};
  }
  if (scenario == "ecc") {
    return {{rank, t, "RuntimeError: CUDA error: uncorrectable ECC error encountered"},
            {rank, t, "CUDA kernel errors might be asynchronously reported at some other API call, so the "
                      "stacktrace below might be incorrect."}};
  }
  if (scenario == "segfault") {
    return {{rank, t, "Fatal Python error: Segmentation fault"},
            {rank, t, "Thread 0x00007f2a5c7fe640 (most recent call first):"}};
  }
  if (scenario == "device_assert") {
    return {{rank, t, fmt::format("../aten/src/ATen/native/cuda/Indexing.cu:1289: indexSelectLargeIndex: block: "
                                  "[{},0,0], thread: [96,0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
                                  200 + rank)},
            {rank, t, "RuntimeError: CUDA error: device-side assert triggered"}};
  }
  if (scenario == "nccl_ib") {
    return {{rank, t, fmt::format("{}:{}:{} [{}] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from "
                                  "peer 10.0.0.7<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv)",
                                  node, 41000 + rank, 41100 + rank, dev)}};
  }
  if (scenario == "host_oom") {
    return {{-1, t, "slurmstepd: error: Detected 1 oom_kill event in StepId=4242.0. Some of the step tasks have been "
                    "OOM Killed."},
            {-1, t, fmt::format("srun: error: {}: task {}: Out Of Memory", node, rank)}};
  }
  // nan
  return {{rank, t, fmt::format("RuntimeError: Rank {}, node {}, device {}, iteration 1200: Unexpected result nan "
                                "(message='found NaN in local grad norm for bucket #0 in backward pass before "
                                "data-parallel communication collective')",
                                rank, node, dev)}};
}

// What the other ranks, the launcher and Slurm print after the root cause.
std::vector<Line> consequences(const Scenario& scenario, int failing, double t, std::mt19937& random)
{
  std::vector<Line> lines;
  std::bernoulli_distribution peer_sees_it(0.3);
  for (int rank = 0; rank < k_ranks; ++rank) {
    if (rank == failing) {
      continue;
    }
    const int dev = rank % k_gpus_per_node;
    // A broken link is seen by the failing rank's ring and tree neighbours;
    // a dead process by any peer that talks to it.
    const int distance = std::abs(rank - failing);
    const bool neighbour = distance == 1 || distance == k_gpus_per_node || distance == k_ranks - 1;
    if (scenario.peers_same_category ? neighbour : peer_sees_it(random)) {
      lines.push_back({rank, t + 2 + rank * 0.01,
                       scenario.peers_same_category
                         ? fmt::format("{}:{}:{} [{}] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion "
                                       "from peer 10.0.1.{}<54862> with status=5 opcode=0 len=0 vendor err 249 (Recv)",
                                       node_of(rank), 41000 + rank, 41100 + rank, dev, rank)
                         : fmt::format("{}:{}:{} [{}] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed "
                                       "by remote peer {}<51159>",
                                       node_of(rank), 41000 + rank, 41100 + rank, dev, node_of(failing))});
    }
    lines.push_back({rank, t + 600 + rank * 0.01,
                     fmt::format("[E501 14:31:07.408271257 ProcessGroupNCCL.cpp:607] [Rank {}] Watchdog caught "
                                 "collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, "
                                 "NumelOut=1, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.",
                                 rank)});
  }
  for (int node = 0; node < k_ranks / k_gpus_per_node; ++node) {
    lines.push_back({-1, t + 605, fmt::format("W0501 14:31:12.000000 140 torch/distributed/elastic/multiprocessing/"
                                              "api.py:897] Sending process {} closing signal SIGTERM", 9000 + node)});
  }
  for (int rank = 0; rank < k_ranks; rank += 5) {
    lines.push_back({-1, t + 610, fmt::format("srun: error: {}: task {}: Terminated", node_of(rank), rank)});
  }
  lines.push_back({-1, t + 611, "slurmstepd: error: *** STEP 4242.0 ON gpu-node000 CANCELLED AT 2024-05-01T14:31:30 ***"});
  return lines;
}

// The normal output before the failure: NCCL init lines (they name the
// host of each rank), iteration lines with alarming-looking words.
std::vector<Line> preamble(double until)
{
  std::vector<Line> lines;
  for (int rank = 0; rank < k_ranks; ++rank) {
    lines.push_back({rank, 1 + rank * 0.01,
                     fmt::format("{}:{}:{} [{}] NCCL INFO comm 0x55d4c8a0 rank {} nranks {} cudaDev {} busId {}000 - "
                                 "Init COMPLETE",
                                 node_of(rank), 41000 + rank, 41100 + rank, rank % k_gpus_per_node, rank, k_ranks,
                                 rank % k_gpus_per_node, rank % k_gpus_per_node + 1)});
  }
  for (double t = 10; t < until; t += 7) {
    lines.push_back({k_ranks - 1, t,
                     fmt::format(" iteration {:8d}/  500000 | lm loss: 2.3E+00 | loss scale: 1.0 | grad norm: 0.31 | "
                                 "number of skipped iterations:   0 | number of nan iterations:   0 |",
                                 static_cast<int>(t / 7))});
  }
  return lines;
}

std::string stamp(double seconds)
{
  const int whole = static_cast<int>(seconds);
  return fmt::format("2024-05-01 {:02d}:{:02d}:{:02d},{:03d} ", 12 + whole / 3600, whole / 60 % 60, whole % 60,
                     static_cast<int>((seconds - whole) * 1000));
}

struct Logs
{
  std::vector<std::string> names;
  std::vector<std::string> texts;
};

// One srun --label file ("17: [rank17]: …"), lines in time order.
Logs interleaved(std::vector<Line> lines, bool timed)
{
  std::stable_sort(lines.begin(), lines.end(),
                   [](const Line& a, const Line& b) { return written_at(a) < written_at(b); });
  Logs logs{{"job-4242.out"}, {""}};
  for (const Line& line : lines) {
    std::string& out = logs.texts[0];
    if (line.rank >= 0) {
      out += fmt::format("{}: [rank{}]:", line.rank, line.rank);
    }
    out += (timed ? stamp(line.seconds) : std::string()) + line.text + "\n";
  }
  return logs;
}

// One file per rank (srun -o logs/rank-%t.log or task%t), in shuffled order;
// launcher and Slurm lines go to the batch log, read last.
Logs per_rank(std::vector<Line> lines, bool timed, std::mt19937& random)
{
  std::stable_sort(lines.begin(), lines.end(),
                   [](const Line& a, const Line& b) { return written_at(a) < written_at(b); });
  std::vector<int> order(k_ranks);
  for (int i = 0; i < k_ranks; ++i) {
    order[i] = i;
  }
  std::shuffle(order.begin(), order.end(), random);
  std::map<int, std::size_t> slot;
  Logs logs;
  for (int rank : order) {
    slot[rank] = logs.names.size();
    logs.names.push_back(rank % 2 == 0 ? fmt::format("logs/rank-{}.log", rank) : fmt::format("logs/4242-task{}.err", rank));
    logs.texts.emplace_back();
  }
  logs.names.push_back("slurm-4242.out");
  logs.texts.emplace_back();
  for (const Line& line : lines) {
    std::string& out = logs.texts[line.rank >= 0 ? slot[line.rank] : logs.texts.size() - 1];
    out += (timed ? stamp(line.seconds) : std::string()) + line.text + "\n";
  }
  return logs;
}

struct Tally
{
  int runs = 0;
  int category = 0;
  int rank = 0;
  int host = 0;
};

} // namespace

double run_first_rank(const diagnose::Matcher& matcher, int trials_per_case)
{
  const Scenario scenarios[] = {
    {"cuda_oom", "cuda_oom_capacity", false}, {"ecc", "gpu_hardware", false},
    {"segfault", "segfault", false},          {"device_assert", "device_assert", false},
    {"nccl_ib", "nccl_error", true},          {"host_oom", "host_oom", false},
    {"nan", "loss_nan_divergence", false},
  };
  // "+late": the failing rank's lines reach the log after the others'
  // timeouts (its stderr was buffered), so only timestamps or the causal
  // rank can put it first.
  const char* layouts[] = {"interleaved", "interleaved+time", "interleaved+time+late", "interleaved+late",
                           "per-rank", "per-rank+time"};
  std::mt19937 random(4242);
  std::uniform_int_distribution<int> pick_rank(0, k_ranks - 1);
  std::map<std::string, Tally> by_case;
  Tally total;
  for (const Scenario& scenario : scenarios) {
    for (const std::string layout : layouts) {
      const bool timed = layout.find("+time") != std::string::npos;
      const bool late = layout.find("+late") != std::string::npos;
      if (scenario.peers_same_category && !timed && (layout == "per-rank" || late)) {
        continue;  // the same message on every rank and no time to order it: no order to find
      }
      for (int trial = 0; trial < trials_per_case; ++trial) {
        const int failing = pick_rank(random);
        const double t = 100 + trial;
        std::vector<Line> lines = preamble(t);
        for (auto& line : root_cause(scenario.name, failing, t)) {
          line.written = late ? t + 606 : -1;
          lines.push_back(std::move(line));
        }
        for (auto& line : consequences(scenario, failing, t, random)) {
          lines.push_back(std::move(line));
        }
        const Logs logs = layout.rfind("interleaved", 0) == 0 ? interleaved(lines, timed) : per_rank(lines, timed, random);
        std::vector<diagnose::LogFile> files;
        for (std::size_t i = 0; i < logs.names.size(); ++i) {
          files.push_back({logs.names[i], logs.texts[i]});
        }
        const auto d = diagnose::diagnose(files, matcher);
        Tally& tally = by_case[fmt::format("{:<14} {:<17}", scenario.name, layout)];
        const bool category = diagnose::is_same_or_refines(matcher.catalogue(), d.category, scenario.category);
        const bool rank = d.first_failing_rank == failing;
        const bool host = d.host == node_of(failing);
        for (Tally* t_ : {&tally, &total}) {
          ++t_->runs;
          t_->category += category ? 1 : 0;
          t_->rank += rank ? 1 : 0;
          t_->host += host ? 1 : 0;
        }
      }
    }
  }
  fmt::print("{:<32} {:>5} {:>9} {:>9} {:>9}\n", "scenario / layout", "runs", "category", "rank", "host");
  for (const auto& [name, t] : by_case) {
    fmt::print("{:<32} {:>5} {:>9.2f} {:>9.2f} {:>9.2f}\n", name, t.runs, double(t.category) / t.runs,
               double(t.rank) / t.runs, double(t.host) / t.runs);
  }
  const double share = total.runs == 0 ? 0.0 : double(total.rank) / total.runs;
  fmt::print("\nfirst failing rank named right: {}/{} = {:.3f}; host {}/{} = {:.3f}; root cause {}/{} = {:.3f}\n",
             total.rank, total.runs, share, total.host, total.runs, double(total.host) / total.runs, total.category,
             total.runs, double(total.category) / total.runs);
  return share;
}

} // namespace lg::bench
