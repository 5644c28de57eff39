#include "util/log_reader.hpp"

#include "util/error.hpp"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace lg {

namespace {

constexpr std::size_t k_input_bytes = 256u << 10;

// The compressed formats seen on clusters, by their magic bytes.
struct Magic
{
  std::string_view bytes;
  std::string_view format;
};
constexpr std::array<Magic, 6> k_magics = {{
  {"\x1f\x8b", "gzip"},
  {"\x28\xb5\x2f\xfd", "zstd"},
  {"BZh", "bzip2"},
  {"\xfd" "7zXZ", "xz"},
  {"\x04\x22\x4d\x18", "lz4"},
  {"PK\x03\x04", "zip"},
}};

std::string_view detect(std::string_view head)
{
  for (const auto& magic : k_magics) {
    if (head.starts_with(magic.bytes)) {
      return magic.format;
    }
  }
  return "plain";
}

} // namespace

// The bytes of the file after the peeked head, then its decoding.
struct LogReader::Decoder
{
  Decoder(InputFile file, std::string head)
    : in(std::move(file)),
      pending(std::move(head))
  {
  }
  virtual ~Decoder() = default;
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  virtual std::size_t read(char* buffer, std::size_t size) = 0;
  virtual std::string_view format() const = 0;

  // The raw bytes: the peeked head first.
  std::size_t raw(char* buffer, std::size_t size)
  {
    if (!pending.empty()) {
      const std::size_t n = std::min(size, pending.size());
      std::memcpy(buffer, pending.data(), n);
      pending.erase(0, n);
      return n;
    }
    return in.read(buffer, size);
  }

  [[noreturn]] void damaged(std::string_view why) const
  {
    InputError error("cannot read {} log '{}': {}", format(), in.name(), why);
    error.hint = "the file is damaged or cut short (still being written?); nothing in it was judged";
    throw error;
  }

  InputFile in;
  std::string pending;
};

namespace {

struct PlainDecoder final : LogReader::Decoder
{
  using Decoder::Decoder;
  std::size_t read(char* buffer, std::size_t size) override { return raw(buffer, size); }
  std::string_view format() const override { return "plain"; }
};

struct GzipDecoder final : LogReader::Decoder
{
  GzipDecoder(InputFile file, std::string head)
    : Decoder(std::move(file), std::move(head)),
      input(k_input_bytes)
  {
    if (inflateInit2(&stream, 15 + 16) != Z_OK) {
      damaged("zlib cannot start");
    }
  }
  ~GzipDecoder() override { inflateEnd(&stream); }
  GzipDecoder(const GzipDecoder&) = delete;
  GzipDecoder& operator=(const GzipDecoder&) = delete;

  std::string_view format() const override { return "gzip"; }

  std::size_t read(char* buffer, std::size_t size) override
  {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    const auto want = static_cast<uInt>(std::min<std::size_t>(size, 1u << 30));
    stream.avail_out = want;
    while (stream.avail_out == want) {
      if (stream.avail_in == 0 && !refill()) {
        if (!ended) {
          damaged("the gzip stream ends early");
        }
        break;
      }
      if (ended) {
        // Another member follows (cat a.gz b.gz): read it too, as zcat does.
        inflateReset(&stream);
        ended = false;
      }
      const int rc = inflate(&stream, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        ended = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        damaged(stream.msg != nullptr ? stream.msg : "bad gzip data");
      }
    }
    return want - stream.avail_out;
  }

  bool refill()
  {
    const std::size_t got = raw(reinterpret_cast<char*>(input.data()), input.size());
    stream.next_in = input.data();
    stream.avail_in = static_cast<uInt>(got);
    return got > 0;
  }

  z_stream stream{};
  std::vector<Bytef> input;
  bool ended = false;
};

struct ZstdDecoder final : LogReader::Decoder
{
  ZstdDecoder(InputFile file, std::string head)
    : Decoder(std::move(file), std::move(head)),
      context(ZSTD_createDCtx()),
      input(k_input_bytes)
  {
    if (context == nullptr) {
      damaged("libzstd cannot start");
    }
  }
  ~ZstdDecoder() override { ZSTD_freeDCtx(context); }
  ZstdDecoder(const ZstdDecoder&) = delete;
  ZstdDecoder& operator=(const ZstdDecoder&) = delete;

  std::string_view format() const override { return "zstd"; }

  std::size_t read(char* buffer, std::size_t size) override
  {
    ZSTD_outBuffer out{buffer, size, 0};
    while (out.pos == 0) {
      if (in_buffer.pos == in_buffer.size) {
        const std::size_t got = raw(input.data(), input.size());
        if (got == 0) {
          if (frame_open) {
            damaged("the zstd stream ends early");
          }
          break;
        }
        in_buffer = {input.data(), got, 0};
      }
      const std::size_t rc = ZSTD_decompressStream(context, &out, &in_buffer);
      if (ZSTD_isError(rc) != 0) {
        damaged(ZSTD_getErrorName(rc));
      }
      frame_open = rc != 0;  // 0: a frame ended exactly here
    }
    return out.pos;
  }

  ZSTD_DCtx* context;
  std::vector<char> input;
  ZSTD_inBuffer in_buffer{nullptr, 0, 0};
  bool frame_open = false;
};

} // namespace

LogReader::LogReader(const std::string& path)
{
  InputFile file(path, "log");
  std::string head(6, '\0');
  head.resize(file.read_full(head.data(), head.size()));
  const std::string_view format = detect(head);
  if (format == "gzip") {
    m_decoder = std::make_unique<GzipDecoder>(std::move(file), std::move(head));
  } else if (format == "zstd") {
    m_decoder = std::make_unique<ZstdDecoder>(std::move(file), std::move(head));
  } else if (format == "plain") {
    m_decoder = std::make_unique<PlainDecoder>(std::move(file), std::move(head));
  } else {
    InputError error("cannot read log '{}': it is {}-compressed; launchguard reads plain, gzip and zstd logs",
                     file.name(), format);
    error.hint = fmt::format("decompress it first, e.g. {} -dc FILE | launchguard diagnose -",
                             format == "zip" ? "unzip -p" : format);
    throw error;
  }
}

LogReader::~LogReader() = default;
LogReader::LogReader(LogReader&&) noexcept = default;
LogReader& LogReader::operator=(LogReader&&) noexcept = default;

std::size_t LogReader::read(char* buffer, std::size_t size)
{
  return size == 0 ? 0 : m_decoder->read(buffer, size);
}

const std::string& LogReader::name() const
{
  return m_decoder->in.name();
}

std::string_view LogReader::format() const
{
  return m_decoder->format();
}

} // namespace lg
