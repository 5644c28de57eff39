// A fresh directory under /tmp for one test, removed with everything in it.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace lg::testing {

struct TempDir
{
  std::filesystem::path path;
  explicit TempDir(const std::string& name = "lg-test")
  {
    std::string pattern = "/tmp/" + name + "-XXXXXX";
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

} // namespace lg::testing
