# Strength testing (no LibTorch): match runner, statistics (Elo, SPRT),
# and player specifications. Included by the root
# CMakeLists.txt after engine/search/players.cmake.
add_library(volkhv_match STATIC
  ${CMAKE_CURRENT_LIST_DIR}/elo.cc
  ${CMAKE_CURRENT_LIST_DIR}/match.cc
  ${CMAKE_CURRENT_LIST_DIR}/player_spec.cc
)
target_link_libraries(volkhv_match PUBLIC volkhv_search volkhv_games volkhv_records
  absl::str_format Threads::Threads)
