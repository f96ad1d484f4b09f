// `volkhv serve`: the web board (web/server) on a local HTTP port.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/evaluator_setup.h"
#include "cli/game_setup.h"
#include "engine/games/games.h"
#include "engine/search/search_params.h"
#include "engine/util/strings.h"
#include "nn/evaluator_factory.h"
#include "web/server/web_api.h"
#include "web/server/web_server.h"

namespace volkhv::cli {
namespace {

int g_signal_pipe[2] = {-1, -1};

// Async-signal-safe: one byte to the watcher thread.
void OnSignal(int) {
  const char byte = 1;
  const ssize_t written = write(g_signal_pipe[1], &byte, 1);
  (void)written;
}

}  // namespace

int RunServe(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = {
      {"host", "ADDRESS", "127.0.0.1",
       "address to listen on (0.0.0.0: every interface)"},
      {"port", "N", "8080", "port to listen on (0: any free port)"},
      {"max-visits", "N", "1000000", "visits per search at most"},
      {"max-time-ms", "MS", "600000", "time per search at most"},
      {"max-searches", "N", "2", "analyses and engine moves running at once"},
      {"max-body-bytes", "N", "1048576",
       "larger request bodies are refused (413)"},
      {"seed", "N", "1", "seed of every search"},
  };
  for (OptionSpec& spec : EvaluatorOptionSpecs()) specs.push_back(spec);
  specs.push_back({"help", "", "", "print this help"});
  int code = 0;
  std::optional<CommandLine> cl = ParseOrExit(
      "serve",
      "volkhv serve [--host 127.0.0.1] [--port 8080] [--net X] [evaluator "
      "options]\n"
      "  the web board: open http://HOST:PORT/ in a browser; Ctrl-C stops",
      args, specs, 0, &code);
  if (!cl) return code;
  absl::StatusOr<proto::EvaluatorConfig> evaluator_config =
      EvaluatorConfigFromCommandLine(*cl);
  if (!evaluator_config.ok()) {
    return Fail("serve", evaluator_config.status(), kExitUsage);
  }
  absl::StatusOr<int> port = cl->GetInt("port", 0, 65535);
  if (!port.ok()) return Fail("serve", port.status(), kExitUsage);
  absl::StatusOr<int> max_visits = cl->GetInt("max-visits", 1, 100000000);
  if (!max_visits.ok()) return Fail("serve", max_visits.status(), kExitUsage);
  absl::StatusOr<int> max_time = cl->GetInt("max-time-ms", 1, 86400000);
  if (!max_time.ok()) return Fail("serve", max_time.status(), kExitUsage);
  absl::StatusOr<int> max_searches = cl->GetInt("max-searches", 1, 64);
  if (!max_searches.ok()) {
    return Fail("serve", max_searches.status(), kExitUsage);
  }
  absl::StatusOr<int> max_body = cl->GetInt("max-body-bytes", 1024, 1 << 30);
  if (!max_body.ok()) return Fail("serve", max_body.status(), kExitUsage);
  absl::StatusOr<int> seed = cl->GetInt("seed", 0, 2147483647);
  if (!seed.ok()) return Fail("serve", seed.status(), kExitUsage);

  web::WebLimits limits;
  limits.max_visits = static_cast<uint64_t>(*max_visits);
  limits.max_time_ms = *max_time;
  limits.max_searches = *max_searches;
  limits.max_body_bytes = static_cast<size_t>(*max_body);
  web::WebApi api(limits, cl->Get("net"),
                  nn::MakeEvaluatorFactory(*evaluator_config),
                  search::SearchParams(), static_cast<uint64_t>(*seed));
  // The net is loaded now, for the default game, so that a missing or damaged
  // file stops the command at once (as `analysis` does); a net of another game
  // is an error only for that game's requests.
  if (absl::Status s = api.Prepare(std::string(DefaultGameName()));
      !s.ok() && s.code() != absl::StatusCode::kInvalidArgument) {
    return Fail("serve", s, kExitInvalidInput);
  }
  web::WebServer server(&api);

  // Ctrl-C and SIGTERM write a byte to a pipe (whichever thread the signal
  // lands on); a watcher thread reads it and stops the searches, then the
  // server.
  if (pipe(g_signal_pipe) != 0) {
    return Fail("serve", absl::InternalError("cannot create a pipe"),
                kExitInvalidInput);
  }
  struct sigaction action = {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  std::atomic<bool> done{false};
  std::thread watcher([&server, &api, &done]() {
    char byte = 0;
    while (read(g_signal_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
    // Searches first: the server waits for the requests in progress.
    api.StopAll();
    // Again until Run returns: a stop before it started serving is lost.
    while (!done) {
      server.Stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });

  const std::string host = cl->Get("host");
  absl::StatusOr<int> bound = server.Bind(host, *port);
  bool ok = bound.ok();
  if (ok) {
    const std::string shown =
        host.find(':') != std::string::npos ? Cat("[", host, "]") : host;
    std::cout << "volkhv serve: http://" << shown << ":" << *bound << "/ (net "
              << cl->Get("net") << "; Ctrl-C stops)" << std::endl;
    ok = server.Run();
  }
  done = true;
  OnSignal(0);  // wakes the watcher if no signal came (the server failed)
  watcher.join();
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  api.StopAll();
  if (!bound.ok()) return Fail("serve", bound.status(), kExitInvalidInput);
  if (!ok) {
    return Fail("serve",
                absl::UnavailableError("the server stopped on an error"),
                kExitInvalidInput);
  }
  std::cout << "volkhv serve: stopped" << std::endl;
  return kExitOk;
}

}  // namespace volkhv::cli
