# The search library: MCTS over the game interface (no LibTorch).
add_library(volkhv_search STATIC
  engine/search/backup.cc
  engine/search/centipawns.cc
  engine/search/gumbel.cc
  engine/search/gumbel_select.cc
  engine/search/leaf_extension.cc
  engine/search/results.cc
  engine/search/search.cc
  engine/search/search_params.cc
  engine/search/selection.cc
  engine/search/time_manager.cc
  engine/search/tree.cc
)
target_link_libraries(volkhv_search PUBLIC volkhv_game volkhv_nn_core)
