# Empty dependencies file for launchguard.
# This may be replaced when dependencies are built.
