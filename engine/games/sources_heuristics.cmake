# The hand-written evaluations of the alpha-beta baseline (no LibTorch):
# each game's heuristic in its rules library, the registry in volkhv_games.
# Included by the root CMakeLists.txt after volkhv_games is defined.
target_sources(volkhv_tavreli PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/../tavreli/heuristic.cc
)
target_sources(volkhv_tavlei PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/../tavlei/heuristic.cc
)
target_sources(volkhv_games PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/heuristics.cc
)
