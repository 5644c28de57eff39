// Parsing and printing PYTORCH_CUDA_ALLOC_CONF.
#include "env/allocator_conf.hpp"

#include <doctest/doctest.h>

using namespace lg;

TEST_CASE("parse_alloc_conf keeps order, trims, and reports malformed parts")
{
  const auto conf = env::parse_alloc_conf(" expandable_segments : True,,max_split_size_mb:512,bad ");
  REQUIRE(conf.entries.size() == 2);
  CHECK(conf.entries[0].key == "expandable_segments");
  CHECK(conf.entries[0].value == "True");
  CHECK(conf.get("max_split_size_mb") == "512");
  CHECK(conf.malformed == std::vector<std::string>{"bad"});
  CHECK(env::format_alloc_conf(conf) == "expandable_segments:True,max_split_size_mb:512");
}

TEST_CASE("AllocConf::set keeps position; erase removes")
{
  auto conf = env::parse_alloc_conf("a:1,b:2");
  conf.set("a", "3");
  conf.set("c", "4");
  CHECK(env::format_alloc_conf(conf) == "a:3,b:2,c:4");
  conf.erase("b");
  CHECK(env::format_alloc_conf(conf) == "a:3,c:4");
  CHECK(env::parse_alloc_conf("").empty());
}

TEST_CASE("Only PyTorch's spelling of true counts")
{
  CHECK(env::alloc_value_is_true("True"));
  CHECK_FALSE(env::alloc_value_is_true("true"));
  CHECK_FALSE(env::alloc_value_is_true("1"));
}
