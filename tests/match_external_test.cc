// The match features of cutechess-cli and fastchess (selfplay/match.h):
// outside engines over pipes (selfplay/uci_player.h), game clocks
// (selfplay/game_clock.h), draw and resign adjudication
// (selfplay/adjudication.h), gauntlets, resuming from the game file, and
// Ctrl-C. Scripted engines are small shell scripts; nothing asserts a
// duration (slow engines are given far more time than they need, or
// clocks far shorter than their fixed search time).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "engine/games/games.h"
#include "engine/records/game_file_reader.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "selfplay/adjudication.h"
#include "selfplay/game_clock.h"
#include "selfplay/match.h"
#include "selfplay/player_spec.h"
#include "tests/test_toolkit.h"

namespace volkhv::selfplay {
namespace {

using ::volkhv::testing::Contains;
using ::volkhv::testing::FreshPath;
using ::volkhv::testing::RowHasGames;
using ::volkhv::testing::Slurp;
using ::volkhv::testing::TempPath;
using ::volkhv::testing::Volkhv;
using ::volkhv::testing::WriteFile;

std::unique_ptr<Game> NewGame(std::string_view name) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(name);
  EXPECT_TRUE(game.ok()) << game.status().message();
  return *std::move(game);
}

std::shared_ptr<PlayerFactory> Factory(const Game& game,
                                       const std::string& spec,
                                       const PlayerContext& context = {}) {
  absl::StatusOr<std::shared_ptr<PlayerFactory>> f =
      MakePlayerFactory(spec, game, {}, context);
  EXPECT_TRUE(f.ok()) << spec << ": " << f.status().message();
  return f.ok() ? *f : nullptr;
}

// An executable shell script at a fresh path.
std::string Script(const std::string& name, const std::string& body) {
  const std::string path = FreshPath(name);
  WriteFile(path, "#!/bin/sh\n" + body);
  chmod(path.c_str(), 0755);
  return path;
}

// A UCI engine in sh that answers the handshake and `go` with `on_go`.
std::string ScriptedEngine(const std::string& name, const std::string& on_go) {
  return Script(name,
                "while read -r line; do\n"
                "  case \"$line\" in\n"
                "    uci) echo 'id name scripted'; echo uciok ;;\n"
                "    isready) echo readyok ;;\n"
                "    go*) " +
                    on_go +
                    " ;;\n"
                    "    quit) exit 0 ;;\n"
                    "  esac\n"
                    "done\n");
}

// Every child of this process has been reaped.
bool NoChildren() {
  return waitpid(-1, nullptr, WNOHANG) < 0 && errno == ECHILD;
}

// How many processes run `sleep <seconds>` (a scripted engine's stall);
// `seconds` is chosen to be this test's own.
int ProcessesSleeping(const std::string& seconds) {
  int count = 0;
  const std::string needle = std::string("sleep") + '\0' + seconds;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string cmdline = Slurp(entry.path().string() + "/cmdline");
    if (cmdline.find(needle) != std::string::npos) ++count;
  }
  return count;
}

TEST(GameClockTest, ParsesTimeControls) {
  absl::StatusOr<ClockSpec> c = ParseClockSpec("40/60+0.6");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->moves, 40);
  EXPECT_EQ(c->base_ms, 60000);
  EXPECT_EQ(c->increment_ms, 600);
  EXPECT_EQ(c->Describe(), "40/60+0.6");
  c = ParseClockSpec("0.05");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->moves, 0);
  EXPECT_EQ(c->base_ms, 50);
  EXPECT_EQ(c->increment_ms, 0);
  EXPECT_EQ(c->Describe(), "0.05");
  EXPECT_EQ(ParseClockSpec("10+1")->Describe(), "10+1");
  EXPECT_EQ(ParseClockSpec("x+1").status().message(),
            "time control 'x+1': seconds: 'x' is not a positive number of "
            "seconds up to 10000000");
  EXPECT_FALSE(ParseClockSpec("0/60").ok());
  EXPECT_FALSE(ParseClockSpec("60+-1").ok());
}

