add_library(lg_warnings INTERFACE)
target_compile_options(lg_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
  -Wcast-align -Wformat=2 -Wimplicit-fallthrough
  $<$<BOOL:${LG_DEV_MODE}>:-Werror>)
# Not -Wnull-dereference: with g++ 12 -O2 it fires inside Boost headers
# (Boost.Asio); kept off in case a Boost header that uses Asio is included.
# g++ 12 reports false -Wrestrict errors inside std::string's memcpy when
# optimising (GCC bug 105329); it fires on plain string concatenation.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(lg_warnings INTERFACE -Wno-restrict)
endif()
