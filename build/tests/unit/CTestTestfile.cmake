# CMake generated Testfile for 
# Source directory: /work/main/tests/unit
# Build directory: /work/main/build/tests/unit
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build/tests/unit/test_util_include-b858cb2.cmake")
include("/work/main/build/tests/unit/test_config_include-b858cb2.cmake")
include("/work/main/build/tests/unit/test_estimate_include-b858cb2.cmake")
include("/work/main/build/tests/unit/test_env_include-b858cb2.cmake")
include("/work/main/build/tests/unit/test_rules_include-b858cb2.cmake")
include("/work/main/build/tests/unit/test_render_include-b858cb2.cmake")
include("/work/main/build/tests/unit/test_watch_include-b858cb2.cmake")
include("/work/main/build/tests/unit/test_launch_include-b858cb2.cmake")