TEST(GameClockTest, ChargesMovesIncrementsAndPeriods) {
  GameClock clock(ClockSpec{2, 1000, 100}, 50);
  EXPECT_EQ(clock.time_left_ms(), 1000);
  EXPECT_EQ(clock.moves_to_go(), 2);
  EXPECT_EQ(clock.deadline_ms(), 1050);
  ASSERT_TRUE(clock.Charge(300));
  EXPECT_EQ(clock.time_left_ms(), 800);
  EXPECT_EQ(clock.moves_to_go(), 1);
  ASSERT_TRUE(clock.Charge(850));  // within the margin: 0 left, + 100
  EXPECT_EQ(clock.time_left_ms(), 100 + 1000);  // and a new period
  EXPECT_EQ(clock.moves_to_go(), 2);
  EXPECT_FALSE(clock.Charge(1151));
  EXPECT_EQ(clock.time_left_ms(), 0);
  GameClock sudden(ClockSpec{0, 100, 0}, 0);
  EXPECT_FALSE(sudden.moves_to_go().has_value());
  EXPECT_TRUE(sudden.Charge(100));
  EXPECT_FALSE(sudden.Charge(1));
}

search::PlayerEval Cp(int cp) {
  search::PlayerEval e;
  e.score_cp = cp;
  return e;
}

TEST(AdjudicationTest, DrawAndResignRulesFollowCutechess) {
  EXPECT_EQ(ParseDrawRule("movenumber=40,movecount=8,score=20")->move_number,
            40);
  EXPECT_EQ(ParseDrawRule("movecount=8").status().message(),
            "--draw: give movecount=M and score=S (and movenumber=N)");
  EXPECT_EQ(
      ParseResignRule("movecount=3,score=600,twosided=yes").status().message(),
      "--resign: twosided: 'yes' is not true or false");
  EXPECT_EQ(ParseResignRule("moves=3").status().message(),
            "--resign: unknown key 'moves' (known: movecount, score, "
            "twosided)");

  Adjudication rules;
  rules.draw = *ParseDrawRule("movenumber=3,movecount=2,score=20");
  Adjudicator draw(rules);
  // Two evaluations each within 20 cp, but only after move 3 (ply 6).
  EXPECT_FALSE(draw.AfterMove(0, Cp(10), 1));
  EXPECT_FALSE(draw.AfterMove(1, Cp(-20), 2));
  EXPECT_FALSE(draw.AfterMove(0, Cp(0), 3));
  EXPECT_FALSE(draw.AfterMove(1, Cp(5), 4));
  EXPECT_FALSE(draw.AfterMove(0, Cp(30), 5));  // out of the band
  EXPECT_FALSE(draw.AfterMove(1, Cp(5), 6));
  EXPECT_FALSE(draw.AfterMove(0, std::nullopt, 7));  // no evaluation
  EXPECT_FALSE(draw.AfterMove(1, Cp(5), 8));
  EXPECT_FALSE(draw.AfterMove(0, Cp(1), 9));
  EXPECT_FALSE(draw.AfterMove(1, Cp(5), 10));
  std::optional<Verdict> v = draw.AfterMove(0, Cp(-1), 11);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->kind, Verdict::Kind::kDraw);
  EXPECT_EQ(v->first_score, 0.5);

  rules = {};
  rules.resign = *ParseResignRule("movecount=3,score=600");
  Adjudicator resign(rules);
  EXPECT_FALSE(resign.AfterMove(1, Cp(-600), 1));
  EXPECT_FALSE(resign.AfterMove(0, Cp(100), 2));
  EXPECT_FALSE(resign.AfterMove(1, Cp(-700), 3));
  EXPECT_FALSE(resign.AfterMove(0, Cp(100), 4));
  v = resign.AfterMove(1, Cp(-900), 5);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->kind, Verdict::Kind::kResign);
  EXPECT_EQ(v->first_score, 1.0);  // the second player resigned

  // Two-sided: the winner must agree.
  rules.resign.two_sided = true;
  Adjudicator two(rules);
  for (int ply = 1; ply <= 6; ply += 2) {
    EXPECT_FALSE(two.AfterMove(0, Cp(-700), ply));
    EXPECT_FALSE(two.AfterMove(1, Cp(100), ply + 1));
  }
  EXPECT_FALSE(two.AfterMove(0, Cp(-700), 7));
  EXPECT_FALSE(two.AfterMove(1, Cp(700), 8));
  EXPECT_FALSE(two.AfterMove(0, Cp(-700), 9));
  EXPECT_FALSE(two.AfterMove(1, Cp(700), 10));
  EXPECT_FALSE(two.AfterMove(0, Cp(-700), 11));
  EXPECT_FALSE(two.AfterMove(1, Cp(700), 12));
  v = two.AfterMove(0, Cp(-700), 13);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->first_score, 0.0);
}

