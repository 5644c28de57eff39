#include "diagnose/category.hpp"

#include <array>

namespace lg::diagnose {

namespace {

struct Row
{
  Category category;
  std::string_view name;
  CategoryKind kind;
};

constexpr std::array k_rows = {
#define LG_CATEGORY_ROW(name, kind) Row{Category::name, #name, CategoryKind::kind},
  LG_FAILURE_CATEGORIES(LG_CATEGORY_ROW)
#undef LG_CATEGORY_ROW
};

const Row* find(std::string_view name)
{
  for (const Row& row : k_rows) {
    if (row.name == name) {
      return &row;
    }
  }
  return nullptr;
}

} // namespace

std::string_view to_string(Category category)
{
  return k_rows[static_cast<std::size_t>(category)].name;
}

std::optional<Category> parse_category(std::string_view name)
{
  const Row* row = find(name);
  return row != nullptr ? std::optional<Category>(row->category) : std::nullopt;
}

CategoryKind kind_of(Category category)
{
  return k_rows[static_cast<std::size_t>(category)].kind;
}

bool is_memory_failure(std::string_view name)
{
  const Row* row = find(name);
  return row != nullptr && row->kind == CategoryKind::memory;
}

bool is_infrastructure_failure(std::string_view name)
{
  const Row* row = find(name);
  return row != nullptr && row->kind == CategoryKind::infrastructure;
}

bool is_hang_failure(std::string_view name)
{
  const Row* row = find(name);
  return row != nullptr && row->kind == CategoryKind::hang;
}

bool is_failure(std::string_view name)
{
  return !name.empty() && name != to_string(Category::none);
}

const std::vector<Category>& all_categories()
{
  static const std::vector<Category> all = [] {
    std::vector<Category> out;
    for (const Row& row : k_rows) {
      out.push_back(row.category);
    }
    return out;
  }();
  return all;
}

} // namespace lg::diagnose
