file(REMOVE_RECURSE
  "CMakeFiles/launchguard.dir/__/main.cpp.o"
  "CMakeFiles/launchguard.dir/__/main.cpp.o.d"
  "CMakeFiles/launchguard.dir/check.cpp.o"
  "CMakeFiles/launchguard.dir/check.cpp.o.d"
  "CMakeFiles/launchguard.dir/commands.cpp.o"
  "CMakeFiles/launchguard.dir/commands.cpp.o.d"
  "CMakeFiles/launchguard.dir/data_paths.cpp.o"
  "CMakeFiles/launchguard.dir/data_paths.cpp.o.d"
  "CMakeFiles/launchguard.dir/estimate.cpp.o"
  "CMakeFiles/launchguard.dir/estimate.cpp.o.d"
  "CMakeFiles/launchguard.dir/estimate_output.cpp.o"
  "CMakeFiles/launchguard.dir/estimate_output.cpp.o.d"
  "CMakeFiles/launchguard.dir/job_input.cpp.o"
  "CMakeFiles/launchguard.dir/job_input.cpp.o.d"
  "CMakeFiles/launchguard.dir/output.cpp.o"
  "CMakeFiles/launchguard.dir/output.cpp.o.d"
  "CMakeFiles/launchguard.dir/pending.cpp.o"
  "CMakeFiles/launchguard.dir/pending.cpp.o.d"
  "CMakeFiles/launchguard.dir/preflight.cpp.o"
  "CMakeFiles/launchguard.dir/preflight.cpp.o.d"
  "CMakeFiles/launchguard.dir/presets.cpp.o"
  "CMakeFiles/launchguard.dir/presets.cpp.o.d"
  "launchguard"
  "launchguard.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/launchguard.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
