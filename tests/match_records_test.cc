// Match game records (selfplay/match_records.h): with --records-targets
// played, the players' moves of an alpha-beta match become training
// positions whose policy target is the move played and whose value target
// blends in the mover's evaluation; the opening's plies are not trained on;
// without targets no ply is.
#include "selfplay/match_records.h"

#include <memory>
#include <string>
#include <vector>

#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "engine/search/centipawns.h"
#include "gtest/gtest.h"
#include "selfplay/player_spec.h"
#include "tests/test_toolkit.h"
#include "training/dataset.h"

namespace volkhv::selfplay {
namespace {

using ::volkhv::testing::ScopedTempDir;

struct Played {
  std::unique_ptr<Game> game;
  MatchOptions options;
  MatchReport report;
};

// Two games of alpha-beta depth 1 against itself on Tavlei 9x9 after three
// random plies, short enough to check every ply.
Played AlphaBetaMatch() {
  Played p;
  p.game = *MakeGame("tavlei9");
  p.options.games = 2;
  p.options.random_plies = 3;
  p.options.adjudication.max_plies = 40;
  p.options.seed = 5;
  std::vector<std::shared_ptr<PlayerFactory>> players;
  for (const char* spec : {"alphabeta:depth=1", "alphabeta:depth=1,name=b"}) {
    players.push_back(*MakePlayerFactory(spec, *p.game, {}));
  }
  absl::StatusOr<MatchReport> report =
      RunMatch(*p.game, players, p.options, {});
  EXPECT_TRUE(report.ok()) << report.status();
  p.report = *std::move(report);
  return p;
}

TEST(MatchRecordsTest, ParsesTheKindsOfTargets) {
  EXPECT_EQ(*ParseMatchRecordTargets("none"), MatchRecordTargets::kNone);
  EXPECT_EQ(*ParseMatchRecordTargets("played"), MatchRecordTargets::kPlayed);
  const absl::StatusOr<MatchRecordTargets> bad =
      ParseMatchRecordTargets("visits");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "'visits' is not a kind of record target (none, played)");
}

TEST(MatchRecordsTest, WithoutTargetsNoPlyIsTrained) {
  const Played p = AlphaBetaMatch();
  const std::vector<proto::GameRecord> records =
      MatchRecords(p.report, *p.game, p.options, MatchRecordTargets::kNone);
  ASSERT_EQ(records.size(), 2u);
  for (const proto::GameRecord& r : records) {
    ASSERT_GT(r.plies_size(), 3);
    for (const proto::PlyRecord& ply : r.plies()) {
      EXPECT_FALSE(ply.full_search());
      EXPECT_EQ(ply.visits_size(), 0);
    }
  }
}

TEST(MatchRecordsTest, PlayedMovesAreTheTrainingTargets) {
  const Played p = AlphaBetaMatch();
  std::vector<proto::GameRecord> records =
      MatchRecords(p.report, *p.game, p.options, MatchRecordTargets::kPlayed);
  ASSERT_EQ(records.size(), 2u);
  int64_t own_plies = 0;
  for (size_t g = 0; g < records.size(); ++g) {
    const GameOutcome& outcome = p.report.games[g];
    const proto::GameRecord& r = records[g];
    ASSERT_EQ(outcome.opening_plies, 3);
    ASSERT_EQ(r.plies_size(), static_cast<int>(outcome.moves.size()));
    ASSERT_EQ(outcome.evals.size(), outcome.moves.size() - 3);
    for (int i = 0; i < r.plies_size(); ++i) {
      const proto::PlyRecord& ply = r.plies(i);
      EXPECT_EQ(ply.move(), PackMove(outcome.moves[i]));
      if (i < 3) {  // the random opening
        EXPECT_FALSE(ply.full_search()) << i;
        continue;
      }
      ++own_plies;
      EXPECT_TRUE(ply.full_search()) << i;
      ASSERT_EQ(ply.visits_size(), 1);
      EXPECT_EQ(ply.visits(0).move(), ply.move());
      EXPECT_EQ(ply.visits(0).visits(), 1u);
      // Alpha-beta always evaluates: W - L is its score as q.
      const search::PlayerEval& eval = *outcome.evals[i - 3];
      const double q = eval.mate_plies != 0
                           ? (eval.mate_plies > 0 ? 1 : -1)
                           : search::QFromCentipawns(eval.score_cp);
      ASSERT_EQ(ply.root_wdl_size(), 3);
      EXPECT_NEAR(ply.root_wdl(0) - ply.root_wdl(2), q, 1e-6) << i;
      EXPECT_EQ(ply.root_wdl(1), 0);
    }
  }

  // Written and read as a trainer does: one position per player's move.
  const ScopedTempDir dir;
  ASSERT_TRUE(WriteGameRecords(dir.path() + "/m.vrec", records).ok());
  training::DatasetOptions options;
  options.records_dir = dir.path();
  options.game = "tavlei9";
  options.config.set_validation_fraction(0);
  absl::StatusOr<std::unique_ptr<training::Dataset>> data =
      training::Dataset::Load(options,
                              [](const std::string& w) { ADD_FAILURE() << w; });
  ASSERT_TRUE(data.ok()) << data.status();
  const training::Dataset& d = **data;
  EXPECT_EQ(d.stats().total_positions, own_plies);
  std::vector<training::Sample> samples;
  for (const training::PositionRef& ref : d.train()) {
    EXPECT_GE(ref.ply, 3u);
    samples.push_back({ref, 0});
  }
  training::Batch batch;
  training::ValueTarget value;
  value.search_value_weight = 1;  // the evaluation alone
  ASSERT_TRUE(d.BuildBatch(samples, value, &batch).ok());
  for (int row = 0; row < batch.size; ++row) {
    const training::PositionRef ref = samples[row].ref;
    const proto::PlyRecord& ply = d.games()[ref.game].plies(ref.ply);
    absl::StatusOr<std::unique_ptr<GameState>> state = d.StateAt(ref);
    ASSERT_TRUE(state.ok());
    ASSERT_EQ(batch.target_count[row], 1);
    const absl::StatusOr<Move> played = (*state)->ParseMove(ply.move_text());
    ASSERT_TRUE(played.ok());
    EXPECT_EQ(batch.policy_index[row * training::kTargetStride],
              d.encoder().PolicyIndex(**state, *played));
    EXPECT_FLOAT_EQ(batch.policy_prob[row * training::kTargetStride], 1);
    EXPECT_NEAR(batch.wdl[row * 3] - batch.wdl[row * 3 + 2],
                ply.root_wdl(0) - ply.root_wdl(2), 1e-6);
  }
}

}  // namespace
}  // namespace volkhv::selfplay
