# The Tavlei rules library (tavlei9, tavlei11); included by the root
# CMakeLists.txt.
add_library(volkhv_tavlei STATIC
  ${CMAKE_CURRENT_LIST_DIR}/rules.cc
  ${CMAKE_CURRENT_LIST_DIR}/play_move.cc
  ${CMAKE_CURRENT_LIST_DIR}/movegen.cc
  ${CMAKE_CURRENT_LIST_DIR}/immediate_win.cc
  ${CMAKE_CURRENT_LIST_DIR}/position_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/move_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/tavlei_game.cc
  ${CMAKE_CURRENT_LIST_DIR}/tavlei_prover.cc
)
target_link_libraries(volkhv_tavlei PUBLIC volkhv_game)
