
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/main.cpp" "src/cli/CMakeFiles/launchguard.dir/__/main.cpp.o" "gcc" "src/cli/CMakeFiles/launchguard.dir/__/main.cpp.o.d"
  "/work/main/src/cli/check.cpp" "src/cli/CMakeFiles/launchguard.dir/check.cpp.o" "gcc" "src/cli/CMakeFiles/launchguard.dir/check.cpp.o.d"
  "/work/main/src/cli/commands.cpp" "src/cli/CMakeFiles/launchguard.dir/commands.cpp.o" "gcc" "src/cli/CMakeFiles/launchguard.dir/commands.cpp.o.d"
  "/work/main/src/cli/data_paths.cpp" "src/cli/CMakeFiles/launchguard.dir/data_paths.cpp.o" "gcc" "src/cli/CMakeFiles/launchguard.dir/data_paths.cpp.o.d"
  "/work/main/src/cli/estimate.cpp" "src/cli/CMakeFiles/launchguard.dir/estimate.cpp.o" "gcc" "src/cli/CMakeFiles/launchguard.dir/estimate.cpp.o.d"
  "/work/main/src/cli/estimate_output.cpp" "src/cli/CMakeFiles/launchguard.dir/estimate_output.cpp.o" "gcc" "src/cli/CMakeFiles/launchguard.dir/estimate_output.cpp.o.d"
  "/work/main/src/cli/job_input.cpp" "src/cli/CMakeFiles/launchguard.dir/job_input.cpp.o" "gcc" "src/cli/CMakeFiles/launchguard.dir/job_input.cpp.o.d"
  "/work/main/src/cli/output.cpp" "src/cli/CMakeFiles/launchguard.dir/output.cpp.o" "gcc" "src/cli/CMakeFiles/launchguard.dir/output.cpp.o.d"
  "/work/main/src/cli/pending.cpp" "src/cli/CMakeFiles/launchguard.dir/pending.cpp.o" "gcc" "src/cli/CMakeFiles/launchguard.dir/pending.cpp.o.d"
  "/work/main/src/cli/preflight.cpp" "src/cli/CMakeFiles/launchguard.dir/preflight.cpp.o" "gcc" "src/cli/CMakeFiles/launchguard.dir/preflight.cpp.o.d"
  "/work/main/src/cli/presets.cpp" "src/cli/CMakeFiles/launchguard.dir/presets.cpp.o" "gcc" "src/cli/CMakeFiles/launchguard.dir/presets.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/src/config/CMakeFiles/lg_config.dir/DependInfo.cmake"
  "/work/main/build/src/estimate/CMakeFiles/lg_estimate.dir/DependInfo.cmake"
  "/work/main/build/src/rules/CMakeFiles/lg_rules.dir/DependInfo.cmake"
  "/work/main/build/src/util/CMakeFiles/lg_util.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