// Plays the first legal move and reports a fixed evaluation.
class FixedEvalPlayer final : public search::Player {
 public:
  FixedEvalPlayer(std::string name, int cp) : name_(std::move(name)), cp_(cp) {}
  std::string Name() const override { return name_; }
  Move ChooseMove(const GameState& state) override {
    MoveList moves;
    state.LegalMoves(&moves);
    return moves[0];
  }
  std::optional<search::PlayerEval> LastEval() const override {
    return Cp(cp_);
  }

 private:
  std::string name_;
  int cp_;
};

class FixedEvalFactory final : public PlayerFactory {
 public:
  FixedEvalFactory(std::string name, int cp)
      : name_(std::move(name)), cp_(cp) {}
  const std::string& Name() const override { return name_; }
  std::unique_ptr<search::Player> Make(uint64_t) const override {
    return std::make_unique<FixedEvalPlayer>(name_, cp_);
  }

 private:
  std::string name_;
  int cp_;
};

TEST(AdjudicationTest, MatchGamesEndDrawnOrResignedAndSaySo) {
  std::unique_ptr<Game> game = NewGame("tavlei9");
  MatchOptions options;
  options.games = 2;
  options.adjudication.max_plies = 200;
  options.adjudication.draw =
      *ParseDrawRule("movenumber=4,movecount=3,score=20");
  options.pgn_path = FreshPath("drawn.pgn");
  absl::StatusOr<MatchReport> report =
      RunMatch(*game,
               {std::make_shared<FixedEvalFactory>("even", 0),
                std::make_shared<FixedEvalFactory>("level", 10)},
               options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->games.size(), 2u);
  for (const GameOutcome& g : report->games) {
    EXPECT_EQ(g.termination, "adjudication");
    EXPECT_EQ(g.end, GameOutcome::End::kDraw);
    EXPECT_EQ(g.first_score, 0.5);
    EXPECT_EQ(g.plies, 8);  // after move 4 (each player has 3 evaluations)
  }
  std::string pgn = Slurp(options.pgn_path);
  EXPECT_TRUE(Contains(pgn, "[Termination \"adjudication\"]"));
  EXPECT_TRUE(Contains(pgn,
                       "[TerminationDetails \"both players' last 3 "
                       "evaluations within 20 cp after move 4\"]"));
  EXPECT_TRUE(Contains(report->Summary(),
                       "Ended by the match: 0 on time, 0 by an engine's "
                       "failure, 2 adjudicated drawn, 0 resigned"));

  options.adjudication.draw = {};
  options.adjudication.resign = *ParseResignRule("movecount=3,score=600");
  options.pgn_path = FreshPath("resigned.pgn");
  report = RunMatch(*game,
                    {std::make_shared<FixedEvalFactory>("hopeless", -650),
                     std::make_shared<FixedEvalFactory>("fine", 0)},
                    options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  for (const GameOutcome& g : report->games) {
    EXPECT_EQ(g.termination, "resignation");
    EXPECT_EQ(g.end, GameOutcome::End::kResignation);
    EXPECT_EQ(g.first == 0 ? g.first_score : 1 - g.first_score, 0.0);
  }
  EXPECT_EQ(report->pairings[0].counts.losses, 2);
  pgn = Slurp(options.pgn_path);
  EXPECT_TRUE(Contains(pgn, "[Termination \"resignation\"]"));
  EXPECT_TRUE(Contains(pgn, "hopeless resigns: "));
}

// The built binary as an engine, with a few playouts of the uniform net.
std::string EngineSpec(const std::string& name, const std::string& more) {
  return Cat("uci:cmd=", VOLKHV_BINARY, ",arg=engine,arg=--net,arg=random,",
             more, ",name=", name);
}

TEST(MatchExternalTest, TwoEnginesThroughPipesFinishOnAGenerousClock) {
  const std::string pgn = FreshPath("engines.pgn");
  const testing::RunResult r = Volkhv(
      "match --game tavreli --player '" + EngineSpec("one", "nodes=30") +
      "' --player '" + EngineSpec("two", "nodes=30,option.cpuct_init=2.5") +
      "' --games 2 --max-plies 24 --tc 40/600+1 --timemargin 100 --pgn-out " +
      pgn);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(Contains(r.out, "Clock: 40/600+1, margin 100 ms"));
  EXPECT_TRUE(RowHasGames(r.out, "W/D/L ", 2));
  EXPECT_FALSE(Contains(r.out, "Ended by the match"));
  absl::StatusOr<std::vector<RecordedGame>> games = ReadGameFile(pgn);
  ASSERT_TRUE(games.ok()) << games.status().message();
  ASSERT_EQ(games->size(), 2u);
  std::unique_ptr<Game> game = NewGame("tavreli");
  for (const RecordedGame& g : *games) {
    EXPECT_EQ(g.Tag("Termination"), "adjudication: 24 plies");
    EXPECT_TRUE(ReplayGame(*game, g).ok);
  }
  // The engines' `info` scores become the comments: "{+0.53/2}".
  EXPECT_TRUE(
      std::regex_search(Slurp(pgn), std::regex(R"(\{[+-]\d+\.\d\d/\d+\})")));
}

TEST(MatchExternalTest, AnEngineOverItsClockLosesOnTime) {
  // A fixed 5 s per move against a 50 ms clock of its own (tc= in the
  // spec); random has no clock.
  const std::string pgn = FreshPath("forfeit.pgn");
  const testing::RunResult r =
      Volkhv("match --game tavreli --player '" +
             EngineSpec("slow", "movetime=5000,tc=0.05") +
             "' --player random --games 2 --pgn-out " + pgn);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(Contains(r.out, "player 1: slow (clock 0.05)"));
  EXPECT_TRUE(Contains(r.out, "W/D/L 0/0/2 for slow"));
  EXPECT_TRUE(Contains(r.out, "Ended by the match: 2 on time"));
  const std::string text = Slurp(pgn);
  EXPECT_TRUE(Contains(text, "[Termination \"time forfeit\"]"));
  EXPECT_TRUE(Contains(text, "slow took more than 50 ms with 50 ms left"));
}

TEST(MatchExternalTest,
     CrashingStallingAndIllegalEnginesLoseAndTheMatchGoesOn) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  const std::string crash = ScriptedEngine("crash.sh", "exit 3");
  const std::string illegal = ScriptedEngine("illegal.sh",
                                             "echo 'info depth 1 score cp 5'; "
                                             "echo 'bestmove z9-z9'");
  // A stall of a length no other process sleeps: this process's id.
  const std::string stall_seconds = Cat(getpid(), ".25");
  const std::string stall =
      ScriptedEngine("stall.sh", "sleep " + stall_seconds);
  struct Case {
    std::string spec;
    std::string detail;
  };
  const std::vector<Case> cases = {
      {Cat("uci:cmd=", crash, ",nodes=1,name=crash"),
       "exited before bestmove (the engine exited with status 3)"},
      {Cat("uci:cmd=", illegal, ",nodes=1,name=illegal"),
       "illegal move 'z9-z9'"},
      // 3 s for the start (a loaded machine's sh) and, past it, the move.
      {Cat("uci:cmd=", stall, ",nodes=1,timeout=3000,name=stall"),
       "no bestmove in time (the engine killed by signal 9)"},
      {"uci:cmd=/nonexistent/engine,nodes=1,name=missing",
       "engine /nonexistent/engine: cannot start: No such file or directory"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    MatchOptions options;
    options.games = 2;
    options.adjudication.max_plies = 40;
    options.pgn_path = FreshPath("failing.pgn");
    absl::StatusOr<MatchReport> report = RunMatch(
        *game, {Factory(*game, c.spec), Factory(*game, "random")}, options);
    ASSERT_TRUE(report.ok()) << report.status().message();
    ASSERT_EQ(report->games.size(), 2u);  // every game played
    EXPECT_EQ(report->pairings[0].counts.losses, 2);
    for (const GameOutcome& g : report->games) {
      EXPECT_EQ(g.end, GameOutcome::End::kForfeit);
      EXPECT_EQ(g.termination, "forfeit by " + report->players[0]);
      EXPECT_TRUE(Contains(g.detail, c.detail));
    }
    EXPECT_TRUE(Contains(Slurp(options.pgn_path), "[TerminationDetails"));
    EXPECT_TRUE(NoChildren());
  }
  // The stall's whole process group was killed (SIGKILL is delivered at
  // once, but a loaded machine may take a moment to end the process).
  int sleeping = ProcessesSleeping(stall_seconds);
  for (int i = 0; i < 600 && sleeping > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    sleeping = ProcessesSleeping(stall_seconds);
  }
  EXPECT_EQ(sleeping, 0);
}

TEST(MatchExternalTest, UciSpecErrorsNameTheKey) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  auto error = [&](const std::string& spec) {
    return std::string(MakePlayerFactory(spec, *game, {}).status().message());
  };
  EXPECT_EQ(error("uci:nodes=5"),
            "player uci: give cmd=PATH (the engine's program)");
  EXPECT_EQ(error("uci:cmd=x"),
            "player uci: give nodes=N, movetime=MS, depth=D or a clock (tc=, "
            "--tc)");
  EXPECT_EQ(error("uci:cmd=x,nodes=1,colour=red"),
            "player uci: unknown key 'colour' (known: cmd, arg, option.NAME, "
            "nodes, movetime, depth, timeout, tc, name)");
  EXPECT_EQ(error("alphabeta:tc=1+"),
            "player alphabeta: tc: time control '1+': increment: '' is not a "
            "number of seconds (0 or more) up to 10000000");
  // A clock is a limit: no depth or visits needed.
  EXPECT_TRUE(MakePlayerFactory("alphabeta:tc=10", *game, {}).ok());
  PlayerContext clocked;
  clocked.match_clock = true;
  EXPECT_TRUE(MakePlayerFactory("mcts:net=random", *game, {}, clocked).ok());
}

