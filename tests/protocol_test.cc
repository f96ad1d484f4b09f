// The search's front ends with the uniform evaluator: the UCI-style engine
// and the JSON analysis engine driven in-process through string streams and
// as the real binary through pipes; `volkhv play` and `volkhv analyze`
// through stdin. Replies are checked for content (legal moves, mates found,
// errors for bad input, the engine alive afterwards), never for timing.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/games/games.h"
#include "engine/protocol/analysis_engine.h"
#include "engine/protocol/score.h"
#include "engine/protocol/uci_engine.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "nn/evaluator.h"
#include "tests/fake_evaluator.h"
#include "tests/test_toolkit.h"

namespace volkhv::protocol {
namespace {

using Json = nlohmann::json;
using ::volkhv::testing::ExecVolkhv;
using ::volkhv::testing::RunResult;
using ::volkhv::testing::ScopedTempDir;
using ::volkhv::testing::Volkhv;
using ::volkhv::testing::VolkhvWithInput;

// White: Kb6, Rh1; Black: Ka8. Only h1-h8 mates.
constexpr char kRookMateInOne[] = "k7/8/1K6/8/8/8/8/7R w - - 0 1";
// Tavlei 9x9, defenders to move: the prince on a5 reaches the exit a1.
constexpr char kPrinceEscapesInOne[] = "9/t8/9/9/K7t/9/9/9/4t4 d 0";

absl::StatusOr<std::shared_ptr<nn::Evaluator>> UniformFactory(
    const std::string& net, const Game& game) {
  if (net != "random") {
    return absl::NotFoundError(Cat(net, ": no such net in this test"));
  }
  return std::make_shared<nn::UniformEvaluator>();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

bool StartsWith(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  for (std::string_view w : Split(line, " ", true)) words.emplace_back(w);
  return words;
}

int CountPrefix(const std::vector<std::string>& lines,
                std::string_view prefix) {
  return static_cast<int>(std::count_if(
      lines.begin(), lines.end(),
      [&](const std::string& l) { return StartsWith(l, prefix); }));
}

std::unique_ptr<GameState> Position(std::string_view game,
                                    std::string_view text,
                                    const std::vector<std::string>& moves) {
  auto g = MakeGame(game);
  EXPECT_TRUE(g.ok());
  std::unique_ptr<GameState> state;
  if (text.empty()) {
    state = (*g)->NewInitialState();
  } else {
    auto parsed = (*g)->NewStateFromText(text);
    EXPECT_TRUE(parsed.ok()) << parsed.status().message();
    state = *std::move(parsed);
  }
  for (const std::string& m : moves) {
    auto move = state->ParseMove(m);
    EXPECT_TRUE(move.ok()) << m;
    if (move.ok()) state->Play(*move);
  }
  return state;
}

// The value after `key` in an info line ("" if absent).
std::string Field(const std::string& line, const std::string& key) {
  const std::vector<std::string> words = Words(line);
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == key) return words[i + 1];
  }
  return "";
}

// Checks an `info ... pv M1 M2 ...` line: well-formed, WDL summing to 1000,
// and a pv legal from `root`.
void ExpectGoodInfo(const std::string& line, const GameState& root) {
  SCOPED_TRACE(line);
  const std::vector<std::string> words = Words(line);
  for (const char* key : {"depth", "seldepth", "nodes", "nps", "time"}) {
    EXPECT_FALSE(Field(line, key).empty()) << key;
  }
  auto wdl = std::find(words.begin(), words.end(), "wdl");
  ASSERT_LE(wdl + 4, words.end());
  EXPECT_EQ(
      std::stoi(*(wdl + 1)) + std::stoi(*(wdl + 2)) + std::stoi(*(wdl + 3)),
      1000);
  EXPECT_TRUE(line.find(" score cp ") != std::string::npos ||
              line.find(" score mate ") != std::string::npos);
  auto pv = std::find(words.begin(), words.end(), "pv");
  ASSERT_NE(pv, words.end());
  ASSERT_NE(pv + 1, words.end()) << "empty pv";
  std::unique_ptr<GameState> state = root.Clone();
  for (auto it = pv + 1; it != words.end(); ++it) {
    auto move = state->ParseMove(*it);
    ASSERT_TRUE(move.ok()) << *it << ": " << move.status().message();
    EXPECT_EQ(state->MoveText(*move), *it) << "not canonical";
    state->Play(*move);
  }
}

// Checks every info line with a pv and the one bestmove line of a search
// of `root`; returns the best move's text.
std::string ExpectGoodSearchOutput(const std::vector<std::string>& lines,
                                   const GameState& root) {
  int infos = 0;
  std::string best;
  for (const std::string& line : lines) {
    if (StartsWith(line, "info depth")) {
      ++infos;
      ExpectGoodInfo(line, root);
    }
    if (StartsWith(line, "bestmove ")) {
      EXPECT_TRUE(best.empty()) << "two bestmove lines";
      const std::vector<std::string> words = Words(line);
      best = words[1];
      // `bestmove M ponder P`: P is a legal reply to M.
      if (words.size() > 2) {
        EXPECT_EQ(words.size(), 4u) << line;
        EXPECT_EQ(words[2], "ponder") << line;
        std::unique_ptr<GameState> after = root.Clone();
        auto move = root.ParseMove(best);
        if (move.ok() && words.size() == 4) {
          after->Play(*move);
          EXPECT_TRUE(after->ParseMove(words[3]).ok()) << line;
        }
      }
    }
  }
  EXPECT_GE(infos, 1);
  auto move = root.ParseMove(best);
  EXPECT_TRUE(move.ok()) << "bestmove '" << best << "'";
  if (move.ok()) {
    EXPECT_EQ(root.MoveText(*move), best);
  }
  return best;
}

// An output stream whose text may be read while other threads write to it
// (the engines write whole lines from their search threads).
class SyncOut {
 public:
  SyncOut() : stream_(&buffer_) {}
  std::ostream* stream() { return &stream_; }
  std::string str() {
    std::lock_guard<std::mutex> lock(buffer_.mu);
    return buffer_.text;
  }
  // Waits (up to a minute) until the text from `from` on holds `piece`.
  void WaitFor(std::string_view piece, size_t from = 0) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (str().find(piece, from) == std::string::npos) {
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "no '" << piece << "' in " << str().substr(from);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

 private:
  // Unbuffered: every write lands in `text` under the mutex.
  struct Buffer : std::streambuf {
    std::mutex mu;
    std::string text;
    int_type overflow(int_type c) override {
      if (!traits_type::eq_int_type(c, traits_type::eof())) {
        std::lock_guard<std::mutex> lock(mu);
        text.push_back(traits_type::to_char_type(c));
      }
      return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
      std::lock_guard<std::mutex> lock(mu);
      text.append(s, static_cast<size_t>(n));
      return n;
    }
  };
  Buffer buffer_;
  std::ostream stream_;
};

// An in-process engine fed one command at a time.
class InProcessEngine {
 public:
  explicit InProcessEngine(UciEngineOptions options = {},
                           nn::EvaluatorFactory factory = UniformFactory)
      : engine_(std::move(options), std::move(factory), out_.stream()) {}
  // Handles the commands, waits for a search they started, returns the
  // output lines since the last call.
  std::vector<std::string> Do(const std::vector<std::string>& commands) {
    for (const std::string& c : commands) EXPECT_TRUE(engine_.Handle(c));
    engine_.WaitForSearch();
    return Take();
  }
  std::vector<std::string> Take() {
    const std::string all = out_.str();
    std::vector<std::string> lines = Lines(all.substr(consumed_));
    consumed_ = all.size();
    return lines;
  }
  // Waits until the output not taken yet holds `piece`.
  void WaitFor(std::string_view piece) { out_.WaitFor(piece, consumed_); }
  UciEngine& engine() { return engine_; }

 private:
  SyncOut out_;
  size_t consumed_ = 0;
  UciEngine engine_;
};

// The centipawn score is tested with the search (tests/time_manager_test.cc).
TEST(ScoreTest, WdlAndMates) {
  const float third[3] = {1.0f / 3, 1.0f / 3, 1.0f / 3};
  const std::array<int, 3> w = WdlPerMille(third);
  EXPECT_EQ(w[0] + w[1] + w[2], 1000);
  EXPECT_GE(std::min({w[0], w[1], w[2]}), 333);
  const float zero[3] = {0, 0, 0};
  EXPECT_EQ(WdlPerMille(zero), (std::array<int, 3>{0, 1000, 0}));
  EXPECT_EQ(MateInMoves(search::Proven::kWin, 1), 1);
  EXPECT_EQ(MateInMoves(search::Proven::kWin, 3), 2);
  EXPECT_EQ(MateInMoves(search::Proven::kLoss, 2), -1);
  EXPECT_FALSE(MateInMoves(search::Proven::kDraw, 4).has_value());
  EXPECT_FALSE(MateInMoves(search::Proven::kNone, 0).has_value());
}

TEST(UciEngineTest, AnswersUciIsReadyAndNewGame) {
  UciEngineOptions options;
  options.factory_for = [](const std::string&, int) {
    return nn::EvaluatorFactory(UniformFactory);
  };
  InProcessEngine e(options);
  const std::vector<std::string> lines = e.Do({"uci"});
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "id name Volkhv");
  EXPECT_EQ(lines.back(), "uciok");
  const std::set<std::string> set(lines.begin(), lines.end());
  EXPECT_TRUE(
      set.count("option name Game type combo default tavreli var "
                "tavreli var tavlei9 var tavlei11"));
  EXPECT_TRUE(
      set.count("option name PrinceMaxSteps type spin default 0 min "
                "0 max 100"));
  EXPECT_TRUE(set.count("option name Net type string default random"));
  EXPECT_TRUE(set.count("option name cpuct_init type string default 1.745"));
  EXPECT_TRUE(set.count(
      "option name minibatch_size type spin default 32 min 1 max 4096"));
  EXPECT_TRUE(set.count("option name root_noise type check default false"));
  EXPECT_TRUE(
      set.count("option name Threads type spin default 1 min 1 max "
                "256"));
  EXPECT_TRUE(set.count("option name WeightsFile type string default random"));
  EXPECT_TRUE(
      set.count("option name Backend type combo default auto var auto "
                "var eigen var torch"));
  EXPECT_TRUE(
      set.count("option name NNCacheSize type spin default 262144 min "
                "0 max 67108864"));
  // One option line per search parameter, besides the engine's own (Game,
  // PrinceMaxSteps, Threads, WeightsFile, Net, Backend, NNCacheSize,
  // MultiPV, Seed).
  EXPECT_EQ(CountPrefix(lines, "option name "),
            9 + static_cast<int>(search::SearchParamTable().size()));
  EXPECT_EQ(e.Do({"isready"}), std::vector<std::string>{"readyok"});
  EXPECT_EQ(e.Do({"ucinewgame", "isready"}),
            std::vector<std::string>{"readyok"});
}

TEST(UciEngineTest, SetOptionAcceptsGoodValuesAndNamesBadOnes) {
  InProcessEngine e;
  EXPECT_TRUE(e.Do({"setoption name cpuct_init value 2.5",
                    "setoption name MINIBATCH_SIZE value 8",
                    "setoption name root_noise value true",
                    "setoption name MultiPV value 3",
                    "setoption name PrinceMaxSteps value 2"})
                  .empty());
  const std::vector<std::string> uci = e.Do({"uci"});
  const std::set<std::string> set(uci.begin(), uci.end());
  EXPECT_TRUE(set.count("option name cpuct_init type string default 2.5"));
  EXPECT_TRUE(set.count(
      "option name minibatch_size type spin default 8 min 1 max 4096"));
  EXPECT_TRUE(set.count("option name root_noise type check default true"));

  struct Case {
    const char* command;
    const char* expected;  // a piece of the one error line
  };
  for (const Case& c : std::vector<Case>{
           {"setoption name Foo value 1", "unknown option 'Foo'"},
           {"setoption name minibatch_size value 0", "minibatch_size"},
           {"setoption name cpuct_init value abc", "cpuct_init"},
           {"setoption name Game value chess", "'chess' for option Game"},
           {"setoption name MultiPV value 0", "option MultiPV"},
           {"setoption name PrinceMaxSteps value -1", "PrinceMaxSteps"},
           {"setoption value 3", "setoption"},
           {"setoption name", "setoption"},
       }) {
    SCOPED_TRACE(c.command);
    const std::vector<std::string> lines = e.Do({c.command});
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_TRUE(StartsWith(lines[0], "info string error ")) << lines[0];
    EXPECT_NE(lines[0].find(c.expected), std::string::npos) << lines[0];
  }
  // Rejected values left the accepted ones alone.
  const std::vector<std::string> again = e.Do({"uci"});
  EXPECT_TRUE(std::count(again.begin(), again.end(),
                         "option name minibatch_size type spin default 8 "
                         "min 1 max 4096"));
}

TEST(UciEngineTest, GoNodesReportsLegalPvAndBestMove) {
  InProcessEngine e;
  const std::vector<std::string> lines =
      e.Do({"position startpos moves e2-e4 e7-e5", "go nodes 300"});
  const auto root = Position("tavreli", "", {"e2-e4", "e7-e5"});
  ExpectGoodSearchOutput(lines, *root);
  // The last info line is the final report: 300 playouts.
  std::string last_info;
  for (const std::string& l : lines) {
    if (StartsWith(l, "info depth")) last_info = l;
  }
  EXPECT_EQ(Field(last_info, "nodes"), "300");
  EXPECT_TRUE(StartsWith(lines.back(), "bestmove "));
}

TEST(UciEngineTest, GoWithClocksSpendsAShareOfTheTime) {
  InProcessEngine e;
  const std::vector<std::string> lines =
      e.Do({"position startpos moves e2-e4",
            "go wtime 3000 btime 3000 winc 0 "
            "binc 0 movestogo 20"});
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {"e2-e4"}));
}

