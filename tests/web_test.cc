// The web board's API (web/server) through real HTTP: a WebServer on an
// ephemeral port of 127.0.0.1 with the uniform evaluator, asked by
// cpp-httplib's client; then the API alone (shutting down, mangled
// requests) and `volkhv serve`'s refusals. Answers are checked for content
// (boards, legal moves, errors naming the problem), never for timing.
#include <sys/wait.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "nn/evaluator.h"
#include "tests/fake_evaluator.h"
#include "tests/test_toolkit.h"
#include "web/server/web_api.h"
#include "web/server/web_assets.h"
#include "web/server/web_server.h"

namespace volkhv::web {
namespace {

using Json = nlohmann::json;
using ::volkhv::testing::EvaluationGate;
using ::volkhv::testing::FakeEvaluator;
using ::volkhv::testing::RunResult;
using ::volkhv::testing::Volkhv;

// A stack of five mixed pieces on d4, bottom to top: white rook, black
// soldier (queen's symbol), black bishop, white soldier (Helgi's symbol),
// white promoted soldier showing a knight; kings on e1 and e8.
constexpr char kTallStack[] = "4k3/8/8/8/3(RpqbPH+N)4/8/8/4K3 w - - 0 1";

// While evaluation_gate.Hold(true) is in force every evaluation of the
// server's evaluators waits: searches started then are certainly still
// running.
EvaluationGate evaluation_gate;

class WebApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    WebLimits limits;
    limits.max_body_bytes = 4096;
    limits.max_visits = 5000;
    limits.max_time_ms = 20000;
    limits.max_searches = 2;
    api_ = new WebApi(limits, "fake", [](const std::string&, const Game&) {
      return absl::StatusOr<std::shared_ptr<nn::Evaluator>>(
          std::make_shared<FakeEvaluator>(nullptr, nullptr, &evaluation_gate));
    });
    server_ = new WebServer(api_);
    absl::StatusOr<int> port = server_->Bind("127.0.0.1", 0);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = *port;
    thread_ = new std::thread([] { server_->Run(); });
  }
  static void TearDownTestSuite() {
    server_->Stop();
    thread_->join();
    delete thread_;
    delete server_;
    delete api_;
  }

  struct Answer {
    int status = 0;
    Json json;
    std::string body;
  };

  static Answer Send(const std::string& method, const std::string& path,
                     const std::string& body = "") {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(60, 0);
    httplib::Result result = [&] {
      if (method == "GET") return client.Get(path.c_str());
      if (method == "DELETE") return client.Delete(path.c_str());
      return client.Post(path.c_str(), body, "application/json");
    }();
    Answer answer;
    if (!result) {
      ADD_FAILURE() << method << " " << path << ": no answer";
      return answer;
    }
    answer.status = result->status;
    answer.body = result->body;
    answer.json = Json::parse(result->body, nullptr, false);
    return answer;
  }
  static Answer Post(const std::string& path, const Json& body) {
    return Send("POST", path, body.dump());
  }

  static bool HasMove(const Json& state, const std::string& move) {
    for (const Json& m : state["legalMoves"]) {
      if (m["move"] == move) return true;
    }
    return false;
  }

  static WebApi* api_;
  static WebServer* server_;
  static std::thread* thread_;
  static int port_;
};

WebApi* WebApiTest::api_ = nullptr;
WebServer* WebApiTest::server_ = nullptr;
std::thread* WebApiTest::thread_ = nullptr;
int WebApiTest::port_ = 0;

