#include "diagnose/timestamp.hpp"

#include <cctype>

namespace lg::diagnose {

namespace {

bool digits(std::string_view text, std::size_t at, std::size_t count, int& value)
{
  if (at + count > text.size()) {
    return false;
  }
  value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) {
      return false;
    }
    value = value * 10 + (text[i] - '0');
  }
  return true;
}

// Parse "HH:MM:SS[.frac|,frac]" at `at` into seconds since midnight.
std::optional<double> time_of_day(std::string_view text, std::size_t at)
{
  int hours = 0;
  int minutes = 0;
  int seconds = 0;
  if (!digits(text, at, 2, hours) || at + 8 > text.size() || text[at + 2] != ':' ||
      !digits(text, at + 3, 2, minutes) || text[at + 5] != ':' || !digits(text, at + 6, 2, seconds) ||
      hours > 23 || minutes > 59 || seconds > 60) {
    return std::nullopt;
  }
  double fraction = 0;
  std::size_t i = at + 8;
  if (i < text.size() && (text[i] == '.' || text[i] == ',')) {
    double scale = 0.1;
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0; ++i) {
      fraction += (text[i] - '0') * scale;
      scale /= 10;
    }
  }
  return hours * 3600.0 + minutes * 60.0 + seconds + fraction;
}

// "2024-04-20T09:09:37", "2024-07-17 19:44:06,829", "2025-05-21_15:43:03".
std::optional<Timestamp> iso_at(std::string_view text, std::size_t at)
{
  Timestamp stamp;
  if (!digits(text, at, 4, stamp.year) || at + 11 > text.size() || text[at + 4] != '-' ||
      !digits(text, at + 5, 2, stamp.month) || text[at + 7] != '-' ||
      !digits(text, at + 8, 2, stamp.day)) {
    return std::nullopt;
  }
  const char separator = text[at + 10];
  if (separator != 'T' && separator != ' ' && separator != '_') {
    return std::nullopt;
  }
  const auto seconds = time_of_day(text, at + 11);
  if (!seconds || stamp.month < 1 || stamp.month > 12 || stamp.day < 1 || stamp.day > 31) {
    return std::nullopt;
  }
  stamp.seconds = *seconds;
  return stamp;
}

// "[E626 06:24:44.903", "I0626 06:24:44.903": severity letter, month and
// day (month not always zero-padded), time.
std::optional<Timestamp> glog_at(std::string_view text, std::size_t at)
{
  const char severity = text[at];
  if (severity != 'I' && severity != 'W' && severity != 'E' && severity != 'F') {
    return std::nullopt;
  }
  for (const std::size_t width : {4u, 3u}) {
    int month_day = 0;
    if (!digits(text, at + 1, width, month_day) || at + 1 + width >= text.size() ||
        text[at + 1 + width] != ' ') {
      continue;
    }
    const auto seconds = time_of_day(text, at + 2 + width);
    Timestamp stamp{0, month_day / 100, month_day % 100, seconds.value_or(0)};
    if (seconds && stamp.month >= 1 && stamp.month <= 12 && stamp.day >= 1 && stamp.day <= 31) {
      return stamp;
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<Timestamp> find_timestamp(std::string_view line)
{
  for (std::size_t at = 0; at + 8 < line.size(); ++at) {
    const bool boundary = at == 0 || std::isalnum(static_cast<unsigned char>(line[at - 1])) == 0;
    if (!boundary) {
      continue;
    }
    if (auto stamp = iso_at(line, at)) {
      return stamp;
    }
    if (auto stamp = glog_at(line, at)) {
      return stamp;
    }
  }
  return std::nullopt;
}

int compare(const Timestamp& a, const Timestamp& b)
{
  if (a.year != 0 && b.year != 0 && a.year != b.year) {
    return a.year < b.year ? -1 : 1;
  }
  const double left = (a.month * 32 + a.day) * 86400.0 + a.seconds;
  const double right = (b.month * 32 + b.day) * 86400.0 + b.seconds;
  return left < right ? -1 : (left > right ? 1 : 0);
}

} // namespace lg::diagnose
