# The baseline players and the alpha-beta search (no LibTorch); included by
# the root CMakeLists.txt after engine/search/sources.cmake.
target_sources(volkhv_search PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/alphabeta.cc
  ${CMAKE_CURRENT_LIST_DIR}/players.cc
)
target_link_libraries(volkhv_search PUBLIC absl::str_format)
