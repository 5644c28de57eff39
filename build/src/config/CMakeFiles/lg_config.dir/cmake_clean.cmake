file(REMOVE_RECURSE
  "CMakeFiles/lg_config.dir/derived.cpp.o"
  "CMakeFiles/lg_config.dir/derived.cpp.o.d"
  "liblg_config.a"
  "liblg_config.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lg_config.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
