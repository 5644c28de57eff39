file(REMOVE_RECURSE
  "liblg_config.a"
)