TEST(UciEngineTest, MultiPvReportsSeveralMoves) {
  InProcessEngine e;
  // 2,000 nodes: the move both the leaves' and the root's own search find
  // takes three quarters of the root's priors, and the first few hundred
  // visits.
  const std::vector<std::string> lines = e.Do(
      {"setoption name MultiPV value 3", "position startpos", "go nodes 2000"});
  const auto root = Position("tavreli", "", {});
  ExpectGoodSearchOutput(lines, *root);
  // The final report is the last run of lines from "multipv 1" on; reports
  // during the search (more of them on a loaded machine) may rank other
  // moves, so only the final one is checked: three different moves.
  std::vector<std::string> final_report;
  for (const std::string& l : lines) {
    if (!StartsWith(l, "info depth")) continue;
    EXPECT_FALSE(Field(l, "multipv").empty()) << l;
    if (Field(l, "multipv") == "1") final_report.clear();
    final_report.push_back(l);
  }
  ASSERT_EQ(final_report.size(), 3u);
  std::set<std::string> first_moves;
  for (size_t i = 0; i < final_report.size(); ++i) {
    EXPECT_EQ(Field(final_report[i], "multipv"), std::to_string(i + 1));
    first_moves.insert(Field(final_report[i], "pv"));
  }
  EXPECT_EQ(first_moves.size(), 3u);
}

TEST(UciEngineTest, PlaysAndReportsMateInOne) {
  InProcessEngine e;
  const std::vector<std::string> lines =
      e.Do({Cat("position tfen ", kRookMateInOne), "go nodes 100000"});
  const auto root = Position("tavreli", kRookMateInOne, {});
  EXPECT_EQ(ExpectGoodSearchOutput(lines, *root), "h1-h8");
  std::string last_info;
  for (const std::string& l : lines) {
    if (StartsWith(l, "info depth")) last_info = l;
  }
  EXPECT_NE(last_info.find(" score mate 1 wdl 1000 0 0 pv h1-h8"),
            std::string::npos)
      << last_info;
  EXPECT_LT(std::stoll(Field(last_info, "nodes")), 100000);  // stopped early

  // The mated side's view, after the mate: no move, the game is over.
  const std::vector<std::string> over = e.Do(
      {Cat("position tfen ", kRookMateInOne, " moves h1-h8"), "go nodes 10"});
  ASSERT_FALSE(over.empty());
  EXPECT_EQ(over.back(), "bestmove (none)");
  EXPECT_NE(over.front().find("checkmate"), std::string::npos);
}

TEST(UciEngineTest, ReusesTheTreeBetweenPositions) {
  InProcessEngine e;
  std::vector<std::string> lines = e.Do({"position startpos", "go visits 300"});
  const std::string best =
      ExpectGoodSearchOutput(lines, *Position("tavreli", "", {}));
  // The same position again: the tree already holds 300 visits.
  lines = e.Do({"position startpos", "go visits 300"});
  std::string last_info;
  for (const std::string& l : lines) {
    if (StartsWith(l, "info depth")) last_info = l;
  }
  EXPECT_EQ(Field(last_info, "nodes"), "0") << last_info;
  // After the best move its subtree is kept: fewer than 300 new playouts.
  lines = e.Do({"position startpos moves " + best, "go visits 300"});
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {best}));
  for (const std::string& l : lines) {
    if (StartsWith(l, "info depth")) last_info = l;
  }
  EXPECT_LT(std::stoi(Field(last_info, "nodes")), 300) << last_info;
  // ucinewgame forgets it.
  lines = e.Do({"ucinewgame", "position startpos", "go visits 300"});
  for (const std::string& l : lines) {
    if (StartsWith(l, "info depth")) last_info = l;
  }
  EXPECT_EQ(Field(last_info, "nodes"), "300") << last_info;
}

TEST(UciEngineTest, GoInfiniteAnswersIsReadyAndStops) {
  InProcessEngine e;
  EXPECT_TRUE(e.engine().Handle("position startpos moves d2-d4"));
  EXPECT_TRUE(e.engine().Handle("go infinite"));
  // Let the search do something (not required for the checks below).
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(e.engine().Handle("isready"));
  EXPECT_TRUE(e.engine().Handle("stop"));
  const std::vector<std::string> lines = e.Take();
  EXPECT_EQ(CountPrefix(lines, "readyok"), 1);
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {"d2-d4"}));
  EXPECT_TRUE(StartsWith(lines.back(), "bestmove "));
  // A stop with no search running is harmless; quit ends the loop.
  EXPECT_TRUE(e.engine().Handle("stop"));
  EXPECT_FALSE(e.engine().Handle("quit"));
}

TEST(UciEngineTest, MalformedCommandsGetErrorsAndTheEngineGoesOn) {
  InProcessEngine e;
  struct Case {
    const char* command;
    const char* expected;
  };
  for (const Case& c : std::vector<Case>{
           {"bogus", "unknown command 'bogus'"},
           {"position", "position"},
           {"position middlepos", "middlepos"},
           {"position startpos e2-e4", "unexpected 'e2-e4'"},
           {"position startpos moves e2-e4 e7-e5 e4-e6", "move 3 'e4-e6'"},
           {"position tfen", "text is missing"},
           {"position tfen not/a/position w - - 0 1", "position: "},
           {"go nodes", "'nodes' needs a number"},
           {"go nodes abc", "'abc'"},
           {"go movetime -5", "'movetime'"},
           {"go nodes 0", "'nodes' needs a positive integer"},
           {"go sideways", "unknown parameter 'sideways'"},
       }) {
    SCOPED_TRACE(c.command);
    const std::vector<std::string> lines = e.Do({c.command});
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_TRUE(StartsWith(lines[0], "info string error ")) << lines[0];
    EXPECT_NE(lines[0].find(c.expected), std::string::npos) << lines[0];
  }
  EXPECT_EQ(e.Do({"isready"}), std::vector<std::string>{"readyok"});
  // The rejected positions left none: `d` and `go` say so.
  EXPECT_EQ(e.Do({"d"}),
            std::vector<std::string>{"info string error d: no position: the "
                                     "last 'position' command was rejected"});
  // A good position again: `d` shows it, go searches it.
  const std::vector<std::string> shown = e.Do({"position startpos", "d"});
  ASSERT_FALSE(shown.empty());
  EXPECT_EQ(shown.back(), "info string position " +
                              Position("tavreli", "", {})->PositionText());
  EXPECT_EQ(shown.front().substr(0, 14), "info string 8 ");
  const std::vector<std::string> lines = e.Do({"go nodes 50"});
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {}));
}

// Issue 19, item 3: after a rejected `position` a `go` searched the previous
// position and answered a move for it. Now it answers an error and no move
// (as lc0 does), until a position is accepted.
TEST(UciEngineTest, ARejectedPositionLeavesNoneAndGoAnswersAnError) {
  InProcessEngine e;
  ExpectGoodSearchOutput(
      e.Do({Cat("position tfen ", kRookMateInOne), "go nodes 50"}),
      *Position("tavreli", kRookMateInOne, {}));
  std::vector<std::string> lines =
      e.Do({"position startpos moves e2-e4 e7-e5 e4-e6", "go nodes 50"});
  ASSERT_EQ(lines.size(), 2u) << lines.back();
  EXPECT_TRUE(StartsWith(lines[0], "info string error position: move 3"));
  EXPECT_EQ(lines[1],
            "info string error go: no position: the last 'position' command "
            "was rejected; send a valid one");
  EXPECT_EQ(CountPrefix(lines, "bestmove"), 0);
  // Still none after isready; ucinewgame gives the start position.
  EXPECT_EQ(e.Do({"isready", "go nodes 10"}).size(), 2u);
  ExpectGoodSearchOutput(e.Do({"ucinewgame", "go nodes 50"}),
                         *Position("tavreli", "", {}));
  lines = e.Do({"position tfen nonsense", "go infinite"});
  EXPECT_EQ(CountPrefix(lines, "info string error go: no position"), 1);
  ExpectGoodSearchOutput(e.Do({"position startpos moves d2-d4", "go nodes 30"}),
                         *Position("tavreli", "", {"d2-d4"}));
}

// A net that cannot be loaded is refused when it is set (issue 19): the
// engine keeps the net it had.
TEST(UciEngineTest, BadNetIsRefusedWhenSetAndTheOldOneStays) {
  InProcessEngine e;
  std::vector<std::string> lines =
      e.Do({"setoption name Net value missing.pb", "isready"});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(StartsWith(lines[0],
                         "info string error setoption Net refused: "
                         "missing.pb: no such"))
      << lines[0];
  EXPECT_NE(lines[0].find("the net stays 'random'"), std::string::npos)
      << lines[0];
  EXPECT_EQ(lines[1], "readyok");
  lines = e.Do({"go nodes 10"});
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {}));
  lines = e.Do({"uci"});
  EXPECT_EQ(CountPrefix(lines,
                        "option name WeightsFile type string default "
                        "random"),
            1);
}

// The last `info depth` line of a search's output ("" if none).
std::string LastInfo(const std::vector<std::string>& lines) {
  std::string last;
  for (const std::string& l : lines) {
    if (StartsWith(l, "info depth")) last = l;
  }
  return last;
}

