// The match runner (selfplay/match.h): random against alpha-beta depth 2 in
// both games, colours alternating on shared openings, the game file
// replaying legally through engine/records/game_file_reader.h, alpha-beta
// winning by a clear margin; SPRT early stop, round robins, openings from a
// file, adjudication, player specs, and MCTS players.
#include "selfplay/match.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/games/games.h"
#include "engine/records/game_file_reader.h"
#include "engine/records/game_file_writer.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "selfplay/player_spec.h"
#include "tests/test_toolkit.h"

namespace volkhv::selfplay {
namespace {

using ::volkhv::testing::TempPath;

std::unique_ptr<Game> MakeGameOrDie(std::string_view name) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(name);
  EXPECT_TRUE(game.ok()) << game.status().message();
  return *std::move(game);
}

std::vector<std::shared_ptr<PlayerFactory>> Players(
    const Game& game, const std::vector<std::string>& specs) {
  std::vector<std::shared_ptr<PlayerFactory>> players;
  for (const std::string& spec : specs) {
    absl::StatusOr<std::shared_ptr<PlayerFactory>> f =
        MakePlayerFactory(spec, game, {});
    EXPECT_TRUE(f.ok()) << spec << ": " << f.status().message();
    players.push_back(*f);
  }
  return players;
}

// Random against alpha-beta depth 2: 24 games (12 pairs on openings of 2
// random plies), two at a time. Alpha-beta must score at least 21 of 24
// points. Against uniformly random moves a depth-2 search with material,
// quiescence and mop-up (Tavreli) or escape routes (Tavlei) loses only by a
// fluke: it won all 100 games of `volkhv match --games 100` in each game
// (docs/results.md), so three lost points leave a wide margin.
void RandomAgainstAlphaBeta(std::string_view game_name) {
  std::unique_ptr<Game> game = MakeGameOrDie(game_name);
  MatchOptions options;
  options.games = 24;
  options.random_plies = 2;
  options.concurrency = 2;
  options.seed = 11;
  options.adjudication.max_plies = 400;
  options.pgn_path = TempPath(Cat(game_name, ".pgn"));
  int callbacks = 0;
  absl::StatusOr<MatchReport> report =
      RunMatch(*game, Players(*game, {"random", "alphabeta:depth=2"}), options,
               [&callbacks](const MatchReport& r) {
                 ++callbacks;
                 EXPECT_EQ(static_cast<int>(r.games.size()), callbacks);
               });
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->games.size(), 24u);
  EXPECT_EQ(callbacks, 24);
  ASSERT_EQ(report->pairings.size(), 1u);
  const PairingStats& p = report->pairings[0];
  EXPECT_EQ(p.counts.games(), 24);
  int pairs = 0;
  for (int x : p.pairs) pairs += x;
  EXPECT_EQ(pairs, 12);
  // Player 0 is random: alpha-beta's points are random's losses and draws.
  const double alphabeta_points = p.counts.losses + 0.5 * p.counts.draws;
  EXPECT_GE(alphabeta_points, 21) << report->Summary();
  const EloEstimate elo = p.Elo(true);
  EXPECT_LT(elo.elo_high, 0) << report->Summary();
  EXPECT_LT(elo.los, 0.001);

  // Each pair played one opening with colours swapped.
  std::map<int, std::set<int>> first_movers;  // pair -> who moved first
  for (const GameOutcome& g : report->games) {
    first_movers[g.pair].insert(g.first);
    EXPECT_EQ(g.first + g.second, 1);
  }
  ASSERT_EQ(first_movers.size(), 12u);
  for (const auto& [pair, firsts] : first_movers) {
    EXPECT_EQ(firsts.size(), 2u) << "pair " << pair;
  }

