
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/tests/unit/main.cpp" "tests/unit/CMakeFiles/lg_test_main.dir/main.cpp.o" "gcc" "tests/unit/CMakeFiles/lg_test_main.dir/main.cpp.o.d"
  "/work/main/tests/unit/support/builders.cpp" "tests/unit/CMakeFiles/lg_test_main.dir/support/builders.cpp.o" "gcc" "tests/unit/CMakeFiles/lg_test_main.dir/support/builders.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/src/config/CMakeFiles/lg_config.dir/DependInfo.cmake"
  "/work/main/build/src/util/CMakeFiles/lg_util.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
