# The Tavlei game module (tavlei9, tavlei11): rules, notation, encoder,
# evaluation, symmetries; included by the root CMakeLists.txt.
add_library(volkhv_tavlei STATIC
  ${CMAKE_CURRENT_LIST_DIR}/rules.cc
  ${CMAKE_CURRENT_LIST_DIR}/play_move.cc
  ${CMAKE_CURRENT_LIST_DIR}/movegen.cc
  ${CMAKE_CURRENT_LIST_DIR}/immediate_win.cc
  ${CMAKE_CURRENT_LIST_DIR}/position_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/move_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/tavlei_game.cc
  ${CMAKE_CURRENT_LIST_DIR}/tavlei_prover.cc
  ${CMAKE_CURRENT_LIST_DIR}/heuristic.cc
  ${CMAKE_CURRENT_LIST_DIR}/encoder.cc
  ${CMAKE_CURRENT_LIST_DIR}/policy_map.cc
  ${CMAKE_CURRENT_LIST_DIR}/symmetry.cc
  ${CMAKE_CURRENT_LIST_DIR}/module.cc
)
target_link_libraries(volkhv_tavlei PUBLIC volkhv_game)