// Issue 19, item 3: `bestmove X ponder Y` names the expected reply, the
// second move of X's PV.
TEST(UciEngineTest, BestMoveNamesThePonderMove) {
  InProcessEngine e;
  const std::vector<std::string> lines =
      e.Do({"position startpos moves e2-e4", "go nodes 400"});
  const auto root = Position("tavreli", "", {"e2-e4"});
  ExpectGoodSearchOutput(lines, *root);
  const std::vector<std::string> words = Words(lines.back());
  ASSERT_EQ(words.size(), 4u) << lines.back();
  EXPECT_EQ(words[2], "ponder");
  // The final report's PV is the best move's: its first two moves.
  const std::vector<std::string> info = Words(LastInfo(lines));
  const auto pv = std::find(info.begin(), info.end(), "pv");
  ASSERT_LE(pv + 3, info.end());
  EXPECT_EQ(*(pv + 1), words[1]);
  EXPECT_EQ(*(pv + 2), words[3]);
  auto after = Position("tavreli", "", {"e2-e4", words[1]});
  EXPECT_TRUE(after->ParseMove(words[3]).ok()) << words[3];
}

// `go ponder` searches without limit and answers nothing until `ponderhit`
// (then the go's own limits, on the same tree) or `stop`.
TEST(UciEngineTest, PonderThenPonderHitOrStop) {
  UciEngineOptions options;
  options.progress_interval_ms = 1;
  InProcessEngine e(options);
  EXPECT_TRUE(e.engine().Handle("position startpos moves e2-e4 e7-e5"));
  EXPECT_TRUE(e.engine().Handle("go ponder visits 5000"));
  // Pondering reports as it goes, and gives no move.
  e.WaitFor("info depth");
  EXPECT_TRUE(e.engine().Handle("isready"));
  e.WaitFor("readyok");
  std::vector<std::string> lines = e.Take();
  EXPECT_EQ(CountPrefix(lines, "bestmove"), 0);
  EXPECT_TRUE(e.engine().Handle("ponderhit"));
  e.engine().WaitForSearch();
  lines = e.Take();
  const auto root = Position("tavreli", "", {"e2-e4", "e7-e5"});
  ExpectGoodSearchOutput(lines, *root);
  // After ponderhit the visits limit counted the pondered visits: fewer
  // than 5000 new playouts (none if pondering went past 5000).
  EXPECT_LT(std::stoll(Field(LastInfo(lines), "nodes")), 5000)
      << LastInfo(lines);
  // A ponderhit with nothing pondered changes nothing.
  EXPECT_TRUE(e.Do({"ponderhit"}).empty());

  // stop while pondering: the move is answered at once.
  EXPECT_TRUE(e.engine().Handle("go ponder nodes 100"));
  e.WaitFor("info depth");
  EXPECT_TRUE(e.engine().Handle("stop"));
  lines = e.Take();
  ExpectGoodSearchOutput(lines, *root);
  EXPECT_TRUE(StartsWith(lines.back(), "bestmove ")) << lines.back();
  // A pondering search is stopped by the next position, like an infinite
  // one, and that go is answered.
  EXPECT_TRUE(e.engine().Handle("go ponder"));
  lines = e.Do({"position startpos", "go nodes 50"});
  EXPECT_EQ(CountPrefix(lines, "bestmove"), 2);
}

// `go searchmoves` searches only the moves listed; an illegal one is an
// error and no search; the next go searches every move again.
TEST(UciEngineTest, SearchMovesRestrictTheRoot) {
  InProcessEngine e;
  std::vector<std::string> lines =
      e.Do({"setoption name MultiPV value 5", "position startpos",
            "go searchmoves e2-e4 d2-d4 nodes 300"});
  const auto root = Position("tavreli", "", {});
  const std::string best = ExpectGoodSearchOutput(lines, *root);
  EXPECT_TRUE(best.starts_with("e2-e4") || best.starts_with("d2-d4")) << best;
  std::set<std::string> first_moves;
  for (const std::string& l : lines) {
    if (StartsWith(l, "info depth")) first_moves.insert(Field(l, "pv"));
  }
  EXPECT_EQ(first_moves, (std::set<std::string>{"d2-d4", "e2-e4"}));
  lines = e.Do({"go searchmoves e2-e5 nodes 10"});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(StartsWith(lines[0], "info string error go: searchmoves 'e2-e5'"))
      << lines[0];
  lines = e.Do({"go searchmoves nodes 10"});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("needs at least one move"), std::string::npos);
  lines = e.Do({"go nodes 2000"});
  first_moves.clear();
  for (const std::string& l : lines) {
    if (StartsWith(l, "info depth")) first_moves.insert(Field(l, "pv"));
  }
  EXPECT_GT(first_moves.size(), 2u);
}

// MCTS's `go depth N`: until the reported (mean) depth reaches N; `go mate
// N`: until a win in N is proven, without a stop.
TEST(UciEngineTest, GoDepthAndGoMate) {
  InProcessEngine e;
  std::vector<std::string> lines = e.Do({"position startpos", "go depth 3"});
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {}));
  EXPECT_GE(std::stoi(Field(LastInfo(lines), "depth")), 3) << LastInfo(lines);
  lines = e.Do({Cat("position tfen ", kRookMateInOne), "go mate 1"});
  EXPECT_EQ(
      ExpectGoodSearchOutput(lines, *Position("tavreli", kRookMateInOne, {})),
      "h1-h8");
  EXPECT_NE(LastInfo(lines).find(" score mate 1 "), std::string::npos);
  // A mate not found ends at the other limits.
  lines = e.Do({"position startpos", "go mate 2 nodes 200"});
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {}));
  EXPECT_EQ(Field(LastInfo(lines), "nodes"), "200");
  for (const char* bad : {"go depth 0", "go depth 1001", "go mate 128"}) {
    lines = e.Do({bad});
    ASSERT_EQ(lines.size(), 1u) << bad;
    EXPECT_TRUE(StartsWith(lines[0], "info string error go: '")) << lines[0];
  }
}

// Threads is UCI's name of search_threads: N threads grow one tree.
TEST(UciEngineTest, ThreadsSetsTheSearchThreads) {
  InProcessEngine e;
  EXPECT_TRUE(e.Do({"setoption name Threads value 4"}).empty());
  std::vector<std::string> lines = e.Do({"uci"});
  EXPECT_EQ(CountPrefix(lines,
                        "option name Threads type spin default 4 min "
                        "1 max 256"),
            1);
  EXPECT_EQ(CountPrefix(lines,
                        "option name search_threads type spin default "
                        "4 min 1 max 256"),
            1);
  lines = e.Do({"position startpos", "go nodes 400"});
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {}));
  EXPECT_EQ(Field(LastInfo(lines), "nodes"), "400");
  lines = e.Do({"setoption name Threads value 0"});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("Threads: search parameter 'search_threads'"),
            std::string::npos)
      << lines[0];
}

// A factory that knows nets named "<game>.net" (and "random") and records
// what it was asked for, with the backend and cache size it was made for; a
// net for another game is refused naming both, as the CLI's factory does
// (nn/weights_file.h: CheckNetworkFits).
struct RecordingFactory {
  struct Request {
    std::string net;
    std::string backend;
    int cache_entries = 0;
  };
  std::shared_ptr<std::vector<Request>> requests =
      std::make_shared<std::vector<Request>>();
  nn::EvaluatorFactory Factory(const std::string& backend = "auto",
                               int cache_entries = 1 << 18) const {
    return [requests = requests, backend, cache_entries](const std::string& net,
                                                         const Game& game)
               -> absl::StatusOr<std::shared_ptr<nn::Evaluator>> {
      requests->push_back({net, backend, cache_entries});
      if (net != "random") {
        const std::string net_game = net.substr(0, net.find(".net"));
        if (net_game != game.Info().name) {
          return absl::InvalidArgumentError(Cat(
              net, ": net is for game ", net_game, ", not ", game.Info().name));
        }
      }
      return std::make_shared<nn::UniformEvaluator>();
    };
  }
  // UciEngineOptions::factory_for.
  std::function<nn::EvaluatorFactory(const std::string&, int)> FactoryFor()
      const {
    return [self = *this](const std::string& backend, int cache_entries) {
      return self.Factory(backend, cache_entries);
    };
  }
};

// WeightsFile (and Net), Backend and NNCacheSize rebuild the evaluator
// through the factory when set; a net for another game is refused then,
// naming both games, and the old one stays.
TEST(UciEngineTest, EvaluatorOptionsGoThroughTheFactoryWhenSet) {
  RecordingFactory factory;
  UciEngineOptions options;
  options.factory_for = factory.FactoryFor();
  InProcessEngine e(options, factory.Factory());
  EXPECT_TRUE(e.Do({"setoption name Backend value eigen"}).empty());
  ASSERT_EQ(factory.requests->size(), 1u);
  EXPECT_EQ(factory.requests->back().net, "random");
  EXPECT_EQ(factory.requests->back().backend, "eigen");
  EXPECT_EQ(factory.requests->back().cache_entries, 1 << 18);
  EXPECT_TRUE(e.Do({"setoption name NNCacheSize value 1000"}).empty());
  EXPECT_EQ(factory.requests->back().backend, "eigen");
  EXPECT_EQ(factory.requests->back().cache_entries, 1000);
  std::vector<std::string> lines =
      e.Do({"setoption name Backend value gpu",
            "setoption name NNCacheSize value -1"});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("'gpu' for option Backend"), std::string::npos);
  EXPECT_NE(lines[1].find("option NNCacheSize"), std::string::npos);
  EXPECT_EQ(factory.requests->size(), 2u);

  lines = e.Do({"setoption name WeightsFile value tavlei9.net"});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(StartsWith(lines[0],
                         "info string error setoption WeightsFile refused: "
                         "tavlei9.net: net is for game tavlei9, not tavreli"))
      << lines[0];
  lines = e.Do({"uci"});
  EXPECT_EQ(CountPrefix(lines,
                        "option name WeightsFile type string default "
                        "random"),
            1);
  EXPECT_EQ(CountPrefix(lines, "option name Backend type combo default eigen"),
            1);
  // The game first, then its net: accepted.
  EXPECT_TRUE(e.Do({"setoption name Game value tavlei9",
                    "setoption name WeightsFile value tavlei9.net"})
                  .empty());
  EXPECT_EQ(factory.requests->back().net, "tavlei9.net");
  EXPECT_EQ(factory.requests->back().backend, "eigen");
  ExpectGoodSearchOutput(e.Do({"position startpos", "go nodes 50"}),
                         *Position("tavlei9", "", {}));
  // A front end that cannot change them offers neither option.
  InProcessEngine plain;
  lines = plain.Do({"uci"});
  EXPECT_EQ(CountPrefix(lines, "option name Backend"), 0);
  EXPECT_EQ(CountPrefix(lines, "option name NNCacheSize"), 0);
  EXPECT_EQ(
      plain.Do({"setoption name Backend value eigen"}),
      std::vector<std::string>{"info string error unknown option 'Backend'"});
}

// Load() makes the net before `uci`: a net for another game is an error
// naming both.
TEST(UciEngineTest, LoadRefusesANetForAnotherGame) {
  RecordingFactory factory;
  std::ostringstream out;
  UciEngineOptions options;
  options.net = "tavlei9.net";
  UciEngine wrong(options, factory.Factory(), &out);
  const absl::Status status = wrong.Load();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message())
                .find("net is for game tavlei9, not tavreli"),
            std::string::npos)
      << status.message();
  options.game = "tavlei9";
  UciEngine right(options, factory.Factory(), &out);
  EXPECT_TRUE(right.Load().ok());
  EXPECT_EQ(out.str(), "");
}

