# Game records on disk (volkhv_records, no LibTorch): PGN-style game files
# (game_file_reader, game_file_writer) and the protobuf .vrec files of
# self-play (vrec_io). Included by the root CMakeLists.txt.
add_library(volkhv_records STATIC
  ${CMAKE_CURRENT_LIST_DIR}/game_file_reader.cc
  ${CMAKE_CURRENT_LIST_DIR}/game_file_writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/vrec_io.cc
)
target_link_libraries(volkhv_records PUBLIC volkhv_games volkhv_proto
  absl::str_format)