TEST(MatchExternalTest, BuiltInPlayersPlayOnTheClock) {
  std::unique_ptr<Game> game = NewGame("tavlei9");
  MatchOptions options;
  options.games = 2;
  options.adjudication.max_plies = 30;
  // Generous clocks, and limits of their own that end every search long
  // before the clock's budget.
  options.clock = *ParseClockSpec("600+1");
  absl::StatusOr<MatchReport> report =
      RunMatch(*game,
               {Factory(*game, "alphabeta:depth=2"),
                Factory(*game, "mcts:net=random,nodes=50")},
               options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->games.size(), 2u);
  for (const GameOutcome& g : report->games) {
    EXPECT_NE(g.end, GameOutcome::End::kTimeForfeit) << g.detail;
  }
}

TEST(MatchExternalTest, GauntletPlaysTheFirstPlayerAgainstEachOther) {
  std::unique_ptr<Game> game = NewGame("tavlei9");
  MatchOptions options;
  options.games = 4;
  options.random_plies = 2;
  options.adjudication.max_plies = 60;
  options.tournament = Tournament::kGauntlet;
  absl::StatusOr<MatchReport> report = RunMatch(
      *game,
      {Factory(*game, "alphabeta:depth=1"), Factory(*game, "random"),
       Factory(*game, "random:name=b"), Factory(*game, "random:name=c")},
      options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->pairings.size(), 3u);
  ASSERT_EQ(report->games.size(), 12u);
  for (const GameOutcome& g : report->games) {
    EXPECT_TRUE(g.first == 0 || g.second == 0);
  }
  const std::string summary = report->Summary();
  EXPECT_TRUE(Contains(summary, "Pairings:\n"));
  EXPECT_TRUE(RowHasGames(summary,
                          "vs c                           4 games  "
                          "W/D/L ",
                          4));
  options.tournament = Tournament::kRoundRobin;
  report = RunMatch(*game,
                    {Factory(*game, "alphabeta:depth=1"),
                     Factory(*game, "random"), Factory(*game, "random:name=b")},
                    options);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->pairings.size(), 3u);  // 0-1, 0-2, 1-2
}

