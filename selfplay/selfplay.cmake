# Self-play (no LibTorch): the self-play config and the self-play runner.
add_library(volkhv_selfplay STATIC
  selfplay/selfplay_config.cc
  selfplay/selfplay.cc
  selfplay/worker_dir.cc
)
target_link_libraries(volkhv_selfplay PUBLIC volkhv_games volkhv_records volkhv_proto
  volkhv_nn_weights volkhv_match volkhv_search Threads::Threads)