  // The game file: every game replays legally to its recorded end.
  absl::StatusOr<std::vector<RecordedGame>> records =
      ReadGameFile(options.pgn_path);
  ASSERT_TRUE(records.ok()) << records.status().message();
  ASSERT_EQ(records->size(), 24u);
  const std::string first_tag = SideTitle(game->Info().first_player_name);
  const std::string second_tag = SideTitle(game->Info().second_player_name);
  std::map<int, std::string> first_by_round;
  std::map<std::string, std::set<std::string>> players_by_opening_moves;
  for (const RecordedGame& record : *records) {
    EXPECT_EQ(record.Tag("Game"), std::string(game_name));
    EXPECT_FALSE(record.Tag("Date").empty());
    const std::string first = record.Tag(first_tag);
    const std::string second = record.Tag(second_tag);
    EXPECT_NE(first, second);
    EXPECT_TRUE(first == "random" || first == "alphabeta:depth=2") << first;
    first_by_round[std::stoi(record.Tag("Round"))] = first;
    const ReplayReport replay = ReplayGame(*game, record);
    ASSERT_TRUE(replay.ok) << replay.error;
    EXPECT_EQ(std::to_string(replay.plies), record.Tag("Plies"));
    const std::string result = record.Tag("Result");
    const std::string termination = record.Tag("Termination");
    if (termination == "checkmate" || termination == "king captured" ||
        termination == "king escaped" || termination == "no legal move") {
      EXPECT_TRUE(result == "1-0" || result == "0-1") << termination;
      EXPECT_NE(replay.status, "ongoing");
    }
    if (result == "1/2-1/2") {
      EXPECT_TRUE(termination.find("adjudication") == 0 ||
                  replay.status.find("draw") == 0 ||
                  replay.status == "stalemate")
          << termination << " / " << replay.status;
    }
    // Both games of an opening start with the same two random plies.
    ASSERT_GE(record.moves.size(), 2u);
    players_by_opening_moves[record.moves[0] + " " + record.moves[1]].insert(
        first);
  }
  // Rounds alternate colours: round 2k-1 and 2k have different first players.
  ASSERT_EQ(first_by_round.size(), 24u);
  for (int round = 1; round <= 24; round += 2) {
    EXPECT_NE(first_by_round[round], first_by_round[round + 1]);
  }
  for (const auto& [opening, firsts] : players_by_opening_moves) {
    EXPECT_EQ(firsts.size(), 2u) << opening;
  }
  std::remove(options.pgn_path.c_str());
}

TEST(MatchTest, RandomAgainstAlphaBetaTavreli) {
  RandomAgainstAlphaBeta("tavreli");
}

TEST(MatchTest, RandomAgainstAlphaBetaTavlei9) {
  RandomAgainstAlphaBeta("tavlei9");
}