TEST_F(WebApiTest, ServesThePageAndInfo) {
  httplib::Client client("127.0.0.1", port_);
  httplib::Result page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<title>Volkhv"), std::string::npos);
  EXPECT_NE(page->get_header_value("Content-Type").find("text/html"),
            std::string::npos);
  for (const WebAsset& asset : WebAssets()) {
    httplib::Result file = client.Get(std::string(asset.path).c_str());
    ASSERT_TRUE(file) << asset.path;
    EXPECT_EQ(file->status, 200) << asset.path;
    EXPECT_EQ(file->body.size(), asset.data.size()) << asset.path;
  }
  const Answer info = Send("GET", "/api/info");
  ASSERT_EQ(info.status, 200) << info.body;
  ASSERT_EQ(info.json["games"].size(), 3u);
  EXPECT_EQ(info.json["games"][0]["name"], "tavreli");
  EXPECT_EQ(info.json["games"][2]["width"], 11);
  EXPECT_EQ(info.json["limits"]["maxBodyBytes"], 4096);
}

TEST_F(WebApiTest, NewGame) {
  const Answer a = Post("/api/state", Json::object());
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["game"], "tavreli");
  EXPECT_EQ(a.json["position"],
            "rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/RNBQKBNR w "
            "KQkq - 0 1");
  EXPECT_EQ(a.json["legalMoves"].size(), 39u);
  EXPECT_EQ(a.json["sideToMove"], 0);
  EXPECT_EQ(a.json["player"], "white");
  EXPECT_FALSE(a.json["result"]["over"].get<bool>());
  EXPECT_TRUE(a.json["lastMove"].is_null());
  // Square index rank * 8 + file: e1 is 4, e2 12, e8 60.
  ASSERT_EQ(a.json["board"].size(), 64u);
  EXPECT_EQ(a.json["board"][4], Json::array({"K"}));
  EXPECT_EQ(a.json["board"][12], Json::array({"PH"}));
  EXPECT_EQ(a.json["board"][60], Json::array({"k"}));
  EXPECT_EQ(a.json["board"][28], Json::array());
  EXPECT_TRUE(HasMove(a.json, "e2-e4"));
}

TEST_F(WebApiTest, LegalMoveIsPlayed) {
  const Answer a = Post("/api/move", {{"moves", {"e2-e4"}}, {"move", "d7-d5"}});
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["moves"], Json::array({"e2-e4", "d7-d5"}));
  EXPECT_EQ(a.json["ply"], 2);
  EXPECT_EQ(a.json["lastMove"]["from"], "d7");
  EXPECT_EQ(a.json["lastMove"]["to"], "d5");
  EXPECT_EQ(a.json["lastMove"]["count"], 1);
  EXPECT_TRUE(HasMove(a.json, "e4xd5"));
  // The capture stacks: after e4xd5 the square holds the black soldier
  // under the white one.
  const Answer b =
      Post("/api/move", {{"moves", a.json["moves"]}, {"move", "e4xd5"}});
  ASSERT_EQ(b.status, 200) << b.body;
  EXPECT_EQ(b.json["board"][4 * 8 + 3], Json::array({"pq", "PH"}));
}

TEST_F(WebApiTest, IllegalMovesAreRefusedWithTheReason) {
  const Answer a = Post("/api/move", {{"move", "e2-e5"}});
  EXPECT_EQ(a.status, 400);
  EXPECT_EQ(a.json["error"],
            "move 'e2-e5': illegal move e2-e5: the pawn on e2 cannot move to "
            "e5");
  const Answer b = Post("/api/move", {{"move", "e3-e4"}});
  EXPECT_EQ(b.status, 400);
  EXPECT_NE(b.json["error"].get<std::string>().find("e3 is empty"),
            std::string::npos)
      << b.body;
  const Answer c = Post("/api/state", {{"moves", {"e2-e4", "e2-e4"}}});
  EXPECT_EQ(c.status, 400);
  EXPECT_EQ(c.json["error"].get<std::string>().rfind("moves[1] 'e2-e4': ", 0),
            0u)
      << c.body;
  const Answer d = Post("/api/move", Json::object());
  EXPECT_EQ(d.status, 400);
  EXPECT_EQ(d.json["error"], "field 'move' (a string) is required");
}