// `volkhv engine --player alphabeta:...`: the baseline answers go with an
// info line (depth, nodes, score, pv) and a legal bestmove.
TEST(UciEngineTest, AlphaBetaPlayerAnswersGo) {
  UciEngineOptions options;
  options.alphabeta = AlphaBetaEngineOptions();
  options.alphabeta->name = "alphabeta:depth=2";
  options.alphabeta->limits.depth = 2;
  RecordingFactory factory;
  InProcessEngine e(options, factory.Factory());
  std::vector<std::string> lines = e.Do({"uci"});
  EXPECT_EQ(lines.front(), "id name Volkhv alphabeta:depth=2");
  EXPECT_EQ(CountPrefix(lines, "option name WeightsFile"), 0);
  EXPECT_EQ(CountPrefix(lines, "option name Threads"), 1);
  // One thread, and it says so.
  EXPECT_EQ(e.Do({"setoption name Threads value 4"}),
            std::vector<std::string>{
                "info string Threads 4: the player alphabeta:depth=2 searches "
                "on one thread; Threads stays 1"});
  auto check = [](const std::vector<std::string>& out, const GameState& root,
                  const std::string& depth) {
    ASSERT_EQ(out.size(), 2u);
    EXPECT_TRUE(StartsWith(out[0], "info depth " + depth + " ")) << out[0];
    EXPECT_FALSE(Field(out[0], "nodes").empty());
    EXPECT_TRUE(out[0].find(" score cp ") != std::string::npos ||
                out[0].find(" score mate ") != std::string::npos);
    ASSERT_TRUE(StartsWith(out[1], "bestmove ")) << out[1];
    const std::string best = Words(out[1])[1];
    EXPECT_EQ(Field(out[0], "pv"), best);
    EXPECT_TRUE(root.ParseMove(best).ok()) << best;
  };
  const auto start = Position("tavreli", "", {"e2-e4"});
  check(e.Do({"position startpos moves e2-e4", "go"}), *start, "2");
  check(e.Do({"go depth 1"}), *start, "1");
  lines = e.Do({"go movetime 50"});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(StartsWith(lines[1], "bestmove ")) << lines[1];
  lines = e.Do({Cat("position tfen ", kRookMateInOne), "go mate 1"});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find(" score mate 1 pv h1-h8"), std::string::npos)
      << lines[0];
  EXPECT_EQ(lines[1], "bestmove h1-h8");
  // An infinite search waits for stop, a pondering one for ponderhit.
  EXPECT_TRUE(e.engine().Handle("go infinite"));
  EXPECT_TRUE(e.engine().Handle("stop"));
  EXPECT_EQ(e.Take().back(), "bestmove h1-h8");
  EXPECT_TRUE(e.engine().Handle("go ponder"));
  EXPECT_TRUE(e.engine().Handle("ponderhit"));
  e.engine().WaitForSearch();
  EXPECT_EQ(e.Take().back(), "bestmove h1-h8");
  // No nets, no searchmoves; nothing asked of the factory.
  lines =
      e.Do({"setoption name WeightsFile value random", "go searchmoves h1-h8"});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("does not apply to the player alphabeta:depth=2"),
            std::string::npos);
  EXPECT_NE(lines[1].find("searchmoves"), std::string::npos);
  EXPECT_TRUE(factory.requests->empty());
  // The game over: no move.
  lines = e.Do({Cat("position tfen ", kRookMateInOne, " moves h1-h8"), "go"});
  EXPECT_EQ(lines.back(), "bestmove (none)");
}

TEST(UciEngineTest, PlaysTavleiChosenByOption) {
  InProcessEngine e;
  std::vector<std::string> lines = e.Do({"setoption name Game value tavlei9",
                                         "position startpos moves "
                                         "a4-a2",
                                         "go nodes 200"});
  ExpectGoodSearchOutput(lines, *Position("tavlei9", "", {"a4-a2"}));
  lines = e.Do({Cat("position tfen ", kPrinceEscapesInOne), "go nodes 50000"});
  EXPECT_EQ(ExpectGoodSearchOutput(
                lines, *Position("tavlei9", kPrinceEscapesInOne, {})),
            "a5-a1");
  EXPECT_NE(lines[lines.size() - 2].find("score mate 1"), std::string::npos);
  // Tavreli moves are rejected in Tavlei.
  lines = e.Do({"position startpos moves e2-e4"});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(StartsWith(lines[0], "info string error position: move 1"));
  // tavlei11 too; the option lines follow the current game.
  lines = e.Do({"setoption name Game value tavlei11", "uci"});
  EXPECT_TRUE(std::count(lines.begin(), lines.end(),
                         "option name Game type combo default tavlei11 var "
                         "tavreli var tavlei9 var tavlei11"));
  lines = e.Do({"position startpos", "go nodes 100"});
  ExpectGoodSearchOutput(lines, *Position("tavlei11", "", {}));
}

TEST(UciEngineTest, RunReadsUntilEndOfInput) {
  std::istringstream in(
      "uci\nisready\nposition startpos moves e2-e4\ngo nodes 200\n");
  std::ostringstream out;
  {
    UciEngine engine(UciEngineOptions(), UniformFactory, &out);
    EXPECT_EQ(engine.Run(in), 0);
  }
  const std::vector<std::string> lines = Lines(out.str());
  EXPECT_EQ(CountPrefix(lines, "uciok"), 1);
  EXPECT_EQ(CountPrefix(lines, "readyok"), 1);
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {"e2-e4"}));
  std::string last_info;
  for (const std::string& l : lines) {
    if (StartsWith(l, "info depth")) last_info = l;
  }
  // End of input waited for the limited search to finish.
  EXPECT_EQ(Field(last_info, "nodes"), "200");
}

// Issue 22, item 13: huge increments and moves-to-go do not overflow the
// time share (UBSan saw it): the clock's share is spent, not 1 ms.
TEST(UciEngineTest, HugeClockValuesDoNotOverflow) {
  InProcessEngine e;
  std::vector<std::string> lines =
      e.Do({"position startpos", "go wtime 1000 winc 9223372036854775807"});
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {}));
  std::string last_info;
  for (const std::string& l : lines) {
    if (StartsWith(l, "info depth")) last_info = l;
  }
  // The share is the clock less its margin (900 ms), never more.
  EXPECT_GE(std::stoll(Field(last_info, "time")), 100) << last_info;
  lines = e.Do({"go wtime 1000 movestogo 9223372036854775807"});
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {}));
  lines = e.Do({"go wtime -9223372036854775807 winc 9223372036854775807"});
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {}));
}

// Issue 22, item 11: stop, isready and quit are answered while a limited
// search runs, even behind a command that waits for it.
TEST(UciEngineTest, RunAnswersStopDuringALimitedSearch) {
  UciEngineOptions options;
  options.params.ram_limit_mb = 0;  // no cap: the search would run forever
  std::istringstream in(
      "go nodes 1000000000\nposition startpos\nisready\nstop\n"
      "go nodes 50\nquit\n");
  std::ostringstream out;
  {
    UciEngine engine(options, UniformFactory, &out);
    EXPECT_EQ(engine.Run(in), 0);
  }
  const std::vector<std::string> lines = Lines(out.str());
  EXPECT_EQ(CountPrefix(lines, "readyok"), 1);
  ASSERT_EQ(CountPrefix(lines, "bestmove "), 2) << out.str();
  // The first search was stopped long before its limit.
  for (const std::string& l : lines) {
    if (StartsWith(l, "info depth")) {
      EXPECT_LT(std::stoll(Field(l, "nodes")), 1000000000) << l;
    }
  }
}

// A command line longer than the limit is answered and skipped.
TEST(UciEngineTest, OverlongLinesAreSkipped) {
  UciEngineOptions options;
  options.max_line_bytes = 100;
  std::istringstream in("position startpos moves " + std::string(500, 'x') +
                        "\nisready\n");
  std::ostringstream out;
  {
    UciEngine engine(options, UniformFactory, &out);
    EXPECT_EQ(engine.Run(in), 0);
  }
  const std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 2u) << out.str();
  EXPECT_EQ(lines[0],
            "info string error command longer than 100 bytes "
            "(--max-line-bytes); skipped");
  EXPECT_EQ(lines[1], "readyok");
}

// ---- The real binary through pipes ----

bool HaveBinary() { return access(VOLKHV_BINARY, X_OK) == 0; }

// `volkhv <args>` with its stdin and stdout on pipes (stderr to stdout).
class Child {
 public:
  explicit Child(const std::vector<std::string>& args) {
    signal(SIGPIPE, SIG_IGN);
    int in_pipe[2], out_pipe[2];
    EXPECT_EQ(pipe(in_pipe), 0);
    EXPECT_EQ(pipe(out_pipe), 0);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in_pipe[0], 0);
      dup2(out_pipe[1], 1);
      dup2(out_pipe[1], 2);
      close(in_pipe[0]);
      close(in_pipe[1]);
      close(out_pipe[0]);
      close(out_pipe[1]);
      ExecVolkhv(args);
    }
    close(in_pipe[0]);
    close(out_pipe[1]);
    to_child_ = in_pipe[1];
    from_child_ = out_pipe[0];
  }
  ~Child() {
    CloseInput();
    if (from_child_ >= 0) close(from_child_);
    if (pid_ > 0 && !waited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  void Send(const std::string& line) {
    const std::string data = line + "\n";
    ASSERT_EQ(write(to_child_, data.data(), data.size()),
              static_cast<ssize_t>(data.size()));
  }
  void CloseInput() {
    if (to_child_ >= 0) close(to_child_);
    to_child_ = -1;
  }
  // Lines up to and including the first that starts with `prefix`. Gives up
  // (failing the test) if the child says nothing for a minute or exits.
  std::vector<std::string> ReadUntil(std::string_view prefix) {
    std::vector<std::string> lines;
    for (;;) {
      const size_t newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        lines.push_back(buffer_.substr(0, newline));
        buffer_.erase(0, newline + 1);
        if (StartsWith(lines.back(), prefix)) return lines;
        continue;
      }
      pollfd fd{from_child_, POLLIN, 0};
      if (poll(&fd, 1, 60000) <= 0) {
        ADD_FAILURE() << "no line starting with '" << prefix << "'";
        return lines;
      }
      char chunk[4096];
      const ssize_t n = read(from_child_, chunk, sizeof(chunk));
      if (n <= 0) {
        ADD_FAILURE() << "the engine ended before '" << prefix << "'";
        return lines;
      }
      buffer_.append(chunk, n);
    }
  }
  // The rest of the output, until the child closes it.
  std::string ReadAll() {
    char chunk[4096];
    for (;;) {
      pollfd fd{from_child_, POLLIN, 0};
      if (poll(&fd, 1, 60000) <= 0) break;
      const ssize_t n = read(from_child_, chunk, sizeof(chunk));
      if (n <= 0) break;
      buffer_.append(chunk, n);
    }
    std::string all;
    all.swap(buffer_);
    return all;
  }
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    waited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  bool waited_ = false;
  std::string buffer_;
};

