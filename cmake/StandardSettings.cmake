add_library(lg_settings INTERFACE)
target_compile_definitions(lg_settings INTERFACE
  $<$<CONFIG:Debug>:_GLIBCXX_ASSERTIONS>
  LG_VERSION="${PROJECT_VERSION}")
foreach(sanitizer IN LISTS LG_SANITIZE)
  target_compile_options(lg_settings INTERFACE -fsanitize=${sanitizer} -fno-omit-frame-pointer)
  target_link_options(lg_settings INTERFACE -fsanitize=${sanitizer})
endforeach()
if(LG_CLANG_TIDY)
  set(CMAKE_CXX_CLANG_TIDY clang-tidy)
endif()