TEST_F(WebApiTest, TallMixedStack) {
  const Answer a = Post("/api/state", {{"position", kTallStack}});
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["board"][3 * 8 + 3],
            Json::array({"R", "pq", "b", "PH", "+N"}));
  // The knight on top moves alone or with any part of the stack beneath it.
  bool whole = false;
  bool top_two = false;
  for (const Json& m : a.json["legalMoves"]) {
    if (m["from"] != "d4") continue;
    if (m["count"] == 5) whole = true;
    if (m["count"] == 2) top_two = true;
  }
  EXPECT_TRUE(whole);
  EXPECT_TRUE(top_two);
  const Answer b =
      Post("/api/move", {{"position", kTallStack}, {"move", "d4(2)-f5"}});
  ASSERT_EQ(b.status, 200) << b.body;
  EXPECT_EQ(b.json["board"][3 * 8 + 3], Json::array({"R", "pq", "b"}));
  EXPECT_EQ(b.json["board"][4 * 8 + 5], Json::array({"PH", "+N"}));
  const Answer bad = Post("/api/state", {{"position", "4k3/8/8 w - - 0 1"}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.json["error"].get<std::string>().rfind("position: ", 0), 0u)
      << bad.body;
}

TEST_F(WebApiTest, TavleiPosition) {
  // Defenders to move; the prince on a5 reaches the exit a1.
  const Answer a =
      Post("/api/move", {{"game", "tavlei9"},
                         {"position", "9/t8/9/9/K7t/9/9/9/4t4 d 0"},
                         {"move", "a5-a1"}});
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_TRUE(a.json["result"]["over"].get<bool>());
  EXPECT_EQ(a.json["result"]["termination"], "king escaped");
  EXPECT_EQ(a.json["result"]["winner"], "defenders");
  EXPECT_EQ(a.json["result"]["text"], "The prince escapes: defenders win");
  EXPECT_EQ(a.json["board"][0], Json::array({"K"}));
  EXPECT_TRUE(a.json["legalMoves"].empty());

  const Answer b = Post("/api/state", {{"game", "tavlei11"}});
  ASSERT_EQ(b.status, 200) << b.body;
  EXPECT_EQ(b.json["board"].size(), 121u);
  EXPECT_EQ(b.json["board"][5 * 11 + 5], Json::array({"K"}));  // f6
  EXPECT_EQ(b.json["legalMoves"].size(), 116u);
  EXPECT_EQ(b.json["player"], "attackers");

  // The rules page's variant: the prince moves at most three squares.
  const Answer short_steps =
      Post("/api/move", {{"game", "tavlei9"},
                         {"gameOptions", {{"prince_max_steps", 3}}},
                         {"position", "9/t8/9/9/K7t/9/9/9/4t4 d 0"},
                         {"move", "a5-a1"}});
  EXPECT_EQ(short_steps.status, 400);
  EXPECT_EQ(short_steps.json["error"].get<std::string>().rfind(
                "move 'a5-a1': illegal move", 0),
            0u)
      << short_steps.body;
  const Answer bad_option =
      Post("/api/state",
           {{"game", "tavreli"}, {"gameOptions", {{"prince_max_steps", 3}}}});
  EXPECT_EQ(bad_option.status, 400);
  EXPECT_NE(
      bad_option.json["error"].get<std::string>().find("prince_max_steps"),
      std::string::npos)
      << bad_option.body;

  const Answer c = Post("/api/state", {{"game", "tavlei13"}});
  EXPECT_EQ(c.status, 400);
  EXPECT_NE(c.json["error"].get<std::string>().find("tavlei13"),
            std::string::npos);
}

