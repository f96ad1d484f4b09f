# The utilities at the bottom of every layer (volkhv_util): strings, number
# parsing, files and atomic writes, checksums, time, random numbers. Depends
# only on Abseil and the standard library. Included by the root
# CMakeLists.txt before every other library.
add_library(volkhv_util STATIC
  ${CMAKE_CURRENT_LIST_DIR}/checked_file.cc
  ${CMAKE_CURRENT_LIST_DIR}/files.cc
  ${CMAKE_CURRENT_LIST_DIR}/random.cc
  ${CMAKE_CURRENT_LIST_DIR}/strings.cc
  ${CMAKE_CURRENT_LIST_DIR}/time.cc
)
target_link_libraries(volkhv_util PUBLIC absl::status absl::statusor
  absl::strings absl::time)
