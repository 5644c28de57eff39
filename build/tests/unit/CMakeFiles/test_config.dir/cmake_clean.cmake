file(REMOVE_RECURSE
  "CMakeFiles/test_config.dir/config/test_derived.cpp.o"
  "CMakeFiles/test_config.dir/config/test_derived.cpp.o.d"
  "CMakeFiles/test_config.dir/config/test_loader.cpp.o"
  "CMakeFiles/test_config.dir/config/test_loader.cpp.o.d"
  "CMakeFiles/test_config.dir/config/test_megatron_args.cpp.o"
  "CMakeFiles/test_config.dir/config/test_megatron_args.cpp.o.d"
  "test_config"
  "test_config.pdb"
  "test_config_tests-b858cb2.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_config.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