TEST_F(WebApiTest, EngineMove) {
  const Answer a =
      Post("/api/engine-move", {{"moves", {"e2-e4"}}, {"visits", 30}});
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["moves"].size(), 2u);
  EXPECT_EQ(a.json["sideToMove"], 0);
  EXPECT_EQ(a.json["engine"]["move"], a.json["moves"][1]);
  EXPECT_GE(a.json["engine"]["root"]["visits"].get<int>(), 30);
  // Or by time: Tavlei 9x9 from the start, 50 ms.
  const Answer timed =
      Post("/api/engine-move", {{"game", "tavlei9"}, {"timeMs", 50}});
  ASSERT_EQ(timed.status, 200) << timed.body;
  EXPECT_EQ(timed.json["ply"], 1);
  EXPECT_EQ(timed.json["player"], "defenders");
  // More visits than the server allows are refused.
  const Answer b = Post("/api/engine-move", {{"visits", 5001}});
  EXPECT_EQ(b.status, 400);
  EXPECT_EQ(b.json["error"],
            "field 'visits' must be an integer from 1 to 5000");
}

TEST_F(WebApiTest, AnalysisWithASmallVisitCount) {
  // Mate in one: only h1-h8 mates.
  const Answer start =
      Post("/api/analysis",
           {{"position", "k7/8/1K6/8/8/8/8/7R w - - 0 1"}, {"maxVisits", 60}});
  ASSERT_EQ(start.status, 200) << start.body;
  const int id = start.json["id"].get<int>();
  Answer report;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  do {
    report = Send("GET", "/api/analysis/" + std::to_string(id));
    ASSERT_EQ(report.status, 200) << report.body;
    if (!report.json["running"].get<bool>()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < deadline);
  ASSERT_FALSE(report.json["running"].get<bool>()) << report.body;
  ASSERT_FALSE(report.json["moveInfos"].empty()) << report.body;
  EXPECT_EQ(report.json["moveInfos"][0]["move"], "h1-h8");
  EXPECT_EQ(report.json["moveInfos"][0]["proven"], "win");
  EXPECT_EQ(report.json["rootInfo"]["proven"], "win");
  EXPECT_EQ(report.json["moveInfos"][0]["pv"][0], "h1-h8");

  // With "wait" the request answers when the search is done. (With
  // uniform priors the move both the leaves' search and the root's own
  // search find takes three quarters of the root's priors: 1,500 visits
  // reach a second root move.)
  const Answer waited = Post(
      "/api/analysis", {{"maxVisits", 1500}, {"multiPv", 2}, {"wait", true}});
  ASSERT_EQ(waited.status, 200) << waited.body;
  EXPECT_FALSE(waited.json["running"].get<bool>());
  EXPECT_EQ(waited.json["stopReason"], "visits");
  EXPECT_GE(waited.json["rootInfo"]["visits"].get<int>(), 1500);
  EXPECT_EQ(waited.json["moveInfos"].size(), 2u);
  EXPECT_EQ(waited.json["position"],
            "rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/RNBQKBNR w "
            "KQkq - 0 1");

  const Answer missing = Send("GET", "/api/analysis/999999");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.json["error"].get<std::string>().find("999999"),
            std::string::npos);
}

