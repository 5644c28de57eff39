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
    -fno-omit-frame-pointer -g)
  target_link_options(lg_settings INTERFACE -fsanitize=address,undefined)
endif()
if(LG_CLANG_TIDY)
  set(CMAKE_CXX_CLANG_TIDY clang-tidy)
endif()
