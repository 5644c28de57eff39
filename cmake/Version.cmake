# `launchguard --version` prints LG_VERSION and LG_GIT_COMMIT. The commit is
# refreshed on every build, not only at configure time: lg_git_commit runs
# cmake/GitCommit.cmake (one `git describe`), which rewrites
# generated/lg_git_commit.h only when the commit changes; commands.cpp, the
# one file that prints it, force-includes that header, so only it recompiles.
if(NOT TARGET launchguard)
  return()
endif()
set(LG_GIT_COMMIT_HEADER ${PROJECT_BINARY_DIR}/generated/lg_git_commit.h)
add_custom_target(lg_git_commit
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -DOUTPUT=${LG_GIT_COMMIT_HEADER} -P ${PROJECT_SOURCE_DIR}/cmake/GitCommit.cmake
  BYPRODUCTS ${LG_GIT_COMMIT_HEADER}
  VERBATIM)
add_dependencies(launchguard lg_git_commit)
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/cli/commands.cpp
  TARGET_DIRECTORY launchguard
  PROPERTIES COMPILE_OPTIONS "-include;${LG_GIT_COMMIT_HEADER}")
