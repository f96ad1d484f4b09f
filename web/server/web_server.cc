#include "web/server/web_server.h"

#include <string>
#include <string_view>

#include "engine/util/strings.h"
#include "httplib.h"
#include "web/server/web_assets.h"

namespace volkhv::web {
namespace {

constexpr char kJson[] = "application/json";

void SetJson(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(body, kJson);
}

}  // namespace

WebServer::WebServer(WebApi* api)
    : api_(api), server_(std::make_unique<httplib::Server>()) {
  httplib::Server& server = *server_;
  server.set_payload_max_length(api_->limits().max_body_bytes);
  server.set_read_timeout(10, 0);
  server.set_write_timeout(10, 0);

  for (const WebAsset& asset : WebAssets()) {
    const WebAsset* a = &asset;
    auto serve = [a](const httplib::Request&, httplib::Response& res) {
      res.set_header("Cache-Control", "no-cache");
      res.set_content(a->data.data(), a->data.size(),
                      std::string(ContentType(a->path)).c_str());
    };
    server.Get(std::string(asset.path), serve);
    if (asset.path == "/index.html") server.Get("/", serve);
  }

  auto api_handler = [this](const httplib::Request& req,
                            httplib::Response& res) {
    const ApiResponse answer = api_->Handle(req.method, req.path, req.body);
    SetJson(res, answer.status, answer.body);
  };
  const std::string api_pattern = R"(/api/.*)";
  server.Get(api_pattern, api_handler);
  server.Post(api_pattern, api_handler);
  server.Put(api_pattern, api_handler);
  server.Delete(api_pattern, api_handler);
  server.Patch(api_pattern, api_handler);

  // Errors httplib answers itself (413, 404 for other paths, 400 for a
  // malformed request) get a JSON body too.
  server.set_error_handler(
      [this](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return;
        std::string message;
        switch (res.status) {
          case 413:
            message = Cat("request body too large (at most ",
                          api_->limits().max_body_bytes, " bytes)");
            break;
          case 404:
            message = Cat("unknown route ", req.method, " ", req.path);
            break;
          default:
            message = Cat("HTTP status ", res.status);
        }
        SetJson(res, res.status, WebApi::ErrorBody(message));
      });
  server.set_exception_handler([](const httplib::Request&,
                                  httplib::Response& res,
                                  std::exception_ptr error) {
    std::string message = "internal error";
    try {
      if (error) std::rethrow_exception(error);
    } catch (const std::exception& e) {
      message = Cat("internal error: ", e.what());
    } catch (...) {
    }
    SetJson(res, 500, WebApi::ErrorBody(message));
  });
}

WebServer::~WebServer() { Stop(); }

absl::StatusOr<int> WebServer::Bind(const std::string& host, int port) {
  if (port == 0) {
    const int bound = server_->bind_to_any_port(host);
    if (bound < 0) {
      return absl::UnavailableError(Cat("cannot bind ", host, " to a port"));
    }
    return bound;
  }
  if (!server_->bind_to_port(host, port)) {
    return absl::UnavailableError(
        Cat("cannot bind ", host, ":", port,
            " (in use, or not an address of this machine)"));
  }
  return port;
}

bool WebServer::Run() { return server_->listen_after_bind(); }

void WebServer::Stop() { server_->stop(); }

}  // namespace volkhv::web
