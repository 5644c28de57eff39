// Compressed test inputs made in process: gzip through zlib's deflate with
// the gzip wrapper (RFC 1952, what `gzip` writes) and zstd frames through
// libzstd (RFC 8878, what `zstd` writes), so the log readers are tested on
// the formats clusters store logs in without spawning the tools.
#pragma once

#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace lg::testing {

// `text` as one gzip member.
inline std::string gzip_member(std::string_view text)
{
  z_stream stream{};
  if (deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, static_cast<uLong>(text.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) {
    throw std::runtime_error("deflate did not finish");
  }
  return out;
}

// `text` as one zstd frame; `checksum`: with the optional content checksum
// the `zstd` tool writes by default (the library leaves it off).
inline std::string zstd_frame(std::string_view text, bool checksum)
{
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, checksum ? 1 : 0);
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const std::size_t size = ZSTD_compress2(context, out.data(), out.size(), text.data(), text.size());
  ZSTD_freeCCtx(context);
  if (ZSTD_isError(size) != 0) {
    throw std::runtime_error(ZSTD_getErrorName(size));
  }
  out.resize(size);
  return out;
}

// `lines` lines of a Megatron-like training log that compress as real logs
// do (numbers vary line to line, so the data is not one repeated string).
inline std::string varied_log_text(std::size_t lines)
{
  std::string text;
  std::uint32_t state = 12345;
  for (std::size_t i = 1; i <= lines; ++i) {
    state = state * 1664525u + 1013904223u;
    text += " [2024-05-01 12:00:00] iteration " + std::to_string(i)
            + "/ 100000 | consumed samples: " + std::to_string(i * 512)
            + " | lm loss: " + std::to_string(state % 100000) + " | grad norm: " + std::to_string(state >> 20) + " |\n";
  }
  return text;
}

}  // namespace lg::testing
