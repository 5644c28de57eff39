file(REMOVE_RECURSE
  "liblg_util.a"
)