// The games of a file by round: result and moves.
std::map<int, std::string> GamesByRound(const std::string& path) {
  std::map<int, std::string> out;
  absl::StatusOr<std::vector<RecordedGame>> games = ReadGameFile(path);
  EXPECT_TRUE(games.ok()) << games.status().message();
  if (!games.ok()) return out;
  for (const RecordedGame& g : *games) {
    std::string moves;
    for (const std::string& m : g.moves) moves += m + " ";
    out[std::stoi(g.Tag("Round"))] =
        g.Tag("Result") + " " + g.Tag("White") + " " + moves;
  }
  return out;
}

TEST(MatchResumeTest, AResumedMatchEqualsAnUninterruptedOne) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  auto players = [&] {
    return std::vector<std::shared_ptr<PlayerFactory>>{
        Factory(*game, "alphabeta:depth=1"), Factory(*game, "random")};
  };
  MatchOptions options;
  options.random_plies = 4;
  options.seed = 5;
  options.concurrency = 2;
  options.adjudication.max_plies = 80;
  options.games = 12;
  options.pgn_path = FreshPath("whole.pgn");
  absl::StatusOr<MatchReport> whole = RunMatch(*game, players(), options);
  ASSERT_TRUE(whole.ok()) << whole.status().message();

  // The first 6 games, then the same match to 12 resumed from the file,
  // after a game cut off in writing.
  options.games = 6;
  options.pgn_path = FreshPath("resumed.pgn");
  ASSERT_TRUE(RunMatch(*game, players(), options).ok());
  {
    std::ofstream out(options.pgn_path, std::ios::app);
    out << "[Event \"volkhv match\"]\n[Round \"7\"]\n[Result \"1-0\"]\n\n1. "
           "e2-";
  }
  options.games = 12;
  options.resume = true;
  int played = 0;
  absl::StatusOr<MatchReport> resumed = RunMatch(
      *game, players(), options, [&played](const MatchReport&) { ++played; });
  ASSERT_TRUE(resumed.ok()) << resumed.status().message();
  EXPECT_EQ(played, 6);  // finished games are not played again
  EXPECT_EQ(resumed->games_resumed, 6);
  ASSERT_EQ(resumed->games.size(), 12u);
  const PairingStats& a = whole->pairings[0];
  const PairingStats& b = resumed->pairings[0];
  EXPECT_EQ(a.counts.wins, b.counts.wins);
  EXPECT_EQ(a.counts.draws, b.counts.draws);
  EXPECT_EQ(a.counts.losses, b.counts.losses);
  EXPECT_EQ(std::vector<int>(a.pairs.begin(), a.pairs.end()),
            std::vector<int>(b.pairs.begin(), b.pairs.end()));
  EXPECT_EQ(GamesByRound(TempPath("whole.pgn")),
            GamesByRound(options.pgn_path));
  // Resuming on a finished match plays nothing; another match's file is
  // refused.
  played = 0;
  resumed = RunMatch(*game, players(), options,
                     [&played](const MatchReport&) { ++played; });
  ASSERT_TRUE(resumed.ok());
  EXPECT_EQ(played, 0);
  EXPECT_EQ(resumed->games.size(), 12u);
  resumed = RunMatch(
      *game, {Factory(*game, "alphabeta:depth=2"), Factory(*game, "random")},
      options);
  ASSERT_FALSE(resumed.ok());
  EXPECT_TRUE(Contains(std::string(resumed.status().message()),
                       ": the game of round 1 is alphabeta:depth=1 vs random; "
                       "this match plays alphabeta:depth=2 vs random there "
                       "(not the same match)"));
}

