
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/config/derived.cpp" "src/config/CMakeFiles/lg_config.dir/derived.cpp.o" "gcc" "src/config/CMakeFiles/lg_config.dir/derived.cpp.o.d"
  "/work/main/src/config/loader.cpp" "src/config/CMakeFiles/lg_config.dir/loader.cpp.o" "gcc" "src/config/CMakeFiles/lg_config.dir/loader.cpp.o.d"
  "/work/main/src/config/megatron_args.cpp" "src/config/CMakeFiles/lg_config.dir/megatron_args.cpp.o" "gcc" "src/config/CMakeFiles/lg_config.dir/megatron_args.cpp.o.d"
  "/work/main/src/config/schema.cpp" "src/config/CMakeFiles/lg_config.dir/schema.cpp.o" "gcc" "src/config/CMakeFiles/lg_config.dir/schema.cpp.o.d"
  "/work/main/src/config/toml_reader.cpp" "src/config/CMakeFiles/lg_config.dir/toml_reader.cpp.o" "gcc" "src/config/CMakeFiles/lg_config.dir/toml_reader.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/src/util/CMakeFiles/lg_util.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