TEST(MatchTest, SprtStopsEarly) {
  std::unique_ptr<Game> game = MakeGameOrDie("tavlei9");
  MatchOptions options;
  options.games = 60;
  options.random_plies = 2;
  options.concurrency = 2;
  options.adjudication.max_plies = 300;
  SprtParams sprt;  // alpha-beta (player 0) against random, logistic Elo
  sprt.elo0 = 0;
  sprt.elo1 = 200;
  sprt.model = EloModel::kLogistic;
  options.sprt = sprt;
  absl::StatusOr<MatchReport> report =
      RunMatch(*game, Players(*game, {"alphabeta:depth=1", "random"}), options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_TRUE(report->sprt.has_value());
  EXPECT_EQ(report->sprt->verdict, SprtVerdict::kAcceptH1) << report->Summary();
  EXPECT_TRUE(report->stopped_early);
  EXPECT_LT(report->games.size(), 60u);
  EXPECT_GE(report->sprt->llr, report->sprt->upper);
  EXPECT_NE(report->Summary().find("H1 accepted"), std::string::npos);
}

TEST(MatchTest, RoundRobinOfThree) {
  std::unique_ptr<Game> game = MakeGameOrDie("tavlei9");
  MatchOptions options;
  options.games = 4;
  options.random_plies = 2;
  options.adjudication.max_plies = 200;
  absl::StatusOr<MatchReport> report = RunMatch(
      *game,
      Players(*game, {"random", "alphabeta:depth=1", "random:name=other"}),
      options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->pairings.size(), 3u);
  EXPECT_EQ(report->games.size(), 12u);
  std::map<int, int> games_of;
  for (const GameOutcome& g : report->games) {
    ++games_of[g.first];
    ++games_of[g.second];
  }
  EXPECT_EQ(games_of[0], 8);
  EXPECT_EQ(games_of[1], 8);
  EXPECT_EQ(games_of[2], 8);
  EXPECT_EQ(report->players[2], "other");
  EXPECT_NE(report->Summary().find("Standings"), std::string::npos);
}

// Issue 22, item 14: an openings file is read up to a limit.
TEST(MatchTest, OpeningsFilesAreReadUpToALimit) {
  std::unique_ptr<Game> game = MakeGameOrDie("tavreli");
  absl::StatusOr<std::vector<std::string>> positions =
      ReadOpeningsFile(*game, "/dev/zero");
  ASSERT_FALSE(positions.ok());
  EXPECT_EQ(positions.status().message(),
            "/dev/zero: larger than the limit of 67108864 bytes for a file of "
            "openings");
  EXPECT_TRUE(absl::IsNotFound(
      ReadOpeningsFile(*game, TempPath("missing.txt")).status()));
}

TEST(MatchTest, OpeningsFromAFileArePlayedWithBothColours) {
  std::unique_ptr<Game> game = MakeGameOrDie("tavreli");
  const std::string path = TempPath("openings.txt");
  {
    std::ofstream out(path);
    out << "# two openings\n"
        << "rnbqkbnr/prpnpbpqphpbpnpr/8/8/4PH3/8/PRPNPBPQ1PBPNPR/RNBQKBNR b "
           "KQkq e3 0 1\n\n"
        << "rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/5N2/PRPNPBPQPHPBPNPR/RNBQKB1R b "
           "KQkq - 1 1\n";
  }
  absl::StatusOr<std::vector<std::string>> positions =
      ReadOpeningsFile(*game, path);
  ASSERT_TRUE(positions.ok()) << positions.status().message();
  ASSERT_EQ(positions->size(), 2u);
  MatchOptions options;
  options.games = 4;
  options.opening_positions = *positions;
  options.adjudication.max_plies = 20;
  options.pgn_path = TempPath("openings.pgn");
  absl::StatusOr<MatchReport> report =
      RunMatch(*game, Players(*game, {"random", "random:name=r2"}), options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  absl::StatusOr<std::vector<RecordedGame>> records =
      ReadGameFile(options.pgn_path);
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 4u);
  std::map<std::string, std::set<std::string>> whites;
  for (const RecordedGame& r : *records) {
    whites[r.Tag("TFEN")].insert(r.Tag("White"));
    EXPECT_TRUE(ReplayGame(*game, r).ok);
  }
  ASSERT_EQ(whites.size(), 2u);
  for (const auto& [tfen, w] : whites) {
    EXPECT_EQ(w.size(), 2u) << tfen;
    EXPECT_NE(std::find(positions->begin(), positions->end(), tfen),
              positions->end());
  }
  std::remove(path.c_str());
  std::remove(options.pgn_path.c_str());

  // Errors name the line.
  {
    std::ofstream out(path);
    out << "# bad\nnot a position\n";
  }
  absl::StatusOr<std::vector<std::string>> bad = ReadOpeningsFile(*game, path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find(":2:"), std::string::npos);
  std::remove(path.c_str());
}

TEST(MatchTest, AdjudicationEndsGames) {
  std::unique_ptr<Game> game = MakeGameOrDie("tavreli");
  // Very long games: a draw at the limit.
  MatchOptions options;
  options.games = 2;
  options.adjudication.max_plies = 10;
  absl::StatusOr<MatchReport> report =
      RunMatch(*game, Players(*game, {"random", "random:name=b"}), options);
  ASSERT_TRUE(report.ok());
  for (const GameOutcome& g : report->games) {
    EXPECT_EQ(g.plies, 10);
    EXPECT_EQ(g.first_score, 0.5);
    EXPECT_EQ(g.termination, "adjudication: 10 plies");
  }
  // Hopeless games: three evaluations of alpha-beta beyond 3 pawns.
  options.adjudication.max_plies = 0;
  options.adjudication.resign_score = 300;
  options.adjudication.resign_evals = 3;
  report =
      RunMatch(*game, Players(*game, {"random", "alphabeta:depth=1"}), options);
  ASSERT_TRUE(report.ok());
  for (const GameOutcome& g : report->games) {
    if (g.termination.find("adjudication") == 0) {
      // Alpha-beta (player 1) won it.
      EXPECT_EQ(g.first == 1 ? g.first_score : 1 - g.first_score, 1.0);
    }
  }
  EXPECT_EQ(report->pairings[0].counts.losses, 2);
}

TEST(MatchTest, MctsAndPolicyPlayersPlay) {
  std::unique_ptr<Game> game = MakeGameOrDie("tavlei9");
  MatchOptions options;
  options.games = 2;
  options.random_plies = 2;
  options.adjudication.max_plies = 60;
  options.pgn_path = TempPath("mcts.pgn");
  absl::StatusOr<MatchReport> report = RunMatch(
      *game,
      Players(*game, {"mcts:net=random,visits=32", "policy:net=random,temp=1"}),
      options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->games.size(), 2u);
  absl::StatusOr<std::vector<RecordedGame>> records =
      ReadGameFile(options.pgn_path);
  ASSERT_TRUE(records.ok());
  for (const RecordedGame& r : *records) {
    EXPECT_TRUE(ReplayGame(*game, r).ok);
  }
  std::remove(options.pgn_path.c_str());
}

TEST(MatchTest, PlayerSpecErrors) {
  std::unique_ptr<Game> game = MakeGameOrDie("tavreli");
  for (const char* bad :
       {"alphabeta", "alphabeta:depth=0", "alphabeta:depth=x",
        "alphabeta:foo=1", "policy", "policy:net=/no/such/file.net",
        "mcts:net=random", "mcts:net=random,visits=8,cpuct=1", "random:depth=2",
        "chess", "random:name="}) {
    EXPECT_FALSE(MakePlayerFactory(bad, *game, {}).ok()) << bad;
  }
  absl::StatusOr<std::shared_ptr<PlayerFactory>> ok =
      MakePlayerFactory("alphabeta:movetime=50,hash=4,name=ab", *game, {});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)->Name(), "ab");
  ok = MakePlayerFactory("mcts:net=random,visits=8,cpuct_init=2.5", *game, {});
  EXPECT_TRUE(ok.ok()) << ok.status().message();
  // Two players at least; SPRT only for two.
  MatchOptions options;
  EXPECT_FALSE(RunMatch(*game, Players(*game, {"random"}), options).ok());
  options.sprt = SprtParams{};
  EXPECT_FALSE(
      RunMatch(*game, Players(*game, {"random", "random", "random"}), options)
          .ok());
}

