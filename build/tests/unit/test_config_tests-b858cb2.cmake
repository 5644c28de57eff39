add_test( [==[config:derived: world, data-parallel and microbatch counts of the 70B case]==] /work/main/build/tests/unit/test_config [==[--test-case=derived: world\, data-parallel and microbatch counts of the 70B case]==])
set_tests_properties( [==[config:derived: world, data-parallel and microbatch counts of the 70B case]==] PROPERTIES WORKING_DIRECTORY /work/main/build/tests/unit LABELS unit ENVIRONMENT [==[LG_SOURCE_DIR=/work/main]==] LABELS)
set( test_config_TESTS [==[config:derived: world, data-parallel and microbatch counts of the 70B case]==])