TEST(EnginePipeTest, ConversationThroughPipes) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  Child engine({"engine", "--net", "random"});
  engine.Send("uci");
  std::vector<std::string> lines = engine.ReadUntil("uciok");
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "id name Volkhv");
  engine.Send("isready");
  EXPECT_EQ(engine.ReadUntil("readyok"), std::vector<std::string>{"readyok"});

  engine.Send("position startpos moves e2-e4");
  engine.Send("go nodes 300");
  lines = engine.ReadUntil("bestmove");
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {"e2-e4"}));

  // An infinite search answers isready while it runs and stops on stop.
  engine.Send("position startpos moves e2-e4 e7-e5");
  engine.Send("go infinite");
  engine.Send("isready");
  lines = engine.ReadUntil("readyok");
  EXPECT_EQ(CountPrefix(lines, "bestmove"), 0);
  engine.Send("stop");
  lines = engine.ReadUntil("bestmove");
  const std::string best = Words(lines.back())[1];
  EXPECT_TRUE(Position("tavreli", "", {"e2-e4", "e7-e5"})->ParseMove(best).ok())
      << best;

  // Errors, and the engine still answers.
  engine.Send("position startpos moves e2-e9");
  lines = engine.ReadUntil("info string error");
  EXPECT_NE(lines.back().find("'e2-e9'"), std::string::npos) << lines.back();
  engine.Send("frobnicate");
  engine.ReadUntil("info string error unknown command 'frobnicate'");
  engine.Send("isready");
  engine.ReadUntil("readyok");

  engine.Send("setoption name Game value tavlei9");
  engine.Send("position startpos");
  engine.Send("go nodes 100");
  lines = engine.ReadUntil("bestmove");
  ExpectGoodSearchOutput(lines, *Position("tavlei9", "", {}));

  engine.Send("quit");
  EXPECT_EQ(engine.Wait(), 0);
}

TEST(EnginePipeTest, ScriptFromAFile) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  // End of input: the limited search finishes and its bestmove is written.
  RunResult r = VolkhvWithInput(
      "engine --net random",
      "uci\nisready\nposition startpos moves e2-e4\ngo nodes 200\n");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  std::vector<std::string> lines = Lines(r.out);
  EXPECT_EQ(CountPrefix(lines, "uciok"), 1);
  EXPECT_EQ(CountPrefix(lines, "readyok"), 1);
  ExpectGoodSearchOutput(lines, *Position("tavreli", "", {"e2-e4"}));
  // The binary caps the tree (--ram-mb 2048 by default) and says how full.
  EXPECT_NE(r.out.find(" hashfull "), std::string::npos) << r.out;
  // quit stops a search at once but still answers a legal move.
  r = VolkhvWithInput("engine --net random",
                      "position startpos\ngo infinite\nquit\n");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  lines = Lines(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(StartsWith(lines.back(), "bestmove ")) << r.out;
  EXPECT_TRUE(
      Position("tavreli", "", {})->ParseMove(Words(lines.back())[1]).ok());
  // Usage errors exit 2.
  r = VolkhvWithInput("engine --game chess", "");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = VolkhvWithInput("engine --ram-mb -1", "");
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

// Issue 22, item 11: `go nodes 1000000000` then `stop` stops at once,
// through the real binary (its reader thread), with no tree cap at all.
TEST(EnginePipeTest, StopEndsALongLimitedSearch) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  Child engine({"engine", "--net", "random", "--ram-mb", "0"});
  engine.Send("go nodes 1000000000");
  engine.Send("position startpos");
  engine.Send("isready");
  // Without the reader this would come after the billion nodes.
  std::vector<std::string> lines = engine.ReadUntil("readyok");
  EXPECT_EQ(CountPrefix(lines, "bestmove"), 0);
  const auto started = std::chrono::steady_clock::now();
  engine.Send("stop");
  lines = engine.ReadUntil("bestmove");
  // Generous: a search that ignored stop would take many minutes.
  EXPECT_LT(std::chrono::steady_clock::now() - started,
            std::chrono::seconds(30));
  EXPECT_TRUE(StartsWith(lines.back(), "bestmove ")) << lines.back();
  engine.Send("go nodes 1000000000");
  engine.Send("quit");
  EXPECT_EQ(engine.Wait(), 0);
}

// Issue 19, item 3, through the binary: ponder and ponderhit with a clock,
// searchmoves, a rejected position, and a net for another game refused at
// startup (before uciok) and when set.
TEST(EnginePipeTest, PonderSearchMovesAndNetsForAnotherGame) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  ScopedTempDir dir;
  const std::string tavlei_net = dir.File("tavlei9.net");
  testing::InitNet("tavlei9", tavlei_net);
  RunResult r = VolkhvWithInput("engine --net " + tavlei_net, "uci\n");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.find("uciok"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("net is for game tavlei9, not tavreli"),
            std::string::npos)
      << r.err;
  r = VolkhvWithInput("engine --game tavlei9 --net " + tavlei_net,
                      "uci\nposition startpos\ngo nodes 20\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectGoodSearchOutput(Lines(r.out), *Position("tavlei9", "", {}));

  Child engine({"engine", "--net", "random"});
  engine.Send("setoption name WeightsFile value " + tavlei_net);
  std::vector<std::string> lines = engine.ReadUntil("info string error");
  EXPECT_NE(lines.back().find("net is for game tavlei9, not tavreli"),
            std::string::npos)
      << lines.back();
  engine.Send("setoption name Game value tavlei9");
  engine.Send("setoption name WeightsFile value " + tavlei_net);
  engine.Send("isready");
  lines = engine.ReadUntil("readyok");
  EXPECT_EQ(lines, std::vector<std::string>{"readyok"});

  // Pondering on the expected reply, then ponderhit with a clock.
  engine.Send("position startpos moves a4-a2");
  engine.Send("go ponder wtime 2000 btime 2000");
  engine.Send("isready");
  lines = engine.ReadUntil("readyok");
  EXPECT_EQ(CountPrefix(lines, "bestmove"), 0);
  engine.Send("ponderhit");
  lines = engine.ReadUntil("bestmove");
  ExpectGoodSearchOutput(lines, *Position("tavlei9", "", {"a4-a2"}));

  // searchmoves, and a rejected position.
  engine.Send("position startpos");
  engine.Send("go nodes 200 searchmoves a4-a3");
  lines = engine.ReadUntil("bestmove");
  EXPECT_TRUE(StartsWith(lines.back(), "bestmove a4-a3")) << lines.back();
  engine.Send("position startpos moves a4-a9");
  engine.Send("go nodes 10");
  engine.Send("isready");
  lines = engine.ReadUntil("readyok");
  EXPECT_EQ(CountPrefix(lines, "bestmove"), 0);
  EXPECT_EQ(CountPrefix(lines, "info string error go: no position"), 1);
  engine.Send("quit");
  EXPECT_EQ(engine.Wait(), 0);
}

// `volkhv engine --player alphabeta:depth=N` speaks the same protocol.
TEST(EnginePipeTest, AlphaBetaEngine) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  RunResult r = VolkhvWithInput(
      "engine --player alphabeta:depth=2",
      "uci\nisready\nposition startpos moves e2-e4\ngo\ngo movetime 50\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "id name Volkhv alphabeta:depth=2");
  EXPECT_EQ(CountPrefix(lines, "readyok"), 1);
  EXPECT_EQ(CountPrefix(lines, "info depth 2 "), 1) << r.out;
  EXPECT_EQ(CountPrefix(lines, "bestmove "), 2) << r.out;
  for (const std::string& line : lines) {
    if (!StartsWith(line, "bestmove ")) continue;
    EXPECT_TRUE(
        Position("tavreli", "", {"e2-e4"})->ParseMove(Words(line)[1]).ok())
        << line;
  }
  r = VolkhvWithInput("engine --player mcts:visits=3", "");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--player"), std::string::npos) << r.err;
  r = VolkhvWithInput("engine --player alphabeta:depth=0", "");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("depth"), std::string::npos) << r.err;
}

// ---- The JSON analysis engine ----

std::map<std::string, std::vector<Json>> ById(const std::string& output) {
  std::map<std::string, std::vector<Json>> answers;
  for (const std::string& line : Lines(output)) {
    Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << "not JSON: " << line;
    if (j.is_discarded()) continue;
    EXPECT_TRUE(j.contains("id")) << line;
    const std::string id =
        j["id"].is_string() ? j["id"].get<std::string>() : std::string("null");
    answers[id].push_back(j);
  }
  return answers;
}

// Checks one answer: legal moves and pvs, visits adding up.
void ExpectGoodAnswer(const Json& answer, const GameState& root) {
  SCOPED_TRACE(answer.dump());
  ASSERT_FALSE(answer.contains("error"));
  ASSERT_TRUE(answer["moveInfos"].is_array());
  ASSERT_FALSE(answer["moveInfos"].empty());
  const Json& root_info = answer["rootInfo"];
  uint64_t sum = 0;
  int order = 0;
  for (const Json& info : answer["moveInfos"]) {
    EXPECT_EQ(info["order"].get<int>(), order++);
    sum += info["visits"].get<uint64_t>();
    const Json& wdl = info["wdl"];
    ASSERT_EQ(wdl.size(), 3u);
    if (info["visits"].get<uint64_t>() > 0) {
      EXPECT_NEAR(
          wdl[0].get<double>() + wdl[1].get<double>() + wdl[2].get<double>(),
          1.0, 1e-4);
      EXPECT_NEAR(info["q"].get<double>(),
                  wdl[0].get<double>() - wdl[2].get<double>(), 1e-4);
    }
    EXPECT_GT(info["prior"].get<double>(), 0);
    std::unique_ptr<GameState> state = root.Clone();
    ASSERT_FALSE(info["pv"].empty());
    EXPECT_EQ(info["pv"][0], info["move"]);
    for (const Json& m : info["pv"]) {
      auto move = state->ParseMove(m.get<std::string>());
      ASSERT_TRUE(move.ok()) << m;
      state->Play(*move);
    }
  }
  if (!root_info.contains("proven")) {
    EXPECT_EQ(sum + 1, root_info["visits"].get<uint64_t>());
  }
  EXPECT_EQ(root_info["position"], root.PositionText());
}

TEST(AnalysisEngineTest, AnswersEveryQueryAndTurn) {
  std::ostringstream out;
  {
    AnalysisEngineOptions options;
    options.threads = 3;
    AnalysisEngine engine(options, UniformFactory, &out);
    engine.Submit(
        R"({"id":"a","game":"tavreli","moves":["e2-e4","e7-e5"],)"
        R"("analyzeTurns":[0,1,2],"maxVisits":120,"includePolicy":true})");
    engine.Submit(R"({"id":"b","game":"tavlei9","maxVisits":80})");
    engine.Submit("");
    engine.Submit(R"({"id":"c","position":")" + std::string(kRookMateInOne) +
                  R"(","maxVisits":5000})");
    engine.Submit(R"({"id":"d","game":"tavlei11","gameOptions":)"
                  R"({"prince_max_steps":3},"maxVisits":60})");
    engine.Finish();
  }
  auto answers = ById(out.str());
  ASSERT_EQ(answers["a"].size(), 3u) << out.str();
  std::set<int> turns;
  for (const Json& a : answers["a"]) {
    const int turn = a["turnNumber"].get<int>();
    turns.insert(turn);
    const std::vector<std::string> all = {"e2-e4", "e7-e5"};
    const auto root =
        Position("tavreli", "",
                 std::vector<std::string>(all.begin(), all.begin() + turn));
    ExpectGoodAnswer(a, *root);
    EXPECT_EQ(a["rootInfo"]["visits"].get<int>(), 120);
    EXPECT_EQ(a["rootInfo"]["currentPlayer"], turn % 2 ? "black" : "white");
    ASSERT_TRUE(a.contains("policy"));
    MoveList legal;
    root->LegalMoves(&legal);
    EXPECT_EQ(a["policy"].size(), static_cast<size_t>(legal.size()));
    double total = 0;
    for (const Json& p : a["policy"]) total += p["prior"].get<double>();
    EXPECT_NEAR(total, 1.0, 1e-3);
  }
  EXPECT_EQ(turns, (std::set<int>{0, 1, 2}));
  ASSERT_EQ(answers["b"].size(), 1u);
  ExpectGoodAnswer(answers["b"][0], *Position("tavlei9", "", {}));
  EXPECT_EQ(answers["b"][0]["rootInfo"]["currentPlayer"], "attackers");
  EXPECT_FALSE(answers["b"][0].contains("policy"));
  ASSERT_EQ(answers["c"].size(), 1u);
  const Json& c = answers["c"][0];
  ExpectGoodAnswer(c, *Position("tavreli", kRookMateInOne, {}));
  EXPECT_EQ(c["moveInfos"][0]["move"], "h1-h8");
  EXPECT_EQ(c["moveInfos"][0]["proven"], "win");
  EXPECT_EQ(c["moveInfos"][0]["provenPlies"], 1);
  EXPECT_EQ(c["rootInfo"]["proven"], "win");
  ASSERT_EQ(answers["d"].size(), 1u);
  ExpectGoodAnswer(answers["d"][0], *Position("tavlei11", "", {}));
}

