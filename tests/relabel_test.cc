// `volkhv records relabel`: alpha-beta scores as value targets and its best
// moves as a share of the policy targets. Each relabelled position's W - L
// and policy are checked against a search of that position made here, cheap
// plies and everything else of the record stay as they were, and the
// directory run resumes and refuses bad input.
#include "selfplay/relabel.h"

#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/game/heuristic.h"
#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "tests/record_fixtures.h"
#include "tests/test_toolkit.h"

namespace volkhv::selfplay {
namespace {

using ::volkhv::testing::FreshDir;

// A legal game of `plies` plies (tests/record_fixtures.h), every third ply
// a cheap search; the recorded root WDL is 0.5/0.2/0.3 everywhere and the
// first player won by resignation.
proto::GameRecord MakeRecord(const std::string& game_name, int plies) {
  proto::GameRecord record =
      ::volkhv::testing::PlayedRecord(game_name, plies, 7, 3);
  for (int i = 0; i < record.plies_size(); ++i) {
    record.mutable_plies(i)->set_full_search(i % 3 != 2);
  }
  record.set_winner(proto::GameRecord::FIRST_PLAYER);
  record.set_termination(TerminationCode(Termination::kResignation));
  return record;
}

search::AlphaBetaResult Mate(int score) {
  search::AlphaBetaResult result;
  result.score = score;
  return result;
}

// Replays `before` beside its relabelled copy `after` with a search made
// here as the relabeller makes its own (fresh for the game, its table kept
// from ply to ply): checks that every cheap ply is unchanged and that no
// move changed, and calls `check` with each full search's result and both
// of its records. Returns the number of full searches checked.
int CheckFullSearches(
    const proto::GameRecord& before, const proto::GameRecord& after,
    const RelabelOptions& options,
    const std::function<void(const search::AlphaBetaResult&,
                             const proto::PlyRecord& old_ply,
                             const proto::PlyRecord& new_ply)>& check) {
  auto made = MakeGame(before.game());
  std::unique_ptr<Heuristic> heuristic = *MakeHeuristic((*made)->Info());
  search::AlphaBetaSearch search(heuristic.get(), options.search);
  int checked = 0;
  EXPECT_TRUE(
      ReplayRecord(before, [&](const GameState& state, int ply) {
        if (ply == before.plies_size()) return;
        SCOPED_TRACE(Cat("ply ", ply));
        const proto::PlyRecord& old_ply = before.plies(ply);
        const proto::PlyRecord& new_ply = after.plies(ply);
        EXPECT_EQ(new_ply.move(), old_ply.move());
        if (!old_ply.full_search()) {
          EXPECT_EQ(new_ply.SerializeAsString(), old_ply.SerializeAsString());
          return;
        }
        check(search.Search(state, {.depth = options.depth}), old_ply, new_ply);
        ++checked;
      }).ok());
  return checked;
}

TEST(RelabelTest, WdlFromScoreMapsByTanhAndKeepsWhatDrawFits) {
  search::AlphaBetaResult even;
  std::array<float, 3> wdl = WdlFromScore(even, 300, 0.2f);
  EXPECT_FLOAT_EQ(wdl[0], 0.4f);
  EXPECT_FLOAT_EQ(wdl[1], 0.2f);
  EXPECT_FLOAT_EQ(wdl[2], 0.4f);

  search::AlphaBetaResult ahead;
  ahead.score = 300;
  wdl = WdlFromScore(ahead, 300, 0.0f);
  EXPECT_NEAR(wdl[0] - wdl[2], std::tanh(1.0), 1e-6);
  EXPECT_FLOAT_EQ(wdl[1], 0.0f);

  // W - L = tanh(-2) = -0.964 leaves room for a draw share of 0.036 only.
  search::AlphaBetaResult behind;
  behind.score = -600;
  wdl = WdlFromScore(behind, 300, 0.5f);
  EXPECT_NEAR(wdl[0] - wdl[2], std::tanh(-2.0), 1e-6);
  EXPECT_NEAR(wdl[1], 1 - std::tanh(2.0), 1e-6);
  EXPECT_NEAR(wdl[0], 0.0f, 1e-6);

  // Proven results are certain, whatever the scale.
  wdl = WdlFromScore(Mate(search::kMateScore - 5), 1e5, 0.3f);
  EXPECT_EQ(wdl, (std::array<float, 3>{1, 0, 0}));
  wdl = WdlFromScore(Mate(-(search::kMateScore - 4)), 1e5, 0.3f);
  EXPECT_EQ(wdl, (std::array<float, 3>{0, 0, 1}));
}

TEST(RelabelTest, FullSearchPliesGetTheSearchScoreAndNothingElseChanges) {
  for (const std::string name : {"tavreli", "tavlei9"}) {
    SCOPED_TRACE(name);
    const proto::GameRecord before = MakeRecord(name, 24);
    proto::GameRecord game = before;
    RelabelOptions options;
    options.depth = 2;
    options.scale = 250;
    Relabeller relabeller(options);
    RelabelCounts counts;
    ASSERT_TRUE(relabeller.Relabel(&game, &counts).ok());
    EXPECT_EQ(counts.games, 1);
    EXPECT_EQ(counts.positions, 16);  // 24 plies, every third cheap
    EXPECT_EQ(game.value_relabel(), "alphabeta depth 2, scale 250, mix 1");

    const int checked = CheckFullSearches(
        before, game, options,
        [](const search::AlphaBetaResult& result, const proto::PlyRecord&,
           const proto::PlyRecord& new_ply) {
          ASSERT_EQ(new_ply.root_wdl_size(), 3);
          const double q = result.MatePlies() > 0 ? 1.0
                           : result.MatePlies() < 0
                               ? -1.0
                               : std::tanh(result.score / 250.0);
          EXPECT_NEAR(new_ply.root_wdl(0) - new_ply.root_wdl(2), q, 1e-5);
          EXPECT_NEAR(
              new_ply.root_wdl(0) + new_ply.root_wdl(1) + new_ply.root_wdl(2),
              1, 1e-5);
        });
    EXPECT_EQ(checked, 16);
    EXPECT_EQ(game.winner(), before.winner());
    EXPECT_EQ(game.start_position(), before.start_position());
  }
}

TEST(RelabelTest, MixKeepsThatShareOfTheRecordedValue) {
  proto::GameRecord full = MakeRecord("tavreli", 6);
  proto::GameRecord half = full;
  RelabelOptions options;
  options.depth = 1;
  RelabelCounts counts;
  ASSERT_TRUE(Relabeller(options).Relabel(&full, &counts).ok());
  options.mix = 0.5;
  ASSERT_TRUE(Relabeller(options).Relabel(&half, &counts).ok());
  const float recorded[3] = {0.5f, 0.2f, 0.3f};
  for (int ply = 0; ply < full.plies_size(); ++ply) {
    if (!full.plies(ply).full_search()) continue;
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(half.plies(ply).root_wdl(i),
                  0.5 * recorded[i] + 0.5 * full.plies(ply).root_wdl(i), 1e-6);
    }
  }
}

TEST(RelabelTest, MixPolicyTargetGivesTheMoveItsShareOfEitherTarget) {
  const Move a{.from = 1, .to = 2, .count = 1};
  const Move b{.from = 3, .to = 4, .count = 1};
  const Move absent{.from = 5, .to = 6, .count = 2};
  proto::PlyRecord counts;
  for (auto [move, visits] : {std::pair{a, 10}, std::pair{b, 30}}) {
    proto::MoveVisits* entry = counts.add_visits();
    entry->set_move(move.Packed());
    entry->set_visits(visits);
  }
  // b: 0.25 * 1 + 0.75 * 30 / 40 = 0.8125 of the target, 130 of 160 visits.
  proto::PlyRecord mixed = counts;
  MixPolicyTarget(b, 0.25, &mixed);
  ASSERT_EQ(mixed.visits_size(), 2);
  EXPECT_EQ(mixed.visits(0).visits(), 10);
  EXPECT_EQ(mixed.visits(1).visits(), 30 + 40 / 3);  // rounded from 13.33
  // A move the search did not list is added with the whole share.
  mixed = counts;
  MixPolicyTarget(absent, 0.5, &mixed);
  ASSERT_EQ(mixed.visits_size(), 3);
  EXPECT_EQ(mixed.visits(2).move(), absent.Packed());
  EXPECT_EQ(mixed.visits(2).visits(), 40);
  EXPECT_EQ(mixed.visits(0).visits() + mixed.visits(1).visits(), 40);
  // No move, no share or no visits: unchanged.
  for (auto [move, share] : {std::pair{Move{}, 0.5}, std::pair{a, 0.0}}) {
    mixed = counts;
    MixPolicyTarget(move, share, &mixed);
    EXPECT_EQ(mixed.SerializeAsString(), counts.SerializeAsString());
  }
  proto::PlyRecord unsearched;
  MixPolicyTarget(a, 0.5, &unsearched);
  EXPECT_EQ(unsearched.visits_size(), 0);

  proto::PlyRecord improved = counts;
  improved.set_policy_target(proto::IMPROVED_POLICY);
  improved.mutable_visits(0)->set_probability(0.6f);
  improved.mutable_visits(1)->set_probability(0.4f);
  MixPolicyTarget(a, 0.5, &improved);
  EXPECT_NEAR(improved.visits(0).probability(), 0.8, 1e-6);
  EXPECT_NEAR(improved.visits(1).probability(), 0.2, 1e-6);
  EXPECT_EQ(improved.visits(0).visits(), 10);  // counts kept for inspection
}

TEST(RelabelTest, PolicyMixAloneLeavesTheValuesAndGivesTheSearchsMove) {
  const proto::GameRecord before = MakeRecord("tavreli", 12);
  proto::GameRecord game = before;
  RelabelOptions options;
  options.depth = 2;
  options.mix = 0;
  options.policy_mix = 0.5;
  RelabelCounts counts;
  ASSERT_TRUE(Relabeller(options).Relabel(&game, &counts).ok());
  EXPECT_EQ(counts.positions, 8);
  EXPECT_FALSE(game.has_value_relabel());
  EXPECT_EQ(game.policy_relabel(), "alphabeta depth 2, policy mix 0.5");

  const int checked = CheckFullSearches(
      before, game, options,
      [](const search::AlphaBetaResult& result, const proto::PlyRecord& old_ply,
         const proto::PlyRecord& new_ply) {
        EXPECT_EQ(new_ply.root_wdl_size(), 3);
        EXPECT_EQ(new_ply.root_wdl(0), 0.5f);
        proto::PlyRecord expected = old_ply;
        MixPolicyTarget(result.best_move, 0.5, &expected);
        EXPECT_EQ(new_ply.SerializeAsString(), expected.SerializeAsString());
        // The fixture's three listed moves total 33 visits; the search's
        // move holds at least half of the new total.
        uint64_t total = 0, of_best = 0;
        for (const proto::MoveVisits& v : new_ply.visits()) {
          total += v.visits();
          if (v.move() == result.best_move.Packed()) of_best = v.visits();
        }
        EXPECT_EQ(total, 66u);
        EXPECT_GE(2 * of_best, total);
      });
  EXPECT_EQ(checked, 8);
}

TEST(RelabelTest, OptionsThatChangeNothingOrLeaveNoVisitsAreRefused) {
  RelabelOptions options;
  options.mix = 0;
  EXPECT_NE(options.Validate().message().find("mix"), std::string::npos);
  options.policy_mix = 1;
  EXPECT_NE(options.Validate().message().find("policy_mix"), std::string::npos);
  options.policy_mix = 0.99;
  EXPECT_TRUE(options.Validate().ok());
}

TEST(RelabelTest, AnIllegalGameIsAnErrorAndLeftUnchanged) {
  proto::GameRecord game = MakeRecord("tavreli", 10);
  game.mutable_plies(4)->set_move(game.plies(3).move());
  const proto::GameRecord before = game;
  RelabelCounts counts;
  const absl::Status status =
      Relabeller(RelabelOptions{}).Relabel(&game, &counts);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("ply 5"), std::string::npos)
      << status.message();
  EXPECT_EQ(game.SerializeAsString(), before.SerializeAsString());
  EXPECT_EQ(counts.positions, 0);
}