TEST(MatchResumeTest, ResumedGameFilesHoldTheSameGames) {
  std::unique_ptr<Game> game = NewGame("tavlei9");
  auto players = [&] {
    return std::vector<std::shared_ptr<PlayerFactory>>{
        Factory(*game, "alphabeta:depth=1"), Factory(*game, "random")};
  };
  MatchOptions options;
  options.random_plies = 2;
  options.seed = 9;
  options.adjudication.max_plies = 60;
  options.games = 8;
  options.pgn_path = FreshPath("whole9.pgn");
  ASSERT_TRUE(RunMatch(*game, players(), options).ok());
  options.games = 4;
  options.pgn_path = FreshPath("part9.pgn");
  ASSERT_TRUE(RunMatch(*game, players(), options).ok());
  options.games = 8;
  options.resume = true;
  ASSERT_TRUE(RunMatch(*game, players(), options).ok());
  const std::map<int, std::string> whole = GamesByRound(TempPath("whole9.pgn"));
  EXPECT_EQ(whole.size(), 8u);
  EXPECT_EQ(whole, GamesByRound(options.pgn_path));
}

TEST(MatchCliTest, CtrlCPrintsTheTallyAndExits130) {
  const std::string pgn = FreshPath("interrupted.pgn");
  const std::string out = FreshPath("interrupted.out");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    freopen(out.c_str(), "w", stdout);
    freopen("/dev/null", "w", stderr);
    testing::ExecVolkhv({"match", "--game", "tavreli", "--player",
                         "alphabeta:depth=2", "--player", "random", "--games",
                         "1000", "--max-plies", "200", "--pgn-out", pgn});
  }
  // Once a game is written, Ctrl-C.
  while (Slurp(pgn).find("[Round") == std::string::npos) {
    int status;
    ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0) << "the match ended early";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const std::string text = Slurp(out);
  EXPECT_TRUE(Contains(text, "W/D/L "));
  int done = -1;
  const size_t at = text.find("interrupted after ");
  ASSERT_NE(at, std::string::npos) << text;
  ASSERT_EQ(
      std::sscanf(text.c_str() + at, "interrupted after %d of 1000", &done), 1);
  EXPECT_GE(done, 1);
  // Every counted game is in the file, whole.
  absl::StatusOr<std::vector<RecordedGame>> games = ReadGameFile(pgn);
  ASSERT_TRUE(games.ok()) << games.status().message();
  EXPECT_EQ(static_cast<int>(games->size()), done);
}

