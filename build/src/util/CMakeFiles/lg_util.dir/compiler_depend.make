# Empty compiler generated dependencies file for lg_util.
# This may be replaced when dependencies are built.