TEST(AnalysisEngineTest, InvalidQueriesGetErrorsWithTheirIds) {
  std::ostringstream out;
  {
    AnalysisEngine engine(AnalysisEngineOptions(), UniformFactory, &out);
    for (const char* query : {
             R"({"id":"bad-json", "moves": [)",
             R"(["not", "an", "object"])",
             R"({"game":"tavreli"})",
             R"({"id":7})",
             R"({"id":"unknown-game","game":"chess"})",
             R"({"id":"illegal","moves":["e2-e4","e2-e4"]})",
             R"({"id":"bad-position","position":"xyz"})",
             R"({"id":"bad-turn","moves":["e2-e4"],"analyzeTurns":[2]})",
             R"({"id":"bad-visits","maxVisits":0})",
             R"({"id":"bad-option","game":"tavreli","gameOptions":{"x":1}})",
             R"({"id":"bad-policy","includePolicy":"yes"})",
             R"({"id":"good","maxVisits":50})",
         }) {
      engine.Submit(query);
    }
    engine.Finish();
  }
  const std::string text = out.str();
  auto answers = ById(text);
  auto error_of = [&](const std::string& id) -> std::string {
    if (answers[id].size() != 1 || !answers[id][0].contains("error")) {
      ADD_FAILURE() << "no single error for " << id << " in\n" << text;
      return "";
    }
    const std::string error = answers[id][0]["error"].get<std::string>();
    EXPECT_EQ(error.find('\n'), std::string::npos);
    return error;
  };
  EXPECT_NE(error_of("unknown-game").find("chess"), std::string::npos);
  EXPECT_NE(error_of("illegal").find("moves[1] 'e2-e4'"), std::string::npos);
  EXPECT_NE(error_of("bad-position").find("position"), std::string::npos);
  EXPECT_NE(error_of("bad-turn").find("analyzeTurns"), std::string::npos);
  EXPECT_NE(error_of("bad-visits").find("maxVisits"), std::string::npos);
  EXPECT_NE(error_of("bad-option").find("'x'"), std::string::npos);
  EXPECT_NE(error_of("bad-policy").find("includePolicy"), std::string::npos);
  // Without a usable id: null ids (invalid JSON, not an object, no id) and
  // the number id echoed.
  ASSERT_EQ(answers["null"].size(), 4u) << text;
  int invalid_json = 0;
  for (const Json& a : answers["null"]) {
    ASSERT_TRUE(a.contains("error"));
    if (a["error"].get<std::string>().starts_with("invalid JSON")) {
      ++invalid_json;
    }
  }
  EXPECT_EQ(invalid_json, 1);
  // The engine went on to answer the good query.
  ASSERT_EQ(answers["good"].size(), 1u);
  ExpectGoodAnswer(answers["good"][0], *Position("tavreli", "", {}));
}

// The answers of `output`, in order, as JSON.
std::vector<Json> AllAnswers(const std::string& output) {
  std::vector<Json> all;
  for (const std::string& line : Lines(output)) {
    Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << line;
    if (!j.is_discarded()) all.push_back(std::move(j));
  }
  return all;
}

// A factory of uniform evaluators that take `micros` per position, so that
// a search certainly lasts; counts the evaluators it made.
struct SlowFactory {
  int micros = 200;
  std::shared_ptr<std::atomic<int>> made =
      std::make_shared<std::atomic<int>>(0);
  testing::EvaluationGate* gate = nullptr;
  nn::EvaluatorFactory Factory() const {
    return [micros = micros, made = made, gate = gate](
               const std::string& net,
               const Game&) -> absl::StatusOr<std::shared_ptr<nn::Evaluator>> {
      ++*made;
      return std::make_shared<testing::FakeEvaluator>(
          nullptr,
          [micros](const GameState&) {
            std::this_thread::sleep_for(std::chrono::microseconds(micros));
            return std::array<float, 3>{1.0f / 3, 1.0f / 3, 1.0f / 3};
          },
          gate);
    };
  }
};

// Issue 19, item 4: reportDuringSearchEvery gives answers with
// "isDuringSearch": true before the final one (false).
TEST(AnalysisEngineTest, ReportsDuringTheSearchBeforeTheFinalAnswer) {
  SyncOut out;
  {
    AnalysisEngineOptions options;
    options.threads = 1;
    AnalysisEngine engine(options, SlowFactory().Factory(), out.stream());
    engine.Submit(R"({"id":"live","maxVisits":400,)"
                  R"("reportDuringSearchEvery":0.001})");
    engine.Submit(R"({"id":"quiet","maxVisits":50})");
    engine.Finish();
  }
  const std::vector<Json> all = AllAnswers(out.str());
  int during = 0;
  bool final_seen = false;
  uint64_t last_visits = 0;
  for (const Json& a : all) {
    if (a["id"] != "live") continue;
    ExpectGoodAnswer(a, *Position("tavreli", "", {}));
    const uint64_t visits = a["rootInfo"]["visits"].get<uint64_t>();
    EXPECT_GE(visits, last_visits);
    last_visits = visits;
    if (a["isDuringSearch"].get<bool>()) {
      EXPECT_FALSE(final_seen) << "a live report after the final answer";
      // The first report comes early; the last may come with the last batch.
      if (during == 0) {
        EXPECT_LT(visits, 400u);
      }
      EXPECT_LE(visits, 400u);
      ++during;
    } else {
      EXPECT_FALSE(final_seen) << "two final answers";
      final_seen = true;
      EXPECT_EQ(visits, 400u);
    }
  }
  EXPECT_TRUE(final_seen);
  EXPECT_GE(during, 1);
  // Without the field: one answer, isDuringSearch false.
  auto answers = ById(out.str());
  ASSERT_EQ(answers["quiet"].size(), 1u);
  EXPECT_EQ(answers["quiet"][0]["isDuringSearch"], false);
}

// terminate ends a running query (its answer has what it found) and drops
// queued ones (noResults); terminate_all ends everything; both are echoed.
TEST(AnalysisEngineTest, TerminateStopsALongQueryAndDropsQueuedOnes) {
  SyncOut out;
  {
    AnalysisEngineOptions options;
    options.threads = 1;
    options.max_visits_cap = 1000000000;
    AnalysisEngine engine(options, SlowFactory().Factory(), out.stream());
    engine.Submit(R"({"id":"long","maxVisits":1000000000,)"
                  R"("reportDuringSearchEvery":0.01})");
    engine.Submit(R"({"id":"queued","moves":["e2-e4"],"analyzeTurns":[0,1],)"
                  R"("maxVisits":1000000000,"reportDuringSearchEvery":0.01})");
    // The long query is being searched once it reports.
    out.WaitFor(R"({"id":"long","turnNumber":0,"isDuringSearch":true)");
    engine.Submit(R"({"id":"t1","action":"terminate","terminateId":"queued",)"
                  R"("turnNumbers":[1]})");
    engine.Submit(R"({"id":"t2","action":"terminate","terminateId":"long"})");
    out.WaitFor(R"({"id":"long","turnNumber":0,"isDuringSearch":false)");
    // The other turn of "queued" runs now; terminate_all ends it.
    out.WaitFor(R"({"id":"queued","turnNumber":0,"isDuringSearch":true)");
    engine.Submit(R"({"id":"t3","action":"terminate_all"})");
    engine.Finish();
  }
  auto answers = ById(out.str());
  const Json* final_long = nullptr;
  for (const Json& a : answers["long"]) {
    if (!a["isDuringSearch"].get<bool>()) final_long = &a;
  }
  ASSERT_NE(final_long, nullptr) << out.str();
  ExpectGoodAnswer(*final_long, *Position("tavreli", "", {}));
  EXPECT_LT((*final_long)["rootInfo"]["visits"].get<uint64_t>(), 1000000000u);
  int no_results = 0, searched = 0;
  for (const Json& a : answers["queued"]) {
    if (a.contains("noResults")) {
      ++no_results;
      EXPECT_EQ(a["turnNumber"], 1);
      EXPECT_EQ(a["isDuringSearch"], false);
    } else if (!a["isDuringSearch"].get<bool>()) {
      ++searched;
      EXPECT_EQ(a["turnNumber"], 0);
    }
  }
  EXPECT_EQ(no_results, 1);
  EXPECT_EQ(searched, 1);
  ASSERT_EQ(answers["t1"].size(), 1u);
  EXPECT_EQ(answers["t1"][0]["action"], "terminate");
  EXPECT_EQ(answers["t1"][0]["turnNumbers"], Json::array({1}));
  ASSERT_EQ(answers["t3"].size(), 1u);
  EXPECT_EQ(answers["t3"][0]["action"], "terminate_all");
}

// query_version, clear_cache (every game's evaluator made afresh), unknown
// actions and fields.
TEST(AnalysisEngineTest, VersionClearCacheAndUnknownFields) {
  std::ostringstream out;
  SlowFactory factory;
  factory.micros = 0;
  {
    AnalysisEngineOptions options;
    options.version = "v-test";
    AnalysisEngine engine(options, factory.Factory(), &out);
    engine.Submit(R"({"id":"v","action":"query_version"})");
    engine.Submit(R"({"id":"a","maxVisits":20,"colour":"red"})");
    engine.Submit(R"({"id":"b","game":"tavlei9","maxVisits":20})");
    engine.Finish();
    EXPECT_EQ(factory.made->load(), 2);
  }
  {
    AnalysisEngine engine(AnalysisEngineOptions(), factory.Factory(), &out);
    engine.Submit(R"({"id":"c","maxVisits":20})");
    engine.Submit(R"({"id":"cc","action":"clear_cache","extra":1})");
    engine.Submit(R"({"id":"x","action":"explode"})");
    engine.Submit(R"({"id":"y","action":"terminate"})");
    engine.Submit(R"({"id":"z","action":7})");
    engine.Finish();
  }
  // One evaluator for the new engine's game, one more from clear_cache.
  EXPECT_EQ(factory.made->load(), 4);
  auto answers = ById(out.str());
  ASSERT_EQ(answers["v"].size(), 1u);
  EXPECT_EQ(answers["v"][0],
            Json::parse(R"({"id":"v","action":"query_version",)"
                        R"("version":"v-test"})"));
  // The unknown field warns, and the query runs.
  ASSERT_EQ(answers["a"].size(), 2u) << out.str();
  EXPECT_EQ(answers["a"][0], Json::parse(R"({"id":"a","warning":)"
                                         R"("unknown field; ignored",)"
                                         R"("field":"colour"})"));
  ExpectGoodAnswer(answers["a"][1], *Position("tavreli", "", {}));
  ASSERT_EQ(answers["cc"].size(), 2u);
  EXPECT_EQ(answers["cc"][0]["field"], "extra");
  EXPECT_EQ(answers["cc"][1],
            Json::parse(R"({"id":"cc","action":"clear_cache","extra":1})"));
  EXPECT_NE(answers["x"][0]["error"].get<std::string>().find("'explode'"),
            std::string::npos);
  EXPECT_NE(answers["y"][0]["error"].get<std::string>().find("terminateId"),
            std::string::npos);
  EXPECT_NE(answers["z"][0]["error"].get<std::string>().find("'action'"),
            std::string::npos);
}

