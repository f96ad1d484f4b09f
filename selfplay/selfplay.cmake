# Self-play and game records (no LibTorch).
add_library(volkhv_selfplay STATIC
  selfplay/record_io.cc
)
target_link_libraries(volkhv_selfplay PUBLIC volkhv_games volkhv_proto
  volkhv_nn_weights volkhv_match)