TEST(MatchCliTest, ProgressLinesCarryAnEta) {
  const testing::RunResult r = Volkhv(
      "match --game tavlei9 --player random --player random:name=b "
      "--games 20 --max-plies 20 --random-plies 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.err, "[10/20] random vs b: "));
  EXPECT_TRUE(Contains(r.err, ", ETA "));
  EXPECT_TRUE(Contains(r.err, "[20/20]"));
}

TEST(MatchCliTest, BadClockAndAdjudicationOptionsAreUsageErrors) {
  testing::RunResult r =
      Volkhv("match --player random --player random --tc 40/");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "time control '40/': seconds"));
  r = Volkhv(
      "match --player random --player random --draw movecount=x,score=1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--draw: movecount: 'x'"));
  r = Volkhv("match --player random --player random --tournament swiss");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "'swiss' is not round-robin or gauntlet"));
  r = Volkhv("match --player random --player random --resume");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--resume needs --pgn-out FILE"));
  r = Volkhv("match --player random --player random --records-targets played");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--records-targets needs --records-out FILE"));
  r = Volkhv(
      "match --player random --player random --records-out x.vrec "
      "--records-targets visits");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err,
                       "--records-targets: 'visits' is not a kind of "
                       "record target (none, played)"));
}

}  // namespace
}  // namespace volkhv::selfplay
