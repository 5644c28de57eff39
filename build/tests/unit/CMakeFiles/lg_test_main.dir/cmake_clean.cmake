file(REMOVE_RECURSE
  "CMakeFiles/lg_test_main.dir/main.cpp.o"
  "CMakeFiles/lg_test_main.dir/main.cpp.o.d"
  "CMakeFiles/lg_test_main.dir/support/builders.cpp.o"
  "CMakeFiles/lg_test_main.dir/support/builders.cpp.o.d"
  "liblg_test_main.a"
  "liblg_test_main.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lg_test_main.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