TEST(GameFileTest, FormatsTagsMovesCommentsAndResult) {
  GameFileRecord r;
  r.event = "test";
  r.date = "2026.11.01";
  r.round = 3;
  r.game = "tavreli";
  r.variant = "standard";
  r.first_title = "White";
  r.second_title = "Black";
  r.first_player = "alphabeta:depth=2";
  r.second_player = "random \"x\"";
  r.result = "1-0";
  r.termination = "checkmate";
  r.start_position =
      "rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/RNBQKBNR w KQkq - 0 "
      "1";
  r.moves = {"e2-e4", "e7-e5", "d1-h5"};
  r.comments = {"+0.10/2", "", "+0.35/2"};
  const std::string text = FormatGameFile(r);
  EXPECT_EQ(text,
            "[Event \"test\"]\n"
            "[Date \"2026.11.01\"]\n"
            "[Round \"3\"]\n"
            "[Game \"tavreli\"]\n"
            "[Variant \"standard\"]\n"
            "[White \"alphabeta:depth=2\"]\n"
            "[Black \"random 'x'\"]\n"
            "[Result \"1-0\"]\n"
            "[TFEN \"rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/"
            "RNBQKBNR w KQkq - 0 1\"]\n"
            "[Plies \"3\"]\n"
            "[Termination \"checkmate\"]\n"
            "\n"
            "1. e2-e4 {+0.10/2} e7-e5 2. d1-h5 {+0.35/2} 1-0\n"
            "\n");
  absl::StatusOr<std::vector<RecordedGame>> parsed = ParseGameFileText(text);
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ((*parsed)[0].moves,
            (std::vector<std::string>{"e2-e4", "e7-e5", "d1-h5"}));
  // The second player first: "1...".
  r.second_to_move = true;
  r.comments.clear();
  EXPECT_NE(FormatGameFile(r).find("1... e2-e4 2. e7-e5 d1-h5 1-0"),
            std::string::npos);
  EXPECT_EQ(ResultText(1), "1-0");
  EXPECT_EQ(ResultText(0), "0-1");
  EXPECT_EQ(ResultText(0.5), "1/2-1/2");
  EXPECT_EQ(SideTitle("attackers"), "Attackers");
}

}  // namespace
}  // namespace volkhv::selfplay
