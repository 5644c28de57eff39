# Every external dependency, with the Debian 12 package that provides it.
if(LG_STATIC)
  # One self-contained binary (cmake/Distribution.cmake links it -static):
  # find the archives (.a), not the shared objects. Debian 12 ships
  # libboost_program_options.a, libboost_filesystem.a and libre2.a; fmt and
  # toml++ come as shared libraries only, so both are compiled header-only.
  set(Boost_USE_STATIC_LIBS ON)
  set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
endif()
find_package(Boost 1.74 REQUIRED COMPONENTS program_options filesystem) # libboost-program-options-dev libboost-filesystem-dev
find_package(nlohmann_json 3.11 REQUIRED)      # nlohmann-json3-dev
find_package(PkgConfig REQUIRED)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2) # libre2-dev (no CMake config in 20220601)
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)                    # zlib1g-dev (gzip logs)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd) # libzstd-dev (zstd logs)
if(NOT LG_STATIC)
  find_package(yaml-cpp 0.7 REQUIRED)          # libyaml-cpp-dev (Megatron Bridge YAML)
else()
  # The package's CMake config names only the shared object; Debian 12 also
  # ships libyaml-cpp.a.
  find_library(LG_YAML_CPP_ARCHIVE libyaml-cpp.a REQUIRED)  # libyaml-cpp-dev
  find_path(LG_YAML_CPP_INCLUDE_DIR yaml-cpp/yaml.h REQUIRED)
  add_library(yaml-cpp STATIC IMPORTED)
  set_target_properties(yaml-cpp PROPERTIES
    IMPORTED_LOCATION ${LG_YAML_CPP_ARCHIVE}
    INTERFACE_INCLUDE_DIRECTORIES ${LG_YAML_CPP_INCLUDE_DIR})
endif()
if(NOT LG_STATIC)
  find_package(fmt 9 REQUIRED)                 # libfmt-dev
  find_package(tomlplusplus 3 REQUIRED)        # libtomlplusplus-dev (compiled shared library)
else()
  # Same target names, so no stage's CMakeLists.txt changes: fmt with
  # FMT_HEADER_ONLY, toml++ with TOML_HEADER_ONLY=1 (its implementation is
  # compiled into each translation unit that includes <toml++/toml.h>).
  find_path(LG_FMT_INCLUDE_DIR fmt/format-inl.h REQUIRED)   # libfmt-dev
  add_library(fmt::fmt INTERFACE IMPORTED)
  set_target_properties(fmt::fmt PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES ${LG_FMT_INCLUDE_DIR}
    INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
  find_path(LG_TOML_INCLUDE_DIR toml++/toml.h REQUIRED)     # libtomlplusplus-dev
  add_library(tomlplusplus::tomlplusplus INTERFACE IMPORTED)
  set_target_properties(tomlplusplus::tomlplusplus PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES ${LG_TOML_INCLUDE_DIR}
    INTERFACE_COMPILE_DEFINITIONS "TOML_HEADER_ONLY=1;TOML_SHARED_LIB=0")
endif()
# libkainjow-mustache-dev: header-only Mustache, <mustache.hpp>
find_path(MUSTACHE_INCLUDE_DIR mustache.hpp PATH_SUFFIXES kainjow REQUIRED)
if(LG_ENABLE_TESTS)
  find_package(doctest 2.4 REQUIRED)           # doctest-dev
  include(doctest)
endif()
