add_library(lg_warnings INTERFACE)
target_compile_options(lg_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
  -Wcast-align -Wformat=2 -Wimplicit-fallthrough
  $<$<BOOL:${LG_DEV_MODE}>:-Werror>)
# Not -Wnull-dereference: with g++ 12 -O2 it fires inside Boost.Asio code that
# Boost.Process pulls in (STYLE.md §2.8).
