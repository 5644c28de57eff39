
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/tests/unit/config/test_derived.cpp" "tests/unit/CMakeFiles/test_config.dir/config/test_derived.cpp.o" "gcc" "tests/unit/CMakeFiles/test_config.dir/config/test_derived.cpp.o.d"
  "/work/main/tests/unit/config/test_loader.cpp" "tests/unit/CMakeFiles/test_config.dir/config/test_loader.cpp.o" "gcc" "tests/unit/CMakeFiles/test_config.dir/config/test_loader.cpp.o.d"
  "/work/main/tests/unit/config/test_megatron_args.cpp" "tests/unit/CMakeFiles/test_config.dir/config/test_megatron_args.cpp.o" "gcc" "tests/unit/CMakeFiles/test_config.dir/config/test_megatron_args.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/tests/unit/CMakeFiles/lg_test_main.dir/DependInfo.cmake"
  "/work/main/build/src/config/CMakeFiles/lg_config.dir/DependInfo.cmake"
  "/work/main/build/src/util/CMakeFiles/lg_util.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
