// The HTTP side of the web board: cpp-httplib serving the embedded page
// (web_assets.h) and forwarding /api/ requests to a WebApi. Request bodies
// over the API's limit get 413; every error has a JSON body
// {"error": "..."}.
#ifndef VOLKHV_WEB_SERVER_WEB_SERVER_H_
#define VOLKHV_WEB_SERVER_WEB_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "web/server/web_api.h"

namespace httplib {
class Server;
}

namespace volkhv::web {

class WebServer {
 public:
  // `api` must outlive the server.
  explicit WebServer(WebApi* api);
  ~WebServer();
  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;

  // Binds `host`:`port` (port 0: a free port). Returns the port bound.
  absl::StatusOr<int> Bind(const std::string& host, int port);
  // Serves until Stop(). Requires Bind. Returns false if the server failed.
  bool Run();
  // Makes Run return (from any thread; also before Run starts serving).
  void Stop();

 private:
  WebApi* api_;
  std::unique_ptr<httplib::Server> server_;
};

}  // namespace volkhv::web

#endif  // VOLKHV_WEB_SERVER_WEB_SERVER_H_
