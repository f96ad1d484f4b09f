# The generation loop (self-play, training, evaluation) and its report.
add_library(volkhv_loop STATIC
  training/external_selfplay.cc
  training/loop.cc
  training/loop_budget.cc
  training/loop_report.cc
  training/net_release.cc
  training/run_lock.cc
)
target_link_libraries(volkhv_loop PUBLIC volkhv_training volkhv_selfplay
  volkhv_match)
