add_library(lg_settings INTERFACE)
target_compile_definitions(lg_settings INTERFACE
  $<$<CONFIG:Debug>:_GLIBCXX_ASSERTIONS>
  LG_VERSION="${PROJECT_VERSION}")
foreach(sanitizer IN LISTS LG_SANITIZE)
  target_compile_options(lg_settings INTERFACE -fsanitize=${sanitizer} -fno-omit-frame-pointer)
  target_link_options(lg_settings INTERFACE -fsanitize=${sanitizer})
endforeach()
# UBSan only prints and carries on by default (g++ and clang), so a test with
# undefined behaviour would still pass: make every finding fatal.
if("undefined" IN_LIST LG_SANITIZE)
  target_compile_options(lg_settings INTERFACE -fno-sanitize-recover=undefined)
  target_link_options(lg_settings INTERFACE -fno-sanitize-recover=undefined)
endif()
# libFuzzer (fuzz/): every stage library is instrumented for coverage and
# checked by ASan + UBSan; only the fuzz targets link libFuzzer's main.
if(LG_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "LG_FUZZ needs clang: CC=clang CXX=clang++ cmake -DLG_FUZZ=ON …")
  endif()
  target_compile_options(lg_settings INTERFACE
    -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
    -fno-omit-frame-pointer)
  target_link_options(lg_settings INTERFACE -fsanitize=address,undefined)
endif()
if(LG_CLANG_TIDY)
  set(CMAKE_CXX_CLANG_TIDY clang-tidy)
endif()

# Unity builds: each library and test program compiles its sources in batches
# of LG_UNITY_BATCH files, one translation unit per batch, so the headers
# (the standard library, fmt, nlohmann/json, doctest) are parsed once per batch
# instead of once per file: most of a build's time on two cores. File-local
# names (anonymous namespaces, statics) therefore share a translation unit
# with the other files of the batch: give helpers specific names. A file that
# cannot share sets the source property SKIP_UNITY_BUILD_INCLUSION.
# -DLG_UNITY=OFF builds file by file (faster incremental rebuilds).
option(LG_UNITY "Compile each target's sources in batches (unity build)" ON)
set(LG_UNITY_BATCH 8 CACHE STRING "Source files per unity batch")
function(lg_unity target)
  set_target_properties(${target} PROPERTIES
    UNITY_BUILD ${LG_UNITY} UNITY_BUILD_BATCH_SIZE ${LG_UNITY_BATCH})
endfunction()
