// The dependency rule of ARCHITECTURE.md ("Folders and the dependency rule"),
// enforced: every `#include "<folder>/…"` in src/<folder> and
// tests/unit/<folder>, and every lg_<folder> on a library's link line, must
// be the folder itself or one it may depend on (directly or through the
// folders it may depend on). The table is read from ARCHITECTURE.md itself,
// so the document and the code cannot drift apart.
#include "repository/repository_files.hpp"

#include <doctest/doctest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

using Table = std::map<std::string, std::set<std::string>>;

// Rows "| `src/<folder>` | what | `dep`, `dep` |" of the folder table.
Table read_table()
{
  Table direct;
  std::istringstream in(lg::testing::project_text("ARCHITECTURE.md"));
  const std::regex row(R"(^\| `src/([a-z_]+)` \|.*\| ([^|]*) \|\s*$)");
  const std::regex name("`([a-z_]+)`");
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) {
      continue;
    }
    const std::string deps = m[2];
    auto& set = direct[m[1]];
    for (std::sregex_iterator it(deps.begin(), deps.end(), name), end; it != end; ++it) {
      set.insert((*it)[1]);
    }
    if (deps.starts_with("everything")) {
      set.insert("*");
    }
  }
  return direct;
}

// The folder plus everything reachable through "may depend on".
std::set<std::string> closure(const Table& table, const std::string& folder)
{
  std::set<std::string> seen{folder};
  std::vector<std::string> todo{folder};
  while (!todo.empty()) {
    const std::string next = todo.back();
    todo.pop_back();
    const auto it = table.find(next);
    if (it == table.end()) {
      continue;
    }
    for (const auto& dep : it->second) {
      if (dep == "*") {
        for (const auto& [other, ignored] : table) {
          if (other != "cli" && seen.insert(other).second) {
            todo.push_back(other);
          }
        }
      } else if (seen.insert(dep).second) {
        todo.push_back(dep);
      }
    }
  }
  return seen;
}

// The project folder an include line names, if any ("config" for
// `#include "config/job_spec.hpp"`).
std::vector<std::pair<int, std::string>> included_folders(const std::string& text, const Table& table)
{
  std::vector<std::pair<int, std::string>> out;
  std::istringstream in(text);
  const std::regex include(R"(^\s*#\s*include\s*"([a-z_]+)/)");
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::smatch m;
    if (std::regex_search(line, m, include) && table.count(m[1]) != 0) {
      out.emplace_back(number, m[1]);
    }
  }
  return out;
}

} // namespace

TEST_SUITE_BEGIN("repository");

TEST_CASE("dependency rule: ARCHITECTURE.md's folder table names every src folder")
{
  const Table table = read_table();
  REQUIRE(table.size() >= 10);
  CHECK(table.count("util") == 1);
  CHECK(table.at("util").empty());  // "nothing in the project"
  CHECK(table.at("cli").count("*") == 1);
  for (const auto& file : lg::testing::project_files()) {
    auto part = file.begin();
    if (part->string() != "src" || ++part == file.end() || std::next(part) == file.end()) {
      continue;
    }
    CHECK_MESSAGE(table.count(part->string()) == 1, "src/" << part->string() << " is not in ARCHITECTURE.md");
  }
}

TEST_CASE("dependency rule: no include and no link outside the folders a folder may use")
{
  const Table table = read_table();
  std::set<std::string> violations;
  for (const auto& file : lg::testing::project_files()) {
    auto part = file.begin();
    std::string folder;
    if (part->string() == "src") {
      folder = (++part)->string();
    } else if (part->string() == "tests" && (++part)->string() == "unit") {
      folder = (++part)->string();
    }
    if (table.count(folder) == 0 || std::next(part) == file.end()) {
      continue;
    }
    const auto allowed = closure(table, folder);
    const std::string text = lg::testing::project_text(file);
    for (const auto& [line, used] : included_folders(text, table)) {
      if (allowed.count(used) == 0) {
        violations.insert(file.string() + ":" + std::to_string(line) + ": includes " + used + "/ but " + folder
                          + " may not depend on " + used);
      }
    }
    if (file.filename() == "CMakeLists.txt" && file.begin()->string() == "src") {
      const std::regex link(R"(\blg_([a-z_]+)\b)");
      const std::string self = "lg_" + folder;
      const auto start = text.find("target_link_libraries(" + self);
      const std::string links = start == std::string::npos ? "" : text.substr(start, text.find(')', start) - start);
      for (std::sregex_iterator it(links.begin(), links.end(), link), end; it != end; ++it) {
        const std::string used = (*it)[1];
        if (table.count(used) != 0 && allowed.count(used) == 0) {
          violations.insert(file.string() + ": links lg_" + used + " but " + folder + " may not depend on " + used);
        }
      }
    }
  }
  for (const auto& v : violations) {
    MESSAGE(v);
  }
  CHECK(violations.empty());
}

TEST_CASE("dependency rule: the check sees a forbidden include")
{
  const Table table = read_table();
  const auto allowed = closure(table, "estimate");
  CHECK(allowed.count("config") == 1);
  CHECK(allowed.count("util") == 1);    // through config
  CHECK(allowed.count("env") == 0);     // estimate is judged with the allocator switch, never composes
  CHECK(allowed.count("cli") == 0);
  const auto used = included_folders("#include \"env/compose.hpp\"\n#include <vector>\n", table);
  REQUIRE(used.size() == 1);
  CHECK(used.front().second == "env");
  CHECK(closure(table, "cli").count("launch") == 1);
}

TEST_SUITE_END();
