// Helpers shared by the render tests: the shipped templates and files.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace lg::testing {

inline std::string source_dir()
{
  return LG_SOURCE_DIR;
}

inline std::string read_text(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void write_text(const std::string& path, const std::string& text)
{
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// The text of templates/<name>.sbatch.mustache.
inline std::string shipped_template(const std::string& name)
{
  return read_text(source_dir() + "/templates/" + name + ".sbatch.mustache");
}

} // namespace lg::testing
