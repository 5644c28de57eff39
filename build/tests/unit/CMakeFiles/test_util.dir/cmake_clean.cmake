file(REMOVE_RECURSE
  "CMakeFiles/test_util.dir/util/test_edit_distance.cpp.o"
  "CMakeFiles/test_util.dir/util/test_edit_distance.cpp.o.d"
  "CMakeFiles/test_util.dir/util/test_strings.cpp.o"
  "CMakeFiles/test_util.dir/util/test_strings.cpp.o.d"
  "test_util"
  "test_util.pdb"
  "test_util_tests-b858cb2.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_util.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
