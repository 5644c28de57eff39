file(REMOVE_RECURSE
  "liblg_test_main.a"
)
