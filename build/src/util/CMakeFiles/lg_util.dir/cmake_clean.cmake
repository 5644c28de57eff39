file(REMOVE_RECURSE
  "CMakeFiles/lg_util.dir/bytes.cpp.o"
  "CMakeFiles/lg_util.dir/bytes.cpp.o.d"
  "CMakeFiles/lg_util.dir/diagnostic.cpp.o"
  "CMakeFiles/lg_util.dir/diagnostic.cpp.o.d"
  "CMakeFiles/lg_util.dir/edit_distance.cpp.o"
  "CMakeFiles/lg_util.dir/edit_distance.cpp.o.d"
  "CMakeFiles/lg_util.dir/strings.cpp.o"
  "CMakeFiles/lg_util.dir/strings.cpp.o.d"
  "liblg_util.a"
  "liblg_util.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lg_util.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