// overrideSettings set search parameters for one query (a lower tree cap
// here: fewer visits); unknown names and bad values are errors naming them.
TEST(AnalysisEngineTest, OverrideSettingsApplyAndBadOnesAreRefused) {
  std::ostringstream out;
  {
    AnalysisEngineOptions options;
    options.params.ram_limit_mb = 64;
    AnalysisEngine engine(options, UniformFactory, &out);
    engine.Submit(R"({"id":"capped","maxVisits":100000,)"
                  R"("overrideSettings":{"ram_limit_mb":0.05,)"
                  R"("cpuct_init":2.5,"two_fold_draws":false}})");
    engine.Submit(R"({"id":"plain","maxVisits":2000})");
    engine.Submit(R"({"id":"unknown","overrideSettings":{"cpuct":2}})");
    engine.Submit(R"({"id":"bad","overrideSettings":{"minibatch_size":0}})");
    engine.Submit(R"({"id":"type","overrideSettings":{"cpuct_init":[1]}})");
    engine.Submit(R"({"id":"lift","overrideSettings":{"ram_limit_mb":0}})");
    engine.Submit(R"({"id":"shape","overrideSettings":3})");
    engine.Finish();
  }
  auto answers = ById(out.str());
  ASSERT_EQ(answers["capped"].size(), 1u);
  ExpectGoodAnswer(answers["capped"][0], *Position("tavreli", "", {}));
  EXPECT_LT(answers["capped"][0]["rootInfo"]["visits"].get<uint64_t>(), 2000u);
  ASSERT_EQ(answers["plain"].size(), 1u);
  EXPECT_EQ(answers["plain"][0]["rootInfo"]["visits"].get<uint64_t>(), 2000u);
  auto error_of = [&](const std::string& id) {
    EXPECT_EQ(answers[id].size(), 1u) << id;
    return answers[id].empty() || !answers[id][0].contains("error")
               ? std::string()
               : answers[id][0]["error"].get<std::string>();
  };
  EXPECT_EQ(error_of("unknown"),
            "overrideSettings: unknown search parameter 'cpuct'");
  EXPECT_NE(error_of("bad").find("'minibatch_size'"), std::string::npos);
  EXPECT_NE(error_of("type").find("'cpuct_init'"), std::string::npos);
  EXPECT_NE(error_of("lift").find("'ram_limit_mb' may lower"),
            std::string::npos);
  EXPECT_NE(error_of("shape").find("'overrideSettings'"), std::string::npos);
}

// allowMoves / avoidMoves restrict the moves searched: at the root by
// default, a player's moves deeper with untilDepth.
TEST(AnalysisEngineTest, AllowAndAvoidMovesRestrictTheSearch) {
  std::ostringstream out;
  {
    AnalysisEngine engine(AnalysisEngineOptions(), UniformFactory, &out);
    engine.Submit(R"({"id":"allow","maxVisits":300,)"
                  R"("allowMoves":[{"moves":["e2-e4","d2-d4"]}]})");
    engine.Submit(R"({"id":"deep","maxVisits":300,)"
                  R"("allowMoves":[{"moves":["e7-e5"],"player":"black",)"
                  R"("untilDepth":2}]})");
    engine.Submit(R"({"id":"avoid","maxVisits":300,"position":")" +
                  std::string(kRookMateInOne) +
                  R"(","avoidMoves":[{"moves":["h1-h8"]}]})");
    engine.Submit(R"({"id":"turns","moves":["e2-e4"],"analyzeTurns":[0,1],)"
                  R"("maxVisits":100,"avoidMoves":[{"moves":["e2-e4",)"
                  R"("e7-e5"]}]})");
    engine.Submit(R"({"id":"bad1","allowMoves":{"moves":[]}})");
    engine.Submit(R"({"id":"bad2","allowMoves":[{"moves":["e2-e4"],)"
                  R"("player":"red"}]})");
    engine.Submit(R"({"id":"bad3","avoidMoves":[{"untilDepth":0,)"
                  R"("moves":[]}]})");
    engine.Submit(R"({"id":"bad4","avoidMoves":[{"move":["e2-e4"]}]})");
    engine.Finish();
  }
  auto answers = ById(out.str());
  auto moves_of = [](const Json& answer) {
    std::set<std::string> moves;
    for (const Json& info : answer["moveInfos"]) {
      moves.insert(info["move"].get<std::string>());
    }
    return moves;
  };
  ASSERT_EQ(answers["allow"].size(), 1u);
  ExpectGoodAnswer(answers["allow"][0], *Position("tavreli", "", {}));
  EXPECT_EQ(moves_of(answers["allow"][0]),
            (std::set<std::string>{"d2-d4", "e2-e4"}));
  // Black answered every white move with e7-e5 (where it is legal).
  ASSERT_EQ(answers["deep"].size(), 1u);
  ExpectGoodAnswer(answers["deep"][0], *Position("tavreli", "", {}));
  for (const Json& info : answers["deep"][0]["moveInfos"]) {
    if (info["pv"].size() >= 2) {
      EXPECT_EQ(info["pv"][1], "e7-e5") << info;
    }
  }
  ASSERT_EQ(answers["avoid"].size(), 1u);
  ExpectGoodAnswer(answers["avoid"][0],
                   *Position("tavreli", kRookMateInOne, {}));
  EXPECT_FALSE(moves_of(answers["avoid"][0]).contains("h1-h8"));
  // The side to move of each turn: white at turn 0, black at turn 1.
  ASSERT_EQ(answers["turns"].size(), 2u);
  for (const Json& a : answers["turns"]) {
    EXPECT_FALSE(
        moves_of(a).contains(a["turnNumber"] == 0 ? "e2-e4" : "e7-e5"));
  }
  for (const char* id : {"bad1", "bad2", "bad3", "bad4"}) {
    ASSERT_EQ(answers[id].size(), 1u) << id;
    EXPECT_TRUE(answers[id][0].contains("error")) << answers[id][0];
  }
  EXPECT_NE(answers["bad2"][0]["error"].get<std::string>().find(
                "allowMoves[0].player"),
            std::string::npos);
  EXPECT_NE(answers["bad3"][0]["error"].get<std::string>().find(
                "avoidMoves[0].untilDepth"),
            std::string::npos);
  EXPECT_NE(answers["bad4"][0]["error"].get<std::string>().find("'move'"),
            std::string::npos);
}

// Queued turns of higher priority start first; ties in order of arrival.
TEST(AnalysisEngineTest, HigherPriorityStartsFirst) {
  testing::EvaluationGate gate;
  SlowFactory factory;
  factory.micros = 0;
  factory.gate = &gate;
  std::ostringstream out;
  {
    AnalysisEngineOptions options;
    options.threads = 1;
    AnalysisEngine engine(options, factory.Factory(), &out);
    gate.Hold(true);
    engine.Submit(R"({"id":"first","maxVisits":20})");
    // The one worker is in "first"'s search, held at the gate.
    ASSERT_TRUE(gate.WaitForHeld(1));
    engine.Submit(R"({"id":"low","maxVisits":20})");
    engine.Submit(R"({"id":"high","maxVisits":20,"priority":5})");
    engine.Submit(R"({"id":"mid","maxVisits":20,"priority":1})");
    engine.Submit(R"({"id":"low2","maxVisits":20,"priority":0})");
    engine.Submit(R"({"id":"bad","priority":1.5})");
    gate.Hold(false);
    engine.Finish();
  }
  std::vector<std::string> order;
  for (const Json& a : AllAnswers(out.str())) {
    order.push_back(a["id"].get<std::string>());
  }
  EXPECT_EQ(order, (std::vector<std::string>{"bad", "first", "high", "mid",
                                             "low", "low2"}));
}

TEST(AnalysisPipeTest, QueriesFromStdinAndEndOfInput) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  std::string input;
  for (int i = 0; i < 6; ++i) {
    Append(&input, R"({"id":"q)", i, R"(","game":")",
           i % 2 ? "tavlei9" : "tavreli", R"(","maxVisits":)", 50 + 10 * i,
           "}\n");
  }
  input += "this is not json\n";
  input += R"({"id":"illegal","moves":["e2-e5"]})"
           "\n";
  input += R"({"id":"late","moves":["d2-d4"],"maxVisits":40})"
           "\n";
  const RunResult r =
      VolkhvWithInput("analysis --net random --analysis-threads 3", input);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  auto answers = ById(r.out);
  for (int i = 0; i < 6; ++i) {
    const std::string id = Cat("q", i);
    ASSERT_EQ(answers[id].size(), 1u) << id << "\n" << r.out;
    ExpectGoodAnswer(answers[id][0],
                     *Position(i % 2 ? "tavlei9" : "tavreli", "", {}));
    EXPECT_EQ(answers[id][0]["rootInfo"]["visits"].get<int>(), 50 + 10 * i);
  }
  ASSERT_EQ(answers["null"].size(), 1u);
  EXPECT_TRUE(answers["null"][0].contains("error"));
  ASSERT_EQ(answers["illegal"].size(), 1u);
  EXPECT_TRUE(answers["illegal"][0].contains("error"));
  ASSERT_EQ(answers["late"].size(), 1u);
  ExpectGoodAnswer(answers["late"][0], *Position("tavreli", "", {"d2-d4"}));
}

// Issue 19, item 4, through the binary: live reports before the final
// answer, terminate, a warning for an unknown field, query_version.
TEST(AnalysisPipeTest, LiveReportsTerminateAndWarnings) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  Child engine({"analysis", "--net", "random", "--analysis-threads", "1",
                "--ram-mb", "64"});
  engine.Send(R"({"id":"v","action":"query_version"})");
  std::vector<std::string> lines = engine.ReadUntil(R"({"id":"v")");
  const Json version = Json::parse(lines.back());
  EXPECT_FALSE(version["version"].get<std::string>().empty());
  engine.Send(R"({"id":"long","maxVisits":100000000,"colour":"red",)"
              R"("reportDuringSearchEvery":0.05})");
  lines = engine.ReadUntil(R"({"id":"long","warning")");
  EXPECT_EQ(Json::parse(lines.back())["field"], "colour");
  lines = engine.ReadUntil(R"({"id":"long","turnNumber":0,)"
                           R"("isDuringSearch":true)");
  ExpectGoodAnswer(Json::parse(lines.back()), *Position("tavreli", "", {}));
  engine.Send(R"({"id":"t","action":"terminate","terminateId":"long"})");
  lines = engine.ReadUntil(R"({"id":"long","turnNumber":0,)"
                           R"("isDuringSearch":false)");
  const Json final_answer = Json::parse(lines.back());
  ExpectGoodAnswer(final_answer, *Position("tavreli", "", {}));
  EXPECT_LT(final_answer["rootInfo"]["visits"].get<uint64_t>(), 100000000u);
  engine.CloseInput();
  const std::string rest = engine.ReadAll();
  std::string all = rest;
  for (const std::string& l : lines) all += l + "\n";
  EXPECT_NE(all.find(R"({"id":"t","action":"terminate","terminateId":"long"})"),
            std::string::npos)
      << all;
  EXPECT_EQ(engine.Wait(), 0);
}

