# The web board (`volkhv serve`): the JSON API, the HTTP server
# (cpp-httplib) and the page's files embedded at build time. Included by the
# root CMakeLists.txt.
# Debian builds cpp-httplib as a library (libcpp-httplib.so) whose header
# must see the same feature macros (OpenSSL, zlib, brotli): pkg-config has
# them.
find_package(PkgConfig REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)

file(GLOB VOLKHV_WEB_FILES CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/web/*.html
  ${CMAKE_SOURCE_DIR}/web/*.css
  ${CMAKE_SOURCE_DIR}/web/*.js
  ${CMAKE_SOURCE_DIR}/web/*.svg)
set(VOLKHV_WEB_ASSETS_CC ${CMAKE_BINARY_DIR}/generated/web_assets.cc)
add_custom_command(
  OUTPUT ${VOLKHV_WEB_ASSETS_CC}
  COMMAND ${CMAKE_COMMAND} -DOUT=${VOLKHV_WEB_ASSETS_CC}
    -DBASE=${CMAKE_SOURCE_DIR}/web "-DFILES=${VOLKHV_WEB_FILES}"
    -P ${CMAKE_SOURCE_DIR}/cmake/embed_files.cmake
  DEPENDS ${VOLKHV_WEB_FILES} ${CMAKE_SOURCE_DIR}/cmake/embed_files.cmake
  COMMENT "Embedding the web board's files"
  VERBATIM)

add_library(volkhv_web STATIC
  ${CMAKE_CURRENT_LIST_DIR}/web_api.cc
  ${CMAKE_CURRENT_LIST_DIR}/web_server.cc
  ${CMAKE_CURRENT_LIST_DIR}/web_assets.cc
  ${VOLKHV_WEB_ASSETS_CC}
)
target_link_libraries(volkhv_web
  PUBLIC volkhv_search volkhv_games volkhv_records volkhv_nn_core volkhv_protocol
    nlohmann_json::nlohmann_json Threads::Threads
  PRIVATE PkgConfig::HTTPLIB)
