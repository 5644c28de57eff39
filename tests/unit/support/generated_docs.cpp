#include "support/generated_docs.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace lg::testing {

void check_generated_section(const std::filesystem::path& doc, const std::string& table)
{
  const std::string begin = "<!-- catalogue:begin -->\n";
  const std::string end = "<!-- catalogue:end -->";
  std::ifstream in(doc);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  const auto b = text.find(begin);
  const auto e = text.find(end);
  REQUIRE_MESSAGE(b != std::string::npos, doc.string() << " has no " << begin);
  REQUIRE_MESSAGE(e != std::string::npos, doc.string() << " has no " << end);
  if (std::getenv("LG_UPDATE_DOCS") != nullptr) {
    text.replace(b + begin.size(), e - b - begin.size(), table);
    std::ofstream(doc) << text;
  }
  const auto table_end = text.find(end);
  CHECK(text.substr(b + begin.size(), table_end - b - begin.size()) == table);
}

} // namespace lg::testing