// ---- play and analyze ----

// Issue 22, item 1: a deeply nested query killed the engine (stack
// overflow copying the id); it is refused before parsing and the queries
// after it are answered. Item 14: an overlong line is refused the same way.
TEST(AnalysisPipeTest, DeepAndOverlongQueriesAreRefused) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  std::string input =
      "{\"id\":" + std::string(70000, '[') + std::string(70000, ']') + "}\n";
  input += R"({"id":"turns","moves":["e2-e4"],"analyzeTurns":[)" +
           std::string(5000, '[') + std::string(5000, ']') + "]}\n";
  input +=
      R"({"id":"deep-string","position":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["})"
      "\n";
  input +=
      "{\"id\":\"long\",\"position\":\"" + std::string(250000, 'x') + "\"}\n";
  input += R"({"id":"after","maxVisits":20})"
           "\n";
  const RunResult r = VolkhvWithInput(
      "analysis --net random --max-line-bytes 200000 --analysis-threads 1",
      input);
  EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 1000);
  auto answers = ById(r.out);
  // Two refused for depth, one for length, all without an id.
  ASSERT_EQ(answers["null"].size(), 3u) << r.out.substr(0, 2000);
  int deep = 0, long_lines = 0;
  for (const Json& a : answers["null"]) {
    const std::string error = a["error"].get<std::string>();
    if (error == "invalid JSON: nested deeper than 64 (--max-json-depth)") {
      ++deep;
    }
    if (error == "query longer than 200000 bytes (--max-line-bytes)") {
      ++long_lines;
    }
  }
  EXPECT_EQ(deep, 2);
  EXPECT_EQ(long_lines, 1);
  // Brackets inside a string do not count.
  ASSERT_EQ(answers["deep-string"].size(), 1u);
  EXPECT_NE(
      answers["deep-string"][0]["error"].get<std::string>().find("position"),
      std::string::npos);
  ASSERT_EQ(answers["after"].size(), 1u);
  ExpectGoodAnswer(answers["after"][0], *Position("tavreli", "", {}));
  // Usage errors for the limits.
  EXPECT_EQ(VolkhvWithInput("analysis --max-json-depth 0", "").exit_code, 2);
  EXPECT_EQ(VolkhvWithInput("analysis --ram-mb -1", "").exit_code, 2);
}

// Issue 22, item 2: `analysis` caps each search tree (--ram-mb, as
// `engine`): a query for 100 million visits stops at the cap and answers.
TEST(AnalysisPipeTest, RamMbCapsTheTree) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  const RunResult r = VolkhvWithInput("analysis --net random --ram-mb 4",
                                      R"({"id":"a","maxVisits":100000000})"
                                      "\n");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  auto answers = ById(r.out);
  ASSERT_EQ(answers["a"].size(), 1u) << r.out;
  ExpectGoodAnswer(answers["a"][0], *Position("tavreli", "", {}));
  const uint64_t visits = answers["a"][0]["rootInfo"]["visits"].get<uint64_t>();
  EXPECT_GT(visits, 100u);
  EXPECT_LT(visits, 1000000u);
}

// With a net that has the moves-left head, UCI info lines carry lc0's
// `movesleft` and analysis answers `movesLeft`; without it, neither.
TEST(EnginePipeTest, MovesLeftIsReportedWithTheHeadOnly) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  ScopedTempDir dir;
  const std::string config = dir.File("mlh.textproto");
  testing::WriteFile(
      config,
      "architecture { blocks: 1 filters: 8 value_head_filters: 2 "
      "value_hidden: 8 moves_left_head_filters: 2 moves_left_hidden: 8 "
      "}\n");
  const std::string net = dir.File("mlh.net");
  const RunResult init =
      Volkhv("net init --game tavreli --config " + config + " --out " + net);
  ASSERT_EQ(init.exit_code, 0) << init.err;
  for (const std::string& which : std::vector<std::string>{net, "random"}) {
    SCOPED_TRACE(which);
    const bool head = which == net;
    RunResult r = VolkhvWithInput("engine --net " + which,
                                  "position startpos\ngo nodes 30\n");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string last_info;
    for (const std::string& l : Lines(r.out)) {
      if (StartsWith(l, "info depth")) last_info = l;
    }
    const std::string moves_left = Field(last_info, "movesleft");
    EXPECT_EQ(!moves_left.empty(), head) << last_info;
    if (head) {
      EXPECT_GE(std::stoi(moves_left), 0) << last_info;
    }
    r = VolkhvWithInput("analysis --net " + which,
                        R"({"id":"a","maxVisits":30})"
                        "\n");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto answers = ById(r.out);
    ASSERT_EQ(answers["a"].size(), 1u) << r.out;
    const auto& answer = answers["a"][0];
    EXPECT_EQ(answer["rootInfo"].contains("movesLeft"), head) << answer;
    EXPECT_EQ(answer["moveInfos"][0].contains("movesLeft"), head) << answer;
    if (head) {
      EXPECT_GE(answer["rootInfo"]["movesLeft"].get<double>(), 0) << answer;
    }
  }
}

// Issue 22, item 14: analysis threads that cannot be started (here under a
// 1 GB address-space limit, 1024 stacks) are a one-line error, not an abort.
TEST(AnalysisPipeTest, ThreadsThatCannotStartAreAOneLineError) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  if (::volkhv::testing::kAddressSanitizer) {
    GTEST_SKIP() << "an ASan binary cannot start under ulimit -v";
  }
  const RunResult r = Volkhv("analysis --net random --analysis-threads 1024",
                             "ulimit -v 1000000;");
  const std::string text = r.out + r.err;
  EXPECT_EQ(r.exit_code, 1) << text;
  EXPECT_TRUE(StartsWith(text,
                         "volkhv analysis: cannot start analysis "
                         "thread "))
      << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
}

TEST(PlayTest, ScriptedSessionThroughStdin) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  // An overlong line (issue 22, item 14) is refused and play goes on.
  const RunResult r =
      VolkhvWithInput("play --game tavreli --net random --visits 200",
                      "help\ne2-e5\nmoves\n" + std::string(2 << 20, 'x') +
                          "\ne2-e4\nundo\nd2-d4\nquit\n");
  EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 2000);
  const std::string& out = r.out;
  EXPECT_NE(out.find("Input longer than 1048576 bytes; ignored.\n"),
            std::string::npos);
  // The board with its stacks, the prompt, help.
  EXPECT_NE(out.find("PR    PN    PB"), std::string::npos) << out;
  EXPECT_NE(out.find("white to move> "), std::string::npos);
  EXPECT_NE(out.find("undo"), std::string::npos);
  // The illegal move is explained, the legal moves listed.
  EXPECT_NE(out.find("Illegal move e2-e5: the pawn on e2 cannot move to e5\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("39 legal moves:"), std::string::npos) << out;
  EXPECT_NE(out.find("You play e2-e4"), std::string::npos);
  EXPECT_NE(out.find("Taken back; white to move."), std::string::npos);
  EXPECT_NE(out.find("You play d2-d4"), std::string::npos);
  // Two engine replies with a legal move and an evaluation each.
  int replies = 0;
  for (const std::string& line : Lines(out)) {
    if (!StartsWith(line, "Volkhv plays ")) continue;
    ++replies;
    EXPECT_NE(line.find("W/D/L "), std::string::npos) << line;
    const std::string move = Words(line)[2];
    const std::string first = replies == 1 ? "e2-e4" : "d2-d4";
    EXPECT_TRUE(Position("tavreli", "", {first})->ParseMove(move).ok()) << line;
  }
  EXPECT_EQ(replies, 2) << out;
}

TEST(PlayTest, PlaysToTheEndAndTheEngineCanMoveFirst) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  RunResult r = VolkhvWithInput(
      Cat("play --net random --position '", kRookMateInOne, "' --visits 100"),
      "h1-h8\n");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("Result: white wins (checkmate)"), std::string::npos)
      << r.out;
  // The engine plays the mate when it is its move.
  r = VolkhvWithInput(Cat("play --net random --side second --position '",
                          kRookMateInOne, "' --visits 5000"),
                      "");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("Volkhv plays h1-h8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mate in 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Result: white wins (checkmate)"), std::string::npos);
  // Tavlei: the engine (attackers) moves first, the input ends.
  r = VolkhvWithInput(
      "play --net random --game tavlei9 --side second --visits 100", "");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("Volkhv plays "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("defenders to move> "), std::string::npos) << r.out;
  // Usage errors.
  r = VolkhvWithInput("play --side middle", "");
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

TEST(AnalyzeTest, EveryPositionOfARecordedGame) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  const RunResult r = VolkhvWithInput(
      Cat("analyze --net random --game-file " VOLKHV_TEST_DATA_DIR
          "/tavreli-published-games.txt --game-index 4 --visits 100 --top 3"),
      "");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("Game 4: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", 8 plies"), std::string::npos) << r.out;
  for (int ply = 0; ply <= 8; ++ply) {
    EXPECT_NE(r.out.find(Cat("\nPly ", ply, ": Position ")), std::string::npos)
        << ply;
  }
  // Every analysed position names the move played and where it ranked.
  EXPECT_GE(CountPrefix(Lines(r.out), "played "), 7) << r.out;
  EXPECT_GE(CountPrefix(Lines(r.out), "root: "), 8) << r.out;
  EXPECT_EQ(CountPrefix(Lines(r.out), "    1  "),
            CountPrefix(Lines(r.out), "root: "));
}

TEST(AnalyzeTest, APositionAndBadArguments) {
  if (!HaveBinary()) GTEST_SKIP() << "build the volkhv target first";
  RunResult r = VolkhvWithInput(Cat("analyze --net random --position '",
                                    kRookMateInOne, "' --visits 5000 --top 2"),
                                "");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("proven win in 1 plies"), std::string::npos) << r.out;
  bool found = false;
  for (const std::string& line : Lines(r.out)) {
    if (StartsWith(line, "    1  ")) {
      found = true;
      EXPECT_EQ(Words(line)[1], "h1-h8") << line;
      EXPECT_NE(line.find("M+1"), std::string::npos) << line;
    }
  }
  EXPECT_TRUE(found) << r.out;
  r = VolkhvWithInput("analyze --net random --game-file /nonexistent/file.txt",
                      "");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  r = VolkhvWithInput(
      Cat("analyze --net random --game-file " VOLKHV_TEST_DATA_DIR
          "/tavreli-published-games.txt --game-index 1000"),
      "");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  r = VolkhvWithInput(
      Cat("analyze --net random --moves e2-e4 --game-file " VOLKHV_TEST_DATA_DIR
          "/tavreli-published-games.txt"),
      "");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = VolkhvWithInput("analyze --net random --moves 'e2-e4 e2-e4'", "");
  EXPECT_EQ(r.exit_code, 1) << r.out;
}

}  // namespace
}  // namespace volkhv::protocol
