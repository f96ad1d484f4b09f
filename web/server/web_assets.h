// The web board's files (web/*.html, *.css, *.js), built into the binary by
// cmake/embed_files.cmake so that `volkhv serve` works from any directory.
#ifndef VOLKHV_WEB_SERVER_WEB_ASSETS_H_
#define VOLKHV_WEB_SERVER_WEB_ASSETS_H_

#include <span>
#include <string_view>

namespace volkhv::web {

struct WebAsset {
  std::string_view path;  // "/index.html", "/app.js", ...
  std::string_view data;
};

// Every embedded file, in name order.
std::span<const WebAsset> WebAssets();

// "text/html; charset=utf-8", ... by the path's extension.
std::string_view ContentType(std::string_view path);

}  // namespace volkhv::web

#endif  // VOLKHV_WEB_SERVER_WEB_ASSETS_H_
