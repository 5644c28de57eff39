
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/util/bytes.cpp" "src/util/CMakeFiles/lg_util.dir/bytes.cpp.o" "gcc" "src/util/CMakeFiles/lg_util.dir/bytes.cpp.o.d"
  "/work/main/src/util/diagnostic.cpp" "src/util/CMakeFiles/lg_util.dir/diagnostic.cpp.o" "gcc" "src/util/CMakeFiles/lg_util.dir/diagnostic.cpp.o.d"
  "/work/main/src/util/edit_distance.cpp" "src/util/CMakeFiles/lg_util.dir/edit_distance.cpp.o" "gcc" "src/util/CMakeFiles/lg_util.dir/edit_distance.cpp.o.d"
  "/work/main/src/util/strings.cpp" "src/util/CMakeFiles/lg_util.dir/strings.cpp.o" "gcc" "src/util/CMakeFiles/lg_util.dir/strings.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