TEST(RelabelTest, DirectoriesAreRelabelledOnceAndBadInputIsRefused) {
  const std::string dir = FreshDir("relabel");
  const std::string in = dir + "/in", out = dir + "/out";
  std::filesystem::create_directories(in);
  ASSERT_TRUE(WriteGameRecords(in + "/a.vrec", {MakeRecord("tavreli", 9),
                                                MakeRecord("tavlei9", 9)})
                  .ok());
  ASSERT_TRUE(
      WriteGameRecords(in + "/b.vrec", {MakeRecord("tavlei11", 12)}).ok());
  RelabelOptions options;
  options.depth = 1;
  std::vector<std::string> reported;
  auto progress = [&](const std::string& file, const RelabelCounts&) {
    reported.push_back(file);
  };
  absl::StatusOr<RelabelCounts> counts =
      RelabelRecords(options, in, out, 2, progress);
  ASSERT_TRUE(counts.ok()) << counts.status().message();
  EXPECT_EQ(counts->games, 3);
  EXPECT_EQ(counts->positions, 6 + 6 + 8);
  EXPECT_EQ(reported.size(), 2u);
  for (const char* file : {"/a.vrec", "/b.vrec"}) {
    absl::StatusOr<std::vector<proto::GameRecord>> games =
        ReadGameRecords(out + file);
    ASSERT_TRUE(games.ok()) << games.status().message();
    for (const proto::GameRecord& game : *games) {
      EXPECT_EQ(game.value_relabel(), "alphabeta depth 1, scale 300, mix 1");
    }
  }

  // Run again: both files are there, nothing is done.
  reported.clear();
  counts = RelabelRecords(options, in, out, 1, progress);
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->games, 0);
  EXPECT_TRUE(reported.empty());

  EXPECT_FALSE(RelabelRecords(options, in, in, 1, progress).ok());
  EXPECT_FALSE(RelabelRecords(options, in + "/a.vrec", in, 1, progress).ok());
  EXPECT_FALSE(RelabelRecords(options, dir + "/none", out, 1, progress).ok());
  options.mix = 0;
  const absl::StatusOr<RelabelCounts> bad =
      RelabelRecords(options, in, dir + "/out2", 1, progress);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("mix"), std::string::npos);

  // A damaged file stops the run with its name; what was written stays.
  std::filesystem::copy_file(in + "/a.vrec", in + "/c.vrec");
  std::filesystem::resize_file(in + "/c.vrec", 20);
  options.mix = 1;
  const absl::StatusOr<RelabelCounts> damaged =
      RelabelRecords(options, in, out, 1, progress);
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(std::string(damaged.status().message()).find("c.vrec"),
            std::string::npos)
      << damaged.status().message();
  EXPECT_TRUE(std::filesystem::exists(out + "/a.vrec"));
  EXPECT_FALSE(std::filesystem::exists(out + "/c.vrec"));
}

}  // namespace
}  // namespace volkhv::selfplay
