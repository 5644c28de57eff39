# Empty compiler generated dependencies file for lg_config.
# This may be replaced when dependencies are built.
