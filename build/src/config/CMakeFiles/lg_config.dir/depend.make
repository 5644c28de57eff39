# Empty dependencies file for lg_config.
# This may be replaced when dependencies are built.
