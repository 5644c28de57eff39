#include "config/job_json.hpp"

#include "config/toml_reader.hpp"
#include "util/error.hpp"
#include "util/nesting.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <limits>
#include <map>
#include <vector>

namespace lg::config {

namespace {

using nlohmann::json;

constexpr const char* k_job_json_hint =
  "write one job per line as a JSON object with the job file's sections, "
  "e.g. {\"model\": {\"preset\": \"llama3-8b\"}, \"cluster\": {\"nodes\": 1}}";

[[noreturn]] void throw_job_json_error(const std::string& display_name, const std::string& message)
{
  InputError error("{}: {}", display_name, message);
  error.hint = k_job_json_hint;
  throw error;
}

// Where each object key of the line starts: dotted path ("env.NCCL_DEBUG",
// "training.recompute.modules") -> 1-based byte column of its opening quote.
using JsonKeyColumns = std::map<std::string, std::uint32_t>;

// What the table builder needs besides the value: the line's name for
// messages, its number, and where its keys are.
struct JobJsonContext
{
  const std::string& display_name;
  std::uint32_t line;
  const JsonKeyColumns& columns;
};

// The TOML table or array of a JSON object or array at `path`
// ("parallelism.tp", for messages). Recursive: job_json_too_deep has bounded
// the depth before parsing.
toml::table job_json_table(const json& object, const std::string& path, const JobJsonContext& context);

toml::array job_json_array(const json& array, const std::string& path, const JobJsonContext& context);

// Add `value` to `out` through `insert` (a table's key or an array's end).
template<typename Insert>
void job_json_value(const json& value, const std::string& path, const JobJsonContext& context, Insert&& insert)
{
  const std::string& display_name = context.display_name;
  switch (value.type()) {
  case json::value_t::object: insert(job_json_table(value, path, context)); return;
  case json::value_t::array: insert(job_json_array(value, path, context)); return;
  case json::value_t::string:
    insert(value.get<std::string>());
    return;
  case json::value_t::boolean:
    insert(value.get<bool>());
    return;
  case json::value_t::number_integer:
    insert(value.get<std::int64_t>());
    return;
  case json::value_t::number_unsigned: {
    const auto number = value.get<std::uint64_t>();
    if (number > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      throw_job_json_error(display_name, fmt::format("{}: integer {} is out of range", path, number));
    }
    insert(static_cast<std::int64_t>(number));
    return;
  }
  case json::value_t::number_float:
    insert(value.get<double>());
    return;
  case json::value_t::null:
    throw_job_json_error(display_name,
                         fmt::format("{}: null is not a value a job file can hold (leave the key out for its default)",
                                     path));
  case json::value_t::binary:
  case json::value_t::discarded:
    break;
  }
  throw_job_json_error(display_name, fmt::format("{}: not a JSON value a job file can hold", path));
}

toml::table job_json_table(const json& object, const std::string& path, const JobJsonContext& context)
{
  toml::table table;
  for (const auto& item : object.items()) {
    // A named copy: clang 14 cannot capture a structured binding (C++20 P1091).
    const std::string& key = item.key();
    const std::string inner = path.empty() ? key : path + "." + key;
    // The key carries its place on the line, as a parsed TOML key does: the
    // schema walk locates findings and orders [env] by it.
    toml::source_region where;
    if (const auto column = context.columns.find(inner); column != context.columns.end()) {
      where.begin = {context.line, column->second};
      where.end = where.begin;
    }
    const toml::key located(key, std::move(where));
    job_json_value(item.value(), inner, context,
                   [&](auto&& node) { table.insert_or_assign(located, std::forward<decltype(node)>(node)); });
  }
  return table;
}

toml::array job_json_array(const json& array, const std::string& path, const JobJsonContext& context)
{
  toml::array out;
  std::size_t index = 0;
  for (const auto& value : array) {
    job_json_value(value, fmt::format("{}[{}]", path, index++), context,
                   [&](auto&& node) { out.push_back(std::forward<decltype(node)>(node)); });
  }
  return out;
}

// The columns of the object keys of `text`, valid JSON that nlohmann has
// parsed (so no error handling here); a repeated key keeps its last place,
// as its value is the last one. Paths are built as job_json_table builds
// them; array elements are "[i]".
JsonKeyColumns job_json_key_columns(std::string_view text)
{
  struct Open
  {
    std::string path;
    bool object;
    std::size_t index = 0;  // of the array element being read
  };
  JsonKeyColumns columns;
  std::vector<Open> open;
  std::string key;          // the last key read, until its value starts
  bool expect_key = false;  // inside an object, after '{' or ','
  auto element_path = [&]() {
    const Open& top = open.back();
    if (top.object) {
      return top.path.empty() ? key : top.path + "." + key;
    }
    return fmt::format("{}[{}]", top.path, top.index);
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t start = i;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        i += text[i] == '\\' ? 1 : 0;
      }
      if (expect_key) {
        key = json::parse(text.substr(start, i + 1 - start)).get<std::string>();
        columns[element_path()] = static_cast<std::uint32_t>(start + 1);
        expect_key = false;
      }
    } else if (c == '{' || c == '[') {
      std::string path = open.empty() ? std::string() : element_path();
      open.push_back({std::move(path), c == '{'});
      expect_key = c == '{';
    } else if ((c == '}' || c == ']') && !open.empty()) {
      open.pop_back();
      expect_key = false;
    } else if (c == ',' && !open.empty()) {
      open.back().index += 1;
      expect_key = open.back().object;
    }
  }
  return columns;
}

// The column where `text` first nests arrays/objects deeper than the limit,
// skipping strings; 0 when it does not. Run before parsing, so a line of a
// million '[' costs one pass, not a million nodes.
std::size_t job_json_too_deep(std::string_view text)
{
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > k_max_toml_depth) {
        return i + 1;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return 0;
}

// nlohmann's message without its "[json.exception.parse_error.101] parse
// error at line 1, column 5: " prefix (the location is printed already).
std::string job_json_parse_message(const char* what)
{
  const std::string_view message(what);
  const auto column = message.find("column ");
  const auto colon = column == std::string_view::npos ? column : message.find(": ", column);
  return std::string(colon == std::string_view::npos ? message : message.substr(colon + 2));
}

} // namespace

JobSpec load_job_json(std::string_view text, const std::string& file, int line, const LoadOptions& options)
{
  const std::string display_name = fmt::format("{}:{}", file, line);
  if (const std::size_t column = job_json_too_deep(text); column != 0) {
    throw_job_json_error(fmt::format("{}:{}", display_name, column),
                         fmt::format("nested more than {} levels", k_max_toml_depth));
  }
  json document;
  try {
    document = json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann counts bytes from 1; the text is one line, so the byte is the column.
    InputError error("{}:{}: invalid JSON: {}", display_name, e.byte, job_json_parse_message(e.what()));
    error.hint = k_job_json_hint;
    throw error;
  }
  if (!document.is_object()) {
    throw_job_json_error(display_name, fmt::format("a job must be a JSON object, got {}", document.type_name()));
  }
  const JsonKeyColumns columns = job_json_key_columns(text);
  const JobJsonContext context{display_name, static_cast<std::uint32_t>(line), columns};
  const toml::table table = job_json_table(document, "", context);
  return load_job_table(table, file, options, line);
}

} // namespace lg::config