TEST_F(WebApiTest, LiveAnalysisStopsOnRequestAndSearchesAreLimited) {
  // Evaluations wait, so both analyses are still running when the third
  // asks for a search slot.
  evaluation_gate.Hold(true);
  const Answer a = Post("/api/analysis", {{"maxVisits", 5000}});
  const Answer b = Post("/api/analysis", {{"maxVisits", 5000}});
  ASSERT_EQ(a.status, 200) << a.body;
  ASSERT_EQ(b.status, 200) << b.body;
  const Answer c = Post("/api/analysis", {{"maxVisits", 10}});
  EXPECT_EQ(c.status, 429);
  EXPECT_EQ(c.json["error"],
            "too many searches running (at most 2); stop an analysis first");
  const Answer d = Post("/api/engine-move", {{"visits", 10}});
  EXPECT_EQ(d.status, 429);
  const Answer running =
      Send("GET", "/api/analysis/" + std::to_string(a.json["id"].get<int>()));
  ASSERT_EQ(running.status, 200) << running.body;
  EXPECT_TRUE(running.json["running"].get<bool>());
  // Both searches have reached their first evaluation: stopped after it,
  // they report the root's moves.
  ASSERT_TRUE(evaluation_gate.WaitForHeld(2));
  evaluation_gate.Hold(false);
  for (const Answer* job : {&a, &b}) {
    const Answer stopped =
        Send("POST", "/api/analysis/" +
                         std::to_string(job->json["id"].get<int>()) + "/stop");
    ASSERT_EQ(stopped.status, 200) << stopped.body;
    EXPECT_FALSE(stopped.json["running"].get<bool>());
    EXPECT_FALSE(stopped.json["moveInfos"].empty()) << stopped.body;
    EXPECT_TRUE(stopped.json.contains("stopReason")) << stopped.body;
  }
  // The slots are free again.
  const Answer e = Post("/api/analysis", {{"maxVisits", 10}});
  ASSERT_EQ(e.status, 200) << e.body;
  Send("POST",
       "/api/analysis/" + std::to_string(e.json["id"].get<int>()) + "/stop");
}

