file(REMOVE_RECURSE
  "CMakeFiles/launchguard.dir/__/main.cpp.o"
  "CMakeFiles/launchguard.dir/__/main.cpp.o.d"
  "launchguard"
  "launchguard.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/launchguard.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
