#include "synthetic_log.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>

namespace lg::bench {

namespace {

constexpr int k_ranks = 64;

class Writer
{
public:
  explicit Writer(const std::string& path)
    : m_file(std::fopen(path.c_str(), "wb"))
  {
    if (m_file == nullptr) {
      throw std::runtime_error("cannot write " + path);
    }
  }
  ~Writer()
  {
    flush();
    std::fclose(m_file);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  template<typename... Args>
  void line(fmt::format_string<Args...> format, Args&&... args)
  {
    fmt::format_to(std::back_inserter(m_buffer), format, std::forward<Args>(args)...);
    m_buffer.push_back('\n');
    ++m_lines;
    if (m_buffer.size() > (8u << 20)) {
      flush();
    }
  }
  std::size_t bytes() const { return m_written + m_buffer.size(); }
  std::size_t lines() const { return m_lines; }

private:
  void flush()
  {
    std::fwrite(m_buffer.data(), 1, m_buffer.size(), m_file);
    m_written += m_buffer.size();
    m_buffer.clear();
  }
  std::FILE* m_file;
  fmt::memory_buffer m_buffer;
  std::size_t m_written = 0;
  std::size_t m_lines = 0;
};

void preamble(Writer& out)
{
  out.line("+ export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
  out.line("+ export CUDA_DEVICE_MAX_CONNECTIONS=1");
  for (int rank = 0; rank < k_ranks; ++rank) {
    out.line("{}: [rank{}]:[W Utils.hpp:164] Warning: Environment variable NCCL_DESYNC_DEBUG is deprecated; "
             "use TORCH_NCCL_DESYNC_DEBUG instead (function getCvarBool)", rank, rank);
    out.line("{}: node{:03d}:{}:{} [{}] NCCL INFO comm 0x55d4c8a0 rank {} nranks {} cudaDev {} busId {}000 - "
             "Init COMPLETE", rank, rank / 8, 41000 + rank, 41100 + rank, rank % 8, rank, k_ranks, rank % 8, rank % 8 + 1);
  }
  out.line("63:   loss_scale ...................................... None");
  out.line("63:   log_memory_to_tensorboard ....................... True");
}

void iteration(Writer& out, long it)
{
  const int second = static_cast<int>(it % 60);
  const int minute = static_cast<int>(it / 60 % 60);
  out.line("63:  [2024-05-01 {:02d}:{:02d}:{:02d}] iteration {:8d}/  500000 | consumed samples: {:12d} | "
           "elapsed time per iteration (ms): {:.1f} | learning rate: 1.000000E-04 | global batch size:  1024 | "
           "lm loss: {:.6E} | loss scale: 1.0 | grad norm: {:.3f} | number of skipped iterations:   0 | "
           "number of nan iterations:   0 |",
           12 + it / 3600 % 12, minute, second, it, it * 1024, 1200.0 + it % 97, 2.0 + (it % 1000) / 1000.0,
           0.2 + (it % 89) / 100.0);
  out.line("0: (min, max) time across ranks (ms):");
  out.line("0:     forward-backward ...............................: ({:.2f}, {:.2f})", 1180.0 + it % 13, 1190.0 + it % 17);
  out.line("0:     optimizer ......................................: ({:.2f}, {:.2f})", 20.0 + it % 7, 22.0 + it % 5);
  for (int rank = 0; rank < k_ranks; rank += 8) {
    out.line("{}: [Rank {}] (after {} iterations) memory (MB) | allocated: {:.1f} | max allocated: {:.1f} | "
             "reserved: {:.1f} | max reserved: {:.1f}", rank, rank, it, 31234.5 + rank, 51234.2 + rank,
             61234.0, 62000.0);
  }
  if (it % 50 == 0) {
    out.line("{}: /opt/megatron/megatron/core/tensor_parallel/layers.py:609: UserWarning: async_grad_allreduce is "
             "deprecated and will be removed in a future release. use overlap_grad_reduce instead.", it % k_ranks);
  }
}

void oom(Writer& out)
{
  const int rank = 17;
  out.line("{}: [rank{}]: Traceback (most recent call last):", rank, rank);
  out.line("{}: [rank{}]:   File \"/opt/megatron/pretrain_gpt.py\", line 284, in <module>", rank, rank);
  out.line("{}: [rank{}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total "
           "capacity of 79.10 GiB of which 1.21 GiB is free. Including non-PyTorch memory, this process has 77.88 "
           "GiB memory in use. Of the allocated memory 74.12 GiB is allocated by PyTorch, and 2.23 GiB is reserved "
           "by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
           "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)", rank, rank);
}

void teardown(Writer& out)
{
  for (int rank = 0; rank < k_ranks; ++rank) {
    if (rank == 17) {
      continue;
    }
    out.line("{}: [rank{}]:[E501 14:31:07.408271257 ProcessGroupNCCL.cpp:607] [Rank {}] Watchdog caught collective "
             "operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
             "ran for 600060 milliseconds before timing out.", rank, rank, rank);
  }
  out.line("srun: error: node002: task 17: Exited with exit code 1");
  out.line("slurmstepd: error: *** STEP 4242.0 ON node000 CANCELLED AT 2024-05-01T14:31:30 ***");
}

} // namespace

std::size_t write_synthetic_log(const std::string& path, std::size_t bytes)
{
  Writer out(path);
  preamble(out);
  std::size_t oom_line = 0;
  for (long it = 1; out.bytes() < bytes; ++it) {
    iteration(out, it);
    if (oom_line == 0 && out.bytes() >= bytes / 10 * 6) {
      oom(out);
      oom_line = out.lines();
    }
  }
  teardown(out);
  return oom_line;
}

} // namespace lg::bench
