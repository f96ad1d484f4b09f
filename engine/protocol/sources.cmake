# The front ends of the search as libraries: the UCI-style text engine and
# the JSON analysis engine (no LibTorch; evaluators come from the caller).
# Included by the root CMakeLists.txt.
find_package(nlohmann_json 3 REQUIRED)

add_library(volkhv_protocol STATIC
  ${CMAKE_CURRENT_LIST_DIR}/score.cc
  ${CMAKE_CURRENT_LIST_DIR}/line_reader.cc
  ${CMAKE_CURRENT_LIST_DIR}/uci_engine.cc
  ${CMAKE_CURRENT_LIST_DIR}/analysis_engine.cc
)
target_link_libraries(volkhv_protocol
  PUBLIC volkhv_search volkhv_games volkhv_nn_core Threads::Threads
  PRIVATE nlohmann_json::nlohmann_json)
