# Every external dependency, with the Debian 12 package that provides it.
find_package(Boost 1.74 REQUIRED COMPONENTS program_options filesystem) # libboost-program-options-dev libboost-filesystem-dev
find_package(fmt 9 REQUIRED)                   # libfmt-dev
find_package(tomlplusplus 3 REQUIRED)          # libtomlplusplus-dev (compiled shared library)
find_package(nlohmann_json 3.11 REQUIRED)      # nlohmann-json3-dev
find_package(PkgConfig REQUIRED)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2) # libre2-dev (no CMake config in 20220601)
find_package(Threads REQUIRED)
# libkainjow-mustache-dev: header-only Mustache, <mustache.hpp>
find_path(MUSTACHE_INCLUDE_DIR mustache.hpp PATH_SUFFIXES kainjow REQUIRED)
if(LG_ENABLE_TESTS)
  find_package(doctest 2.4 REQUIRED)           # doctest-dev
  include(doctest)
endif()
