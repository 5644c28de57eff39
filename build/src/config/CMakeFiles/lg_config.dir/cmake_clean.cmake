file(REMOVE_RECURSE
  "CMakeFiles/lg_config.dir/derived.cpp.o"
  "CMakeFiles/lg_config.dir/derived.cpp.o.d"
  "CMakeFiles/lg_config.dir/loader.cpp.o"
  "CMakeFiles/lg_config.dir/loader.cpp.o.d"
  "CMakeFiles/lg_config.dir/megatron_args.cpp.o"
  "CMakeFiles/lg_config.dir/megatron_args.cpp.o.d"
  "CMakeFiles/lg_config.dir/schema.cpp.o"
  "CMakeFiles/lg_config.dir/schema.cpp.o.d"
  "CMakeFiles/lg_config.dir/toml_reader.cpp.o"
  "CMakeFiles/lg_config.dir/toml_reader.cpp.o.d"
  "liblg_config.a"
  "liblg_config.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lg_config.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
