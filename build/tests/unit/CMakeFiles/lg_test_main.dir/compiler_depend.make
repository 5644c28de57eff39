# Empty compiler generated dependencies file for lg_test_main.
# This may be replaced when dependencies are built.