TEST_F(WebApiTest, WholeGameAnalysis) {
  const Answer start =
      Post("/api/game-analysis",
           {{"moves", {"e2-e4", "e7-e5", "d1-h5"}}, {"visitsPerPly", 20}});
  ASSERT_EQ(start.status, 200) << start.body;
  const std::string path =
      "/api/game-analysis/" + std::to_string(start.json["id"].get<int>());
  Answer report;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  do {
    report = Send("GET", path);
    // Every report has the same shape, the first one before any ply is
    // done too (the page maps over "plies" at once).
    ASSERT_TRUE(report.json["plies"].is_array()) << report.body;
    EXPECT_EQ(report.json["total"], 4) << report.body;
    if (!report.json["running"].get<bool>()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < deadline);
  ASSERT_FALSE(report.json["running"].get<bool>()) << report.body;
  ASSERT_EQ(report.json["plies"].size(), 4u) << report.body;
  EXPECT_EQ(report.json["total"], 4);
  EXPECT_EQ(report.json["plies"][0]["played"], "e2-e4");
  EXPECT_GE(report.json["plies"][0]["playedRank"].get<int>(), 1);
  EXPECT_TRUE(report.json["plies"][0].contains("drop"));
  EXPECT_FALSE(report.json["plies"][3].contains("played"));
  EXPECT_TRUE(report.json["plies"][3].contains("best"));
}

TEST_F(WebApiTest, RecordsAreReadAndWritten) {
  const std::string record =
      "[Game \"Short\"]\n[Plies \"4\"]\n1. e2-e4 d7-d5 2. e4 x d5 d8xd5 *\n"
      "\n[Game \"Broken\"]\n1. e2-e4 e2-e4\n";
  const Answer a = Post("/api/record", {{"text", record}});
  ASSERT_EQ(a.status, 200) << a.body;
  ASSERT_EQ(a.json["games"].size(), 2u);
  EXPECT_EQ(a.json["games"][0]["name"], "Short");
  EXPECT_EQ(a.json["games"][0]["moves"],
            Json::array({"e2-e4", "d7-d5", "e4xd5", "d8xd5"}));
  EXPECT_FALSE(a.json["games"][0].contains("error"));
  EXPECT_EQ(a.json["games"][1]["moves"].size(), 1u);
  EXPECT_EQ(a.json["games"][1]["error"].get<std::string>().rfind(
                "ply 2 (e2-e4): ", 0),
            0u);

  const Answer e = Post("/api/export", {{"position", kTallStack},
                                        {"moves", {"d4(2)-f5"}},
                                        {"tags", {{"Game", "Stack"}}}});
  ASSERT_EQ(e.status, 200) << e.body;
  const std::string text = e.json["text"];
  EXPECT_EQ(text, std::string("[Game \"Stack\"]\n[TFEN \"") + kTallStack +
                      "\"]\n[Plies \"1\"]\n1. d4(2)-f5 *\n");
  // What was written reads back.
  const Answer back = Post("/api/record", {{"text", text}});
  ASSERT_EQ(back.status, 200) << back.body;
  EXPECT_EQ(back.json["games"][0]["position"], kTallStack);
  EXPECT_EQ(back.json["games"][0]["moves"], Json::array({"d4(2)-f5"}));
}

TEST_F(WebApiTest, OversizedAndMalformedBodies) {
  const Answer big = Send("POST", "/api/state",
                          "{\"position\": \"" + std::string(5000, 'x') + "\"}");
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(big.json["error"], "request body too large (at most 4096 bytes)");

  const Answer broken = Send("POST", "/api/state", "{\"moves\": [");
  EXPECT_EQ(broken.status, 400);
  EXPECT_EQ(broken.json["error"].get<std::string>().rfind("invalid JSON: ", 0),
            0u)
      << broken.body;
  const Answer array = Send("POST", "/api/state", "[1, 2]");
  EXPECT_EQ(array.status, 400);
  EXPECT_EQ(array.json["error"], "the request body must be a JSON object");
  const Answer unknown = Post("/api/state", {{"colour", "white"}});
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(unknown.json["error"], "unknown field 'colour'");
  const Answer wrong_type = Post("/api/state", {{"moves", "e2-e4"}});
  EXPECT_EQ(wrong_type.status, 400);
  EXPECT_EQ(wrong_type.json["error"],
            "field 'moves' must be an array of strings");
}

TEST_F(WebApiTest, UnknownRoutesAndMethods) {
  const Answer a = Send("GET", "/api/nothing");
  EXPECT_EQ(a.status, 404);
  EXPECT_EQ(a.json["error"], "unknown route GET /api/nothing");
  const Answer b = Send("GET", "/no/such/page.html");
  EXPECT_EQ(b.status, 404);
  EXPECT_EQ(b.json["error"], "unknown route GET /no/such/page.html");
  const Answer c = Send("GET", "/api/state");
  EXPECT_EQ(c.status, 405);
  EXPECT_EQ(c.json["error"],
            "method GET is not allowed on /api/state (use POST)");
  // The server still answers.
  EXPECT_EQ(Post("/api/state", Json::object()).status, 200);
}

// Shutting down (Ctrl-C in `volkhv serve`) stops a running analysis at
// once and refuses new searches; the API itself, without HTTP.
TEST(WebApiStopTest, StopAllEndsSearches) {
  WebLimits limits;
  limits.max_visits = 100000000;
  WebApi api(limits, "random", [](const std::string& net, const Game&) {
    EXPECT_EQ(net, "random");  // the API's net, for every game
    return absl::StatusOr<std::shared_ptr<nn::Evaluator>>(
        std::make_shared<nn::UniformEvaluator>());
  });
  const ApiResponse start =
      api.Handle("POST", "/api/analysis", R"({"maxVisits": 100000000})");
  ASSERT_EQ(start.status, 200) << start.body;
  const int id = Json::parse(start.body)["id"].get<int>();
  api.StopAll();
  const ApiResponse report =
      api.Handle("GET", "/api/analysis/" + std::to_string(id), "");
  ASSERT_EQ(report.status, 200) << report.body;
  const Json json = Json::parse(report.body);
  EXPECT_FALSE(json["running"].get<bool>());
  EXPECT_EQ(json["stopReason"], "stopped");
  const ApiResponse refused =
      api.Handle("POST", "/api/engine-move", R"({"visits": 10})");
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(Json::parse(refused.body)["error"], "the server is stopping");
  // Positions are still answered.
  EXPECT_EQ(api.Handle("POST", "/api/state", "{}").status, 200);
}

// Mangled requests (characters dropped, inserted, replaced; values of the
// wrong type) to every route: each answer is JSON, an error names the
// problem, and nothing crashes or answers 500.
TEST(WebApiFuzzTest, MangledRequestsGetJsonErrors) {
  WebLimits limits;
  limits.max_visits = 64;
  limits.max_time_ms = 200;
  WebApi api(limits, "random", [](const std::string&, const Game&) {
    return absl::StatusOr<std::shared_ptr<nn::Evaluator>>(
        std::make_shared<nn::UniformEvaluator>());
  });
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"/api/state", R"({"game": "tavreli", "moves": ["e2-e4", "d7-d5"]})"},
      {"/api/state",
       R"({"position": "4k3/8/8/8/3(RpqbPH+N)4/8/8/4K3 w - - 0 1"})"},
      {"/api/move",
       R"({"game": "tavlei11", "moves": ["d1-d4"], "move": "f4-f3"})"},
      {"/api/move", R"({"moves": ["e2-e4", "d7-d5"], "move": "e4xd5"})"},
      {"/api/engine-move", R"({"game": "tavlei9", "visits": 8})"},
      {"/api/record", R"({"text": "[Game \"x\"]\n1. e2-e4 d7-d5 *\n"})"},
      {"/api/export", R"({"moves": ["e2-e4"], "tags": {"Game": "g"}})"},
      {"/api/analysis", R"({"maxVisits": 16, "multiPv": 3, "wait": true})"},
      {"/api/game-analysis", R"({"moves": ["e2-e4"], "visitsPerPly": 4})"},
  };
  const std::string alphabet = "{}[]\":,0123456789-+.eEtrufalsn x()/~\\";
  uint64_t rng = 12345;
  auto next = [&rng](uint64_t n) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (rng >> 33) % n;
  };
  int errors = 0;
  for (int i = 0; i < 3000; ++i) {
    const auto& [path, seed] = seeds[next(seeds.size())];
    std::string body = seed;
    const int edits = 1 + static_cast<int>(next(4));
    for (int e = 0; e < edits && !body.empty(); ++e) {
      const size_t at = next(body.size());
      switch (next(3)) {
        case 0:
          body.erase(at, 1 + next(3));
          break;
        case 1:
          body.insert(at, 1, alphabet[next(alphabet.size())]);
          break;
        default:
          body[at] = alphabet[next(alphabet.size())];
      }
    }
    const ApiResponse answer = api.Handle("POST", path, body);
    const Json json = Json::parse(answer.body, nullptr, false);
    ASSERT_FALSE(json.is_discarded()) << path << " " << body;
    ASSERT_TRUE(json.is_object()) << path << " " << body;
    ASSERT_NE(answer.status, 500)
        << path << " " << body << " -> " << answer.body;
    if (answer.status != 200) {
      ++errors;
      ASSERT_TRUE(json.contains("error") && json["error"].is_string() &&
                  !json["error"].get<std::string>().empty())
          << path << " " << body << " -> " << answer.body;
    }
  }
  api.StopAll();
  // Most mangled requests are refused; some still mean something.
  EXPECT_GT(errors, 1000);
  EXPECT_LT(errors, 3000);
}

// `volkhv serve` refuses a bad net or port at once, naming it.
TEST(ServeCommandTest, BadNetOrPortStopsAtOnce) {
  const auto run = [](const std::string& args) {
    const RunResult r = Volkhv("serve " + args);
    return std::make_pair(r.exit_code, r.err);
  };
  const auto [net_code, net_text] =
      run("--port 0 --net /nonexistent/volkhv.net");
  EXPECT_EQ(net_code, 1);
  EXPECT_EQ(net_text.rfind("volkhv serve: /nonexistent/volkhv.net: ", 0), 0u)
      << net_text;
  const auto [port_code, port_text] = run("--port 99999");
  EXPECT_EQ(port_code, 2);
  EXPECT_NE(port_text.find("--port"), std::string::npos) << port_text;
}

}  // namespace
}  // namespace volkhv::web
