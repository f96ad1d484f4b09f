// The trainer: configuration parsing, the replay window, the learning-rate
// schedule, Tavlei's symmetries, the dataset (targets, damaged files), the
// prefetcher, and training itself on tiny nets: the loss decreases, a
// checkpoint resumes exactly, and the exported net loads and evaluates.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "engine/game/encoder.h"
#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "engine/tavlei/policy_map.h"
#include "engine/util/checked_file.h"
#include "engine/util/files.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "nn/torch_backend.h"
#include "nn/torch_weights.h"
#include "nn/weights_file.h"
#include "tests/game_fixtures.h"
#include "tests/test_toolkit.h"
#include "tests/training_fixtures.h"
#include "training/dataset.h"
#include "training/prefetcher.h"
#include "training/symmetry.h"
#include "training/trainer.h"
#include "training/training_config.h"

namespace volkhv::training {
namespace {

using ::volkhv::testing::Contains;
using ::volkhv::testing::EncoderFor;
using ::volkhv::testing::NewGame;
using ::volkhv::testing::ScopedTempDir;

using ::volkhv::testing::SyntheticGames;
using ::volkhv::testing::SyntheticOptions;
using ::volkhv::testing::WriteRecords;
using ::volkhv::testing::WriteTinyNet;

int64_t CountTrainingPlies(const std::vector<proto::GameRecord>& games) {
  int64_t n = 0;
  for (const proto::GameRecord& g : games) {
    for (const proto::PlyRecord& p : g.plies()) n += IsTrainingPly(p);
  }
  return n;
}

// A configuration for tiny tests: every position in the window, small
// batches, no periodic validation.
proto::TrainingConfig TinyConfig() {
  proto::TrainingConfig c;
  c.set_batch_size(16);
  c.set_steps(6);
  c.set_learning_rate(0.05f);
  c.set_window_min_positions(1000000);
  c.set_validation_fraction(0.1f);
  c.set_validation_positions(64);
  c.set_validation_interval(0);
  c.set_checkpoint_interval(2);
  c.set_log_interval(1);
  c.set_loader_threads(2);
  c.set_prefetch_batches(2);
  return c;
}

// ---------------------------------------------------------------------------
// Configuration.

TEST(TrainingConfigTest, DefaultsAreValid) {
  EXPECT_TRUE(ValidateTrainingConfig(proto::TrainingConfig()).ok());
  absl::StatusOr<proto::TrainingConfig> c = ParseTrainingConfig(
      "batch_size: 64\noptimizer: ADAMW\nlr_schedule: COSINE\n"
      "warmup_steps: 10  # comment\n",
      "test.textproto");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->batch_size(), 64);
  EXPECT_EQ(c->optimizer(), proto::TrainingConfig::ADAMW);
  EXPECT_EQ(c->steps(), 1000);  // default kept
}

TEST(TrainingConfigTest, RejectsUnknownKeysAndBadValuesNamingTheKey) {
  const struct {
    const char* text;
    const char* key;
  } cases[] = {
      {"batch_sise: 3", "batch_sise"},
      {"batch_size: 0", "batch_size"},
      {"batch_size: many", "batch_size"},
      {"learning_rate: -1", "learning_rate"},
      {"optimizer: ADAM", "optimizer"},
      {"momentum: 1", "momentum"},
      {"window_min_positions: 10\nwindow_max_positions: 5",
       "window_max_positions"},
      {"window_exponent: 0", "window_exponent"},
      {"validation_fraction: 0.9", "validation_fraction"},
      {"policy_loss_weight: 0\nvalue_loss_weight: 0", "value_loss_weight"},
      {"search_value_weight: 1.5", "search_value_weight"},
      {"td_value_weight: -0.1", "td_value_weight"},
      {"td_horizon_plies: 0", "td_horizon_plies"},
      {"search_value_weight: 0.6\ntd_value_weight: 0.6", "td_value_weight"},
      {"result_discount: 0", "result_discount"},
      {"result_discount: 1.01", "result_discount"},
      {"loader_threads: 0", "loader_threads"},
      {"moves_left_loss_weight: -1", "moves_left_loss_weight: must be in"},
      {"moves_left_loss_weight: nan", "moves_left_loss_weight: must be in"},
      {"moves_left_loss_weight: 101", "moves_left_loss_weight: must be in"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<proto::TrainingConfig> config =
        ParseTrainingConfig(c.text, "bad.textproto");
    ASSERT_FALSE(config.ok()) << c.text;
    EXPECT_TRUE(Contains(std::string(config.status().message()), c.key));
    EXPECT_TRUE(
        Contains(std::string(config.status().message()), "bad.textproto"));
  }
}

TEST(TrainingConfigTest, ReplayWindowFormula) {
  const proto::TrainingConfig d;  // 250k min, 5M max, 16 * N^0.75
  EXPECT_EQ(ReplayWindowSize(d, 0), 0);
  EXPECT_EQ(ReplayWindowSize(d, 1000), 1000);      // all, below the minimum
  EXPECT_EQ(ReplayWindowSize(d, 250000), 250000);  // all
  EXPECT_EQ(ReplayWindowSize(d, 300000), 250000);  // the minimum
  EXPECT_EQ(ReplayWindowSize(d, 1000000),
            static_cast<int64_t>(16 * std::pow(1e6, 0.75)));  // 505964
  EXPECT_EQ(ReplayWindowSize(d, 10000000),
            static_cast<int64_t>(16 * std::pow(1e7, 0.75)));
  EXPECT_EQ(ReplayWindowSize(d, 100000000), 5000000);  // the cap

  proto::TrainingConfig c;
  c.set_window_min_positions(10);
  c.set_window_max_positions(100);
  c.set_window_scale(2);
  c.set_window_exponent(0.5);
  EXPECT_EQ(ReplayWindowSize(c, 5), 5);
  EXPECT_EQ(ReplayWindowSize(c, 20), 10);  // 2 * sqrt(20) = 8.9 -> 10
  EXPECT_EQ(ReplayWindowSize(c, 50), 14);  // 2 * sqrt(50) = 14.1
  EXPECT_EQ(ReplayWindowSize(c, 10000), 100);
}

TEST(TrainingConfigTest, LearningRateSchedules) {
  proto::TrainingConfig c;
  c.set_learning_rate(0.1f);
  EXPECT_NEAR(LearningRate(c, 12345), 0.1, 1e-7);
  c.set_warmup_steps(10);
  EXPECT_NEAR(LearningRate(c, 0), 0.01, 1e-7);
  EXPECT_NEAR(LearningRate(c, 4), 0.05, 1e-7);
  EXPECT_NEAR(LearningRate(c, 10), 0.1, 1e-7);
  c.set_lr_schedule(proto::TrainingConfig::STEP);
  c.set_lr_step_interval(100);
  c.set_lr_step_factor(0.5f);
  EXPECT_NEAR(LearningRate(c, 109), 0.1, 1e-7);
  EXPECT_NEAR(LearningRate(c, 110), 0.05, 1e-7);
  EXPECT_NEAR(LearningRate(c, 310), 0.0125, 1e-7);
  c.set_lr_schedule(proto::TrainingConfig::COSINE);
  c.set_lr_decay_steps(100);
  c.set_lr_min_fraction(0.1f);
  EXPECT_NEAR(LearningRate(c, 10), 0.1, 1e-7);
  EXPECT_NEAR(LearningRate(c, 60), 0.055, 1e-7);  // half-way
  EXPECT_NEAR(LearningRate(c, 110), 0.01, 1e-7);
  EXPECT_NEAR(LearningRate(c, 5000), 0.01, 1e-7);
}

// ---------------------------------------------------------------------------
// Symmetries.

// The Tavlei position text with the board moved by `sym`.
std::string TransformTavleiText(const std::string& text, int width,
                                const Symmetries& symmetries, int sym) {
  const size_t space = text.find(' ');
  std::vector<char> board(width * width, '.');
  int rank = width - 1, file = 0;
  for (size_t i = 0; i < space; ++i) {
    const char c = text[i];
    if (c == '/') {
      --rank;
      file = 0;
    } else if (c >= '0' && c <= '9') {
      int run = c - '0';
      while (i + 1 < space && text[i + 1] >= '0' && text[i + 1] <= '9') {
        run = run * 10 + (text[++i] - '0');
      }
      file += run;
    } else {
      board[symmetries.MapSquare(sym, rank * width + file)] = c;
      ++file;
    }
  }
  std::string out;
  for (int r = width - 1; r >= 0; --r) {
    int run = 0;
    for (int f = 0; f < width; ++f) {
      const char c = board[r * width + f];
      if (c == '.') {
        ++run;
        continue;
      }
      if (run > 0) out += std::to_string(run);
      run = 0;
      out += c;
    }
    if (run > 0) out += std::to_string(run);
    if (r > 0) out += '/';
  }
  return out + text.substr(space);
}

TEST(SymmetryTest, TavreliHasOnlyTheIdentity) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  std::unique_ptr<Encoder> encoder = EncoderFor(*game);
  absl::StatusOr<std::unique_ptr<Symmetries>> s =
      Symmetries::ForGame(game->Info(), *encoder);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)->count(), 1);
}

// For random Tavlei positions and each of the 8 symmetries: the rules are
// invariant (the transformed position's legal moves are the transformed
// moves), the planes of the transformed position are the transformed
// planes, and a move's policy index maps to the transformed move's index.
// Each symmetry is a bijection on the policy indices of moves, and the 8
// form a group.
TEST(SymmetryTest, TavleiPlanesAndPolicyAreConsistent) {
  for (const std::string name : {"tavlei9", "tavlei11"}) {
    SCOPED_TRACE(name);
    std::unique_ptr<Game> game = NewGame(name);
    std::unique_ptr<Encoder> encoder = EncoderFor(*game);
    absl::StatusOr<std::unique_ptr<Symmetries>> made =
        Symmetries::ForGame(game->Info(), *encoder);
    ASSERT_TRUE(made.ok()) << made.status();
    const Symmetries& sym = **made;
    ASSERT_EQ(sym.count(), 8);
    const int width = game->Info().board_width;
    const int squares = width * width;
    const int size = encoder->Shape().Size();

    // Square maps: distinct bijections, closed under composition.
    std::set<std::vector<int>> maps;
    for (int s = 0; s < 8; ++s) {
      std::vector<int> map(squares);
      std::set<int> image;
      for (int sq = 0; sq < squares; ++sq) {
        map[sq] = sym.MapSquare(s, sq);
        image.insert(map[sq]);
      }
      EXPECT_EQ(static_cast<int>(image.size()), squares);
      maps.insert(map);
    }
    EXPECT_EQ(maps.size(), 8u);
    for (int a = 0; a < 8; ++a) {
      for (int b = 0; b < 8; ++b) {
        std::vector<int> composed(squares);
        for (int sq = 0; sq < squares; ++sq) {
          composed[sq] = sym.MapSquare(a, sym.MapSquare(b, sq));
        }
        EXPECT_TRUE(maps.count(composed)) << a << " after " << b;
      }
    }

    // Policy maps: bijections of the move indices.
    for (int s = 0; s < 8; ++s) {
      std::set<int> image;
      int valid = 0;
      for (int index = 0; index < encoder->PolicySize(); ++index) {
        int from, to;
        const bool is_move =
            tavlei::DecodeTavleiPolicyIndex(index, width, &from, &to);
        const int mapped = sym.MapPolicyIndex(s, index);
        if (!is_move) {
          if (s > 0) {
            EXPECT_EQ(mapped, -1);
          }
          continue;
        }
        ++valid;
        ASSERT_GE(mapped, 0);
        int mfrom, mto;
        ASSERT_TRUE(
            tavlei::DecodeTavleiPolicyIndex(mapped, width, &mfrom, &mto));
        EXPECT_EQ(mfrom, sym.MapSquare(s, from));
        EXPECT_EQ(mto, sym.MapSquare(s, to));
        image.insert(mapped);
      }
      EXPECT_EQ(static_cast<int>(image.size()), valid);
    }

    // Positions.
    std::mt19937 rng(5);
    std::unique_ptr<GameState> state = game->NewInitialState();
    MoveList legal, transformed_legal;
    std::vector<float> planes(size), moved(size), expected(size);
    int positions = 0;
    for (int ply = 0; ply < 60 && positions < 25; ++ply) {
      if (state->Result().IsOver()) {
        state = game->NewInitialState();
        continue;
      }
      state->LegalMoves(&legal);
      encoder->Encode(*state, planes.data());
      for (int s = 0; s < 8; ++s) {
        SCOPED_TRACE(Cat("ply ", ply, " symmetry ", s));
        const std::string text =
            TransformTavleiText(state->PositionText(), width, sym, s);
        absl::StatusOr<std::unique_ptr<GameState>> t =
            game->NewStateFromText(text);
        ASSERT_TRUE(t.ok()) << t.status() << " " << text;
        // Rules invariance.
        (*t)->LegalMoves(&transformed_legal);
        std::set<uint32_t> want, got;
        for (Move m : legal) {
          want.insert(MakeMove(sym.MapSquare(s, m.from), sym.MapSquare(s, m.to),
                               m.count)
                          .Packed());
        }
        for (Move m : transformed_legal) got.insert(m.Packed());
        EXPECT_EQ(want, got);
        // Planes.
        sym.TransformPlanes(s, planes.data(), moved.data());
        encoder->Encode(**t, expected.data());
        EXPECT_EQ(moved, expected);
        // Policy indices; distinct for distinct moves.
        std::set<int> indices;
        for (Move m : legal) {
          const Move tm = MakeMove(sym.MapSquare(s, m.from),
                                   sym.MapSquare(s, m.to), m.count);
          const int mapped =
              sym.MapPolicyIndex(s, encoder->PolicyIndex(*state, m));
          EXPECT_EQ(mapped, encoder->PolicyIndex(**t, tm));
          indices.insert(mapped);
        }
        EXPECT_EQ(static_cast<int>(indices.size()), legal.size());
      }
      ++positions;
      state->Play(legal[rng() % legal.size()]);
    }
    EXPECT_GE(positions, 20);
  }
}

// A batch built with a symmetry holds the transformed planes and the
// policy target at the mapped indices.
TEST(SymmetryTest, AugmentedSamplesMatchTheTransform) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  WriteRecords(dir + "/a.vrec", SyntheticGames("tavlei11", {.games = 3}));
  DatasetOptions options;
  options.records_dir = dir;
  options.game = "tavlei11";
  options.config.set_validation_fraction(0);
  absl::StatusOr<std::unique_ptr<Dataset>> data =
      Dataset::Load(options, [](const std::string& w) { FAIL() << w; });
  ASSERT_TRUE(data.ok()) << data.status();
  const Dataset& d = **data;
  ASSERT_GT(d.train().size(), 10u);
  const int size = d.encoder().Shape().Size();
  for (int i = 0; i < 10; ++i) {
    const PositionRef ref = d.train()[i * 3 % d.train().size()];
    std::vector<Sample> samples;
    for (int s = 0; s < 8; ++s) samples.push_back({ref, s});
    Batch batch;
    ASSERT_TRUE(d.BuildBatch(samples, {}, &batch).ok());
    std::vector<float> moved(size);
    for (int s = 1; s < 8; ++s) {
      d.symmetries().TransformPlanes(s, batch.planes.data(), moved.data());
      EXPECT_TRUE(std::equal(moved.begin(), moved.end(),
                             batch.planes.begin() + s * size));
      std::map<int64_t, float> want, got;
      for (int k = 0; k < batch.target_count[0]; ++k) {
        want[d.symmetries().MapPolicyIndex(s, batch.policy_index[k])] =
            batch.policy_prob[k];
      }
      for (int k = 0; k < batch.target_count[s]; ++k) {
        got[batch.policy_index[s * kTargetStride + k]] =
            batch.policy_prob[s * kTargetStride + k];
      }
      EXPECT_EQ(want, got);
      EXPECT_EQ(batch.best_index[s],
                d.symmetries().MapPolicyIndex(s, batch.best_index[0]));
    }
  }
}

// ---------------------------------------------------------------------------
// Dataset.

TEST(DatasetTest, TargetsAreNormalisedVisitsAndTheResultOfTheSideToMove) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::vector<proto::GameRecord> games = SyntheticGames(
      "tavreli", {.games = 2, .max_plies = 12, .cheap_odd_plies = true});
  games[1].set_winner(proto::GameRecord::DRAW);
  // Undecided and other-game games are skipped.
  std::vector<proto::GameRecord> other =
      SyntheticGames("tavlei9", {.games = 1, .max_plies = 4});
  std::vector<proto::GameRecord> undecided =
      SyntheticGames("tavreli", {.games = 1, .max_plies = 4, .tag = "u"});
  undecided[0].set_winner(proto::GameRecord::UNDECIDED);
  games.push_back(other[0]);
  games.push_back(undecided[0]);
  WriteRecords(dir + "/a.vrec", games);

  DatasetOptions options;
  options.records_dir = dir;
  options.game = "tavreli";
  options.config.set_validation_fraction(0);
  std::vector<std::string> warnings;
  absl::StatusOr<std::unique_ptr<Dataset>> data = Dataset::Load(
      options, [&](const std::string& w) { warnings.push_back(w); });
  ASSERT_TRUE(data.ok()) << data.status();
  const Dataset& d = **data;
  EXPECT_EQ(d.stats().games_other, 1);
  EXPECT_EQ(d.stats().games_undecided, 1);
  EXPECT_EQ(warnings.size(), 2u);
  // Only the full searches (even plies) of the two decided games.
  EXPECT_EQ(d.stats().total_positions, 12);
  ASSERT_EQ(d.train().size(), 12u);
  std::vector<Sample> samples;
  for (const PositionRef& ref : d.train()) {
    EXPECT_EQ(ref.ply % 2, 0u);
    samples.push_back({ref, 0});
  }
  Batch batch;
  ASSERT_TRUE(d.BuildBatch(samples, {}, &batch).ok());
  for (int row = 0; row < batch.size; ++row) {
    const PositionRef ref = samples[row].ref;
    absl::StatusOr<std::unique_ptr<GameState>> state = d.StateAt(ref);
    ASSERT_TRUE(state.ok());
    MoveList legal;
    (*state)->LegalMoves(&legal);
    ASSERT_GE(legal.size(), 2);
    ASSERT_EQ(batch.target_count[row], 2);
    std::map<int64_t, float> got;
    for (int k = 0; k < 2; ++k) {
      got[batch.policy_index[row * kTargetStride + k]] =
          batch.policy_prob[row * kTargetStride + k];
    }
    const int first = d.encoder().PolicyIndex(**state, legal[0]);
    const int second = d.encoder().PolicyIndex(**state, legal[1]);
    EXPECT_FLOAT_EQ(got[first], 0.9f);
    EXPECT_FLOAT_EQ(got[second], 0.1f);
    EXPECT_EQ(batch.best_index[row], first);
    const float* wdl = &batch.wdl[row * 3];
    if (d.games()[ref.game].winner() == proto::GameRecord::DRAW) {
      EXPECT_EQ(std::vector<float>(wdl, wdl + 3),
                (std::vector<float>{0, 1, 0}));
    } else {  // White won; White moves on even plies
      EXPECT_EQ((*state)->SideToMove(), 0);
      EXPECT_EQ(std::vector<float>(wdl, wdl + 3),
                (std::vector<float>{1, 0, 0}));
    }
  }
  // Black to move in a game White won: a loss.
  PositionRef odd = d.train()[0];
  odd.ply = 1;
  Batch one;
  ASSERT_TRUE(d.BuildBatch({{odd, 0}}, {}, &one).ok());
  EXPECT_EQ(std::vector<float>(one.wdl.begin(), one.wdl.begin() + 3),
            (std::vector<float>{0, 0, 1}));
}

// The moves-left target of a position is the plies from it to the game's
// last recorded ply, whoever moves and whatever the result.
TEST(DatasetTest, MovesLeftTargetIsThePliesToTheGamesEnd) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::vector<proto::GameRecord> games = SyntheticGames(
      "tavreli", {.games = 3, .max_plies = 14, .cheap_odd_plies = true});
  // Games of 14, 9 (cut short, as a resignation leaves it) and 14 plies.
  while (games[1].plies_size() > 9) games[1].mutable_plies()->RemoveLast();
  games[2].set_winner(proto::GameRecord::DRAW);
  WriteRecords(dir + "/a.vrec", games);
  DatasetOptions options;
  options.records_dir = dir;
  options.game = "tavreli";
  options.config.set_validation_fraction(0);
  absl::StatusOr<std::unique_ptr<Dataset>> data =
      Dataset::Load(options, [](const std::string& w) { ADD_FAILURE() << w; });
  ASSERT_TRUE(data.ok()) << data.status();
  const Dataset& d = **data;
  std::vector<Sample> samples;
  for (const PositionRef& ref : d.train()) samples.push_back({ref, 0});
  ASSERT_EQ(samples.size(), 7u + 5u + 7u);
  Batch batch;
  ASSERT_TRUE(d.BuildBatch(samples, {}, &batch).ok());
  std::map<int, int> rows_per_length;
  for (int row = 0; row < batch.size; ++row) {
    const PositionRef ref = samples[row].ref;
    const int length = d.games()[ref.game].plies_size();
    ++rows_per_length[length];
    EXPECT_EQ(batch.moves_left[row], static_cast<float>(length - ref.ply))
        << "game " << ref.game << " ply " << ref.ply;
  }
  EXPECT_EQ(rows_per_length, (std::map<int, int>{{9, 5}, {14, 14}}));
  // The first position of a 14-ply game: 14 plies to go; its last: 1.
  Batch one;
  ASSERT_TRUE(d.BuildBatch({{{0, 0}, 0}, {{0, 13}, 0}}, {}, &one).ok());
  EXPECT_EQ(one.moves_left[0], 14.0f);
  EXPECT_EQ(one.moves_left[1], 1.0f);
}

// Writes `games` into dir/a.vrec and loads them all as training positions.
absl::StatusOr<std::unique_ptr<Dataset>> WriteAndLoadTavlei9(
    const std::string& dir, const std::vector<proto::GameRecord>& games) {
  WriteRecords(dir + "/a.vrec", games);
  DatasetOptions options;
  options.records_dir = dir;
  options.game = "tavlei9";
  options.config.set_validation_fraction(0);
  return Dataset::Load(options, [](const std::string& w) { FAIL() << w; });
}

// search_value_weight mixes the recorded root WDL into the result target.
TEST(DatasetTest, SearchValueWeightMixesTheRootWdlIntoTheTarget) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::vector<proto::GameRecord> games =
      SyntheticGames("tavlei9", {.games = 1, .tag = "q"});
  games[0].set_winner(proto::GameRecord::FIRST_PLAYER);
  proto::PlyRecord* ply = games[0].mutable_plies(0);
  ply->clear_root_wdl();
  for (float p : {0.2f, 0.3f, 0.5f}) ply->add_root_wdl(p);
  absl::StatusOr<std::unique_ptr<Dataset>> data =
      WriteAndLoadTavlei9(dir, games);
  ASSERT_TRUE(data.ok()) << data.status();
  Batch batch;
  // The first player to move in a game it won: (1, 0, 0) before mixing.
  ASSERT_TRUE(
      (*data)
          ->BuildBatch({{{0, 0}, 0}}, {.search_value_weight = 0.25}, &batch)
          .ok());
  EXPECT_FLOAT_EQ(batch.wdl[0], 0.75f + 0.25f * 0.2f);
  EXPECT_FLOAT_EQ(batch.wdl[1], 0.25f * 0.3f);
  EXPECT_FLOAT_EQ(batch.wdl[2], 0.25f * 0.5f);
  ASSERT_TRUE((*data)->BuildBatch({{{0, 0}, 0}}, {}, &batch).ok());
  EXPECT_EQ(std::vector<float>(batch.wdl.begin(), batch.wdl.begin() + 3),
            (std::vector<float>{1, 0, 0}));
}

// A ply whose policy target is the improved policy trains on its
// probabilities, not on its visit counts; bad probabilities are refused.
TEST(DatasetTest, ImprovedPolicyTargetsTrainOnTheirProbabilities) {
  const ScopedTempDir test_dir;
  std::vector<proto::GameRecord> games =
      SyntheticGames("tavlei9", {.games = 1, .tag = "g"});
  proto::PlyRecord* ply = games[0].mutable_plies(0);
  ASSERT_GE(ply->visits_size(), 2);
  ply->set_policy_target(proto::IMPROVED_POLICY);
  for (int v = 0; v < ply->visits_size(); ++v) {
    // Visits say the first move; the improved policy says the second.
    ply->mutable_visits(v)->set_visits(v == 0 ? 10 : 0);
    ply->mutable_visits(v)->set_probability(v == 1 ? 0.75f : 0.0f);
  }
  ply->mutable_visits(0)->set_probability(0.25f);
  absl::StatusOr<std::unique_ptr<Dataset>> data =
      WriteAndLoadTavlei9(test_dir.path(), games);
  ASSERT_TRUE(data.ok()) << data.status();
  Batch batch;
  ASSERT_TRUE((*data)->BuildBatch({{{0, 0}, 0}}, {}, &batch).ok());
  absl::StatusOr<std::unique_ptr<GameState>> state = (*data)->StateAt({0, 0});
  ASSERT_TRUE(state.ok());
  const int first = (*data)->encoder().PolicyIndex(
      **state, UnpackMove(ply->visits(0).move()));
  const int second = (*data)->encoder().PolicyIndex(
      **state, UnpackMove(ply->visits(1).move()));
  ASSERT_EQ(batch.target_count[0], 2);
  std::map<int64_t, float> got;
  for (int k = 0; k < 2; ++k) got[batch.policy_index[k]] = batch.policy_prob[k];
  EXPECT_FLOAT_EQ(got[first], 0.25f);
  EXPECT_FLOAT_EQ(got[second], 0.75f);
  EXPECT_EQ(batch.best_index[0], second);

  proto::GameRecord bad = games[0];
  bad.mutable_plies(0)->mutable_visits(1)->set_probability(0.5f);
  const absl::Status status = CheckRecordValues(bad);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("visits.probability"),
            std::string::npos)
      << status;
  bad.mutable_plies(0)->mutable_visits(1)->set_probability(NAN);
  EXPECT_FALSE(CheckRecordValues(bad).ok());
}

// td_value_weight mixes in the root WDL recorded td_horizon plies later, seen
// from the sample's side to move, or the result past the game's end.
TEST(DatasetTest, TdValueWeightMixesInALaterRootWdl) {
  const ScopedTempDir test_dir;
  std::vector<proto::GameRecord> games =
      SyntheticGames("tavlei9", {.games = 1, .tag = "t"});
  proto::GameRecord& game = games[0];
  game.set_winner(proto::GameRecord::FIRST_PLAYER);
  ASSERT_GE(game.plies_size(), 4);
  const std::vector<std::vector<float>> root = {
      {0.2f, 0.3f, 0.5f}, {}, {0.6f, 0.1f, 0.3f}, {0.1f, 0.2f, 0.7f}};
  for (int p = 0; p < 4; ++p) {
    game.mutable_plies(p)->clear_root_wdl();
    for (float x : root[p]) game.mutable_plies(p)->add_root_wdl(x);
  }
  absl::StatusOr<std::unique_ptr<Dataset>> data =
      WriteAndLoadTavlei9(test_dir.path(), games);
  ASSERT_TRUE(data.ok()) << data.status();
  auto target = [&](uint32_t ply, ValueTarget value) {
    Batch batch;
    EXPECT_TRUE((*data)->BuildBatch({{{0, ply}, 0}}, value, &batch).ok());
    return std::vector<float>(batch.wdl.begin(), batch.wdl.begin() + 3);
  };
  auto near = [](std::vector<float> got, std::vector<float> want) {
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
  };
  // Ply 0, the winner to move: ply 1 has no root WDL, so ply 2's (the same
  // side to move) is the later value.
  near(target(0, {.search_value_weight = 0.25,
                  .td_value_weight = 0.5,
                  .td_horizon = 1}),
       {0.25f + 0.25f * 0.2f + 0.5f * 0.6f, 0.25f * 0.3f + 0.5f * 0.1f,
        0.25f * 0.5f + 0.5f * 0.3f});
  // Ply 1, the loser to move: ply 2 is the opponent's (flipped), ply 3 its
  // own.
  near(target(1, {.td_value_weight = 1, .td_horizon = 1}), {0.3f, 0.1f, 0.6f});
  near(target(1, {.td_value_weight = 1, .td_horizon = 2}), {0.1f, 0.2f, 0.7f});
  // Past the end of the game: the result.
  near(target(1, {.td_value_weight = 1, .td_horizon = 1000}), {0, 0, 1});
  // Off: the result alone.
  near(target(0, {.td_horizon = 1}), {1, 0, 0});
}

// result_discount moves a decided result towards a draw by the plies left.
TEST(DatasetTest, ResultDiscountShrinksADistantResultTowardsADraw) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::vector<proto::GameRecord> games =
      SyntheticGames("tavlei9", {.games = 1, .tag = "d"});
  games[0].set_winner(proto::GameRecord::FIRST_PLAYER);
  const int plies = games[0].plies_size();
  ASSERT_GE(plies, 2);
  absl::StatusOr<std::unique_ptr<Dataset>> data =
      WriteAndLoadTavlei9(dir, games);
  ASSERT_TRUE(data.ok()) << data.status();
  Batch batch;
  // Ply 0: the winner to move, `plies` plies before the end.
  ASSERT_TRUE((*data)
                  ->BuildBatch({{{0, 0}, 0}}, {.result_discount = 0.9}, &batch)
                  .ok());
  const float w = static_cast<float>(std::pow(0.9, plies));
  EXPECT_FLOAT_EQ(batch.wdl[0], w);
  EXPECT_FLOAT_EQ(batch.wdl[1], 1 - w);
  EXPECT_FLOAT_EQ(batch.wdl[2], 0);
  // Ply 1: the loser to move, one ply nearer the end.
  ASSERT_TRUE((*data)
                  ->BuildBatch({{{0, 1}, 0}}, {.result_discount = 0.9}, &batch)
                  .ok());
  const float l = static_cast<float>(std::pow(0.9, plies - 1));
  EXPECT_FLOAT_EQ(batch.wdl[0], 0);
  EXPECT_FLOAT_EQ(batch.wdl[1], 1 - l);
  EXPECT_FLOAT_EQ(batch.wdl[2], l);
  // A drawn game stays a draw.
  games[0].set_winner(proto::GameRecord::DRAW);
  const ScopedTempDir draw_dir;
  data = WriteAndLoadTavlei9(draw_dir.path(), games);
  ASSERT_TRUE(data.ok()) << data.status();
  ASSERT_TRUE((*data)
                  ->BuildBatch({{{0, 0}, 0}}, {.result_discount = 0.9}, &batch)
                  .ok());
  EXPECT_EQ(std::vector<float>(batch.wdl.begin(), batch.wdl.begin() + 3),
            (std::vector<float>{0, 1, 0}));
}

// Moves that share a policy index have their visits added up.
TEST(DatasetTest, SharedPolicyIndicesAreSummed) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::vector<proto::GameRecord> games =
      SyntheticGames("tavlei9", {.games = 1, .max_plies = 2});
  // The same move twice stands for two moves sharing an index.
  proto::PlyRecord* ply = games[0].mutable_plies(0);
  proto::MoveVisits* dup = ply->add_visits();
  dup->set_move(ply->visits(1).move());
  dup->set_visits(100);
  absl::StatusOr<std::unique_ptr<Dataset>> data =
      WriteAndLoadTavlei9(dir, games);
  ASSERT_TRUE(data.ok()) << data.status();
  Batch batch;
  ASSERT_TRUE((*data)->BuildBatch({{{0, 0}, 0}}, {}, &batch).ok());
  ASSERT_EQ(batch.target_count[0], 2);
  std::vector<float> probs(batch.policy_prob.begin(),
                           batch.policy_prob.begin() + 2);
  std::sort(probs.begin(), probs.end());
  EXPECT_FLOAT_EQ(probs[0], 0.45f);  // 90 / 200
  EXPECT_FLOAT_EQ(probs[1], 0.55f);  // (10 + 100) / 200
}

TEST(DatasetTest, DamagedFilesAndInvalidGamesAreSkippedWithAWarning) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::vector<proto::GameRecord> good =
      SyntheticGames("tavlei9", {.games = 3, .tag = "good"});
  WriteRecords(dir + "/1-good.vrec", good);
  // A truncated file and a garbage file.
  WriteRecords(
      dir + "/2-truncated.vrec",
      SyntheticGames("tavlei9", {.games = 3, .seed = 2, .tag = "bad"}));
  absl::StatusOr<std::string> bytes = ReadWholeFile(dir + "/2-truncated.vrec");
  ASSERT_TRUE(bytes.ok());
  std::ofstream(dir + "/2-truncated.vrec", std::ios::binary | std::ios::trunc)
      << bytes->substr(0, bytes->size() / 2);
  std::ofstream(dir + "/3-garbage.vrec", std::ios::binary)
      << "this is not a record file";
  // A game with an illegal move.
  std::vector<proto::GameRecord> illegal =
      SyntheticGames("tavlei9", {.games = 1, .seed = 3, .tag = "illegal"});
  illegal[0].mutable_plies(2)->set_move(PackMove(MakeMove(0, 80, 1)));
  WriteRecords(dir + "/4-illegal.vrec", illegal);

  DatasetOptions options;
  options.records_dir = dir;
  options.game = "tavlei9";
  options.config.set_validation_fraction(0);
  std::vector<std::string> warnings;
  absl::StatusOr<std::unique_ptr<Dataset>> data = Dataset::Load(
      options, [&](const std::string& w) { warnings.push_back(w); });
  ASSERT_TRUE(data.ok()) << data.status();
  const Dataset& d = **data;
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_TRUE(Contains(warnings[0], "2-truncated.vrec"));
  EXPECT_TRUE(Contains(warnings[1], "3-garbage.vrec"));
  EXPECT_TRUE(Contains(warnings[2], "ply 3"));
  EXPECT_EQ(d.stats().files_read, 2);
  EXPECT_EQ(d.stats().files_skipped, 2);
  EXPECT_EQ(d.stats().games_invalid, 1);
  EXPECT_EQ(d.record_files(),
            (std::vector<std::string>{"1-good.vrec", "4-illegal.vrec"}));
  // Only the good games are trained on.
  ASSERT_EQ(d.games().size(), 3u);
  for (const proto::GameRecord& g : d.games()) {
    EXPECT_TRUE(g.created().starts_with("good-")) << g.created();
  }
  EXPECT_EQ(static_cast<int64_t>(d.train().size()), CountTrainingPlies(good));

  // A resumed call's file list must read in full.
  options.record_files = {"1-good.vrec", "2-truncated.vrec"};
  EXPECT_FALSE(Dataset::Load(options, [](const std::string&) {}).ok());
}

// Issue 22, item 5: values the CRC cannot vouch for (written that way) are
// checked: a game with a non-finite, negative or unnormalised root WDL, or
// absurd visits, is skipped with a warning naming file, game, ply and field.
TEST(DatasetTest, RecordValuesAreCheckedNamingFileGamePlyAndField) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::vector<proto::GameRecord> good =
      SyntheticGames("tavlei9", {.games = 2, .tag = "good"});
  for (proto::GameRecord& g : good) {
    for (proto::PlyRecord& p : *g.mutable_plies()) {
      for (float x : {0.2f, 0.3f, 0.5f}) p.add_root_wdl(x);
    }
  }
  WriteRecords(dir + "/1-good.vrec", good);
  std::vector<proto::GameRecord> bad =
      SyntheticGames("tavlei9", {.games = 4, .seed = 5, .tag = "bad"});
  for (proto::GameRecord& g : bad) {
    for (proto::PlyRecord& p : *g.mutable_plies()) {
      for (float x : {0.2f, 0.3f, 0.5f}) p.add_root_wdl(x);
    }
  }
  bad[0].mutable_plies(1)->set_root_wdl(0, std::nanf(""));
  bad[1].mutable_plies(0)->set_root_wdl(2, -5);
  bad[2].mutable_plies(3)->set_root_wdl(1, 0.8f);
  bad[3].mutable_plies(2)->mutable_visits(0)->set_visits(4000000000u);
  WriteRecords(dir + "/2-bad.vrec", bad);

  DatasetOptions options;
  options.records_dir = dir;
  options.game = "tavlei9";
  options.config.set_validation_fraction(0);
  std::vector<std::string> warnings;
  absl::StatusOr<std::unique_ptr<Dataset>> data = Dataset::Load(
      options, [&](const std::string& w) { warnings.push_back(w); });
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ((*data)->stats().games_invalid, 4);
  ASSERT_EQ((*data)->games().size(), 2u);
  for (const proto::GameRecord& g : (*data)->games()) {
    EXPECT_TRUE(g.created().starts_with("good-")) << g.created();
  }
  // Newest first: the window is filled from the end.
  ASSERT_EQ(warnings.size(), 4u);
  const std::string file = dir + "/2-bad.vrec game ";
  EXPECT_TRUE(Contains(warnings[0], file + "4 (tavlei9, created bad-3): "
                                           "ply 3: visits[0]: 4000000000 is "
                                           "out of range"));
  EXPECT_TRUE(Contains(warnings[1], file + "3 (tavlei9, created bad-2): "
                                           "ply 4: root_wdl: sums to 1.5, "
                                           "not 1"));
  EXPECT_TRUE(Contains(warnings[2], file + "2 (tavlei9, created bad-1): "
                                           "ply 1: root_wdl[2]: -5 is not a "
                                           "probability"));
  EXPECT_TRUE(Contains(warnings[3], file + "1 (tavlei9, created bad-0): "
                                           "ply 2: root_wdl[0]: nan is not a "
                                           "probability"));
}

// The window keeps the newest positions (file name order, then game order);
// the validation split is by game and stable.
TEST(DatasetTest, WindowHoldsTheNewestPositions) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::vector<proto::GameRecord> all;
  for (int f = 0; f < 3; ++f) {
    std::vector<proto::GameRecord> games = SyntheticGames(
        "tavlei9",
        {.games = 4, .max_plies = 10, .seed = 10u + f, .tag = Cat("f", f)});
    WriteRecords(Cat(dir, "/gen-", f, ".vrec"), games);
    all.insert(all.end(), games.begin(), games.end());
  }
  const int64_t n = CountTrainingPlies(all);
  ASSERT_EQ(n, 120);
  DatasetOptions options;
  options.records_dir = dir;
  options.game = "tavlei9";
  options.config.set_window_min_positions(10);
  options.config.set_window_scale(5);
  options.config.set_window_exponent(0.5);  // 5 * sqrt(120) = 54.8
  options.config.set_validation_fraction(0.5);
  absl::StatusOr<std::unique_ptr<Dataset>> data =
      Dataset::Load(options, [](const std::string& w) { FAIL() << w; });
  ASSERT_TRUE(data.ok()) << data.status();
  const Dataset& d = **data;
  EXPECT_EQ(d.stats().total_positions, 120);
  EXPECT_EQ(d.stats().window_positions, 54);
  EXPECT_EQ(d.stats().train_positions + d.stats().validation_positions, 54);
  // The newest 54 positions: the last 5 games (50) and the last 4 plies of
  // the one before.
  std::vector<std::pair<std::string, uint32_t>> want, got;
  for (int g = 6; g < 12; ++g) {
    for (int p = g == 6 ? 6 : 0; p < 10; ++p) {
      want.emplace_back(all[g].created(), p);
    }
  }
  int validation_games = 0;
  for (const proto::GameRecord& g : d.games()) {
    validation_games += IsValidationGame(g, 0.5);
  }
  EXPECT_GT(validation_games, 0);
  EXPECT_LT(validation_games, 6);
  for (const auto* refs : {&d.train(), &d.validation()}) {
    for (const PositionRef& r : *refs) {
      got.emplace_back(d.games()[r.game].created(), r.ply);
      EXPECT_EQ(refs == &d.validation(),
                IsValidationGame(d.games()[r.game], 0.5));
    }
  }
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
}

// The split holds out about the configured share of games, by their
// content, so a game stays on its side whatever else is in the directory.
TEST(DatasetTest, ValidationSplitIsStableAndNearTheFraction) {
  std::vector<proto::GameRecord> games =
      SyntheticGames("tavlei9", {.games = 400, .max_plies = 3});
  int held_out = 0;
  for (const proto::GameRecord& g : games) {
    const bool v = IsValidationGame(g, 0.2);
    held_out += v;
    EXPECT_EQ(v, IsValidationGame(proto::GameRecord(g), 0.2));
    if (v) {
      EXPECT_TRUE(IsValidationGame(g, 0.3));  // monotone in the share
    }
  }
  EXPECT_GT(held_out, 50);  // 80 expected; the binomial sd is 8
  EXPECT_LT(held_out, 110);
}

// A window whose every game falls into the validation split (four games at
// a fraction of 0.25 do one time in 256, and every restart of the loop saw
// the same split) trains on those games instead of stopping the run.
TEST(DatasetTest, AWindowWhollyInTheValidationSplitTrainsOnIt) {
  std::vector<proto::GameRecord> held_out;
  for (const proto::GameRecord& g :
       SyntheticGames("tavlei9", {.games = 40, .max_plies = 10, .seed = 5})) {
    if (IsValidationGame(g, 0.25) && held_out.size() < 3) held_out.push_back(g);
  }
  ASSERT_EQ(held_out.size(), 3u);
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  WriteRecords(dir + "/gen-0.vrec", held_out);
  DatasetOptions options;
  options.records_dir = dir;
  options.game = "tavlei9";
  options.config.set_window_min_positions(1000);
  options.config.set_validation_fraction(0.25);
  std::vector<std::string> warnings;
  absl::StatusOr<std::unique_ptr<Dataset>> data = Dataset::Load(
      options, [&](const std::string& w) { warnings.push_back(w); });
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ((*data)->stats().train_positions, CountTrainingPlies(held_out));
  EXPECT_EQ((*data)->stats().validation_positions, 0);
  EXPECT_TRUE((*data)->validation().empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("all 3 games of the window fell into the "
                             "validation split"),
            std::string::npos)
      << warnings[0];
}

// The prefetcher hands out the batches in step order, built by any thread,
// exactly as building them directly does; the sampler depends on (seed,
// step) only.
TEST(PrefetcherTest, BatchesInStepOrderAsBuiltDirectly) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  WriteRecords(dir + "/a.vrec", SyntheticGames("tavlei9", {.games = 6}));
  DatasetOptions options;
  options.records_dir = dir;
  options.game = "tavlei9";
  options.config.set_validation_fraction(0);
  absl::StatusOr<std::unique_ptr<Dataset>> data =
      Dataset::Load(options, [](const std::string& w) { FAIL() << w; });
  ASSERT_TRUE(data.ok()) << data.status();
  const Dataset* d = data->get();
  EXPECT_EQ(d->SampleBatch(3, 17, 8, true).size(), 8u);
  Prefetcher prefetcher(
      [d](int64_t step, Batch* b) {
        return d->BuildBatch(d->SampleBatch(3, step, 8, true), {}, b);
      },
      /*first_step=*/100, /*threads=*/3, /*depth=*/4);
  for (int64_t step = 100; step < 120; ++step) {
    absl::StatusOr<const Batch*> got = prefetcher.Next();
    ASSERT_TRUE(got.ok()) << got.status();
    Batch want;
    ASSERT_TRUE(
        d->BuildBatch(d->SampleBatch(3, step, 8, true), {}, &want).ok());
    EXPECT_EQ((*got)->step, step);
    ASSERT_EQ((*got)->size, 8);
    EXPECT_TRUE(std::equal(want.planes.begin(), want.planes.end(),
                           (*got)->planes.begin()));
    EXPECT_EQ(want.best_index, (*got)->best_index);
    EXPECT_EQ(want.wdl, (*got)->wdl);
  }
  EXPECT_GE(prefetcher.wait_seconds(), 0);
}

// Time the consumer spends blocked in Next() is counted as waiting.
TEST(PrefetcherTest, CountsTheWaitForASlowBuilder) {
  Prefetcher prefetcher(
      [](int64_t step, Batch* b) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        b->size = 1;
        return absl::OkStatus();
      },
      0, 1, 1);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(prefetcher.Next().ok());
  // Each batch takes 20 ms to build and the consumer does nothing else.
  EXPECT_GE(prefetcher.wait_seconds(), 0.04);
}

// ---------------------------------------------------------------------------
// Training.

TrainerOptions Options(const std::string& dir, const std::string& net,
                       const proto::TrainingConfig& config) {
  TrainerOptions o;
  o.config = config;
  o.records_dir = dir + "/records";
  o.net_in = net;
  o.threads = 1;
  o.warn = [](const std::string& w) { ADD_FAILURE() << w; };
  return o;
}

std::unique_ptr<Trainer> NewTrainer(const TrainerOptions& options) {
  absl::StatusOr<std::unique_ptr<Trainer>> t = Trainer::Create(options);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *std::move(t) : nullptr;
}

double MeanTotal(const std::vector<Losses>& l, size_t first, size_t count) {
  double sum = 0;
  for (size_t i = first; i < first + count; ++i) sum += l[i].total;
  return sum / count;
}

// On a fixed small data set (the first legal move always preferred, White
// always wins) the loss falls clearly.
TEST(TrainerTest, LossDecreasesOnAFixedDataSet) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::filesystem::create_directories(dir + "/records");
  WriteRecords(dir + "/records/a.vrec",
               SyntheticGames("tavlei9", {.games = 12, .max_plies = 20}));
  proto::TrainingConfig config = TinyConfig();
  config.set_batch_size(32);
  config.set_steps(60);
  config.set_log_interval(20);
  TrainerOptions options = Options(dir, WriteTinyNet(dir, "tavlei9"), config);
  options.log_csv = dir + "/log.csv";
  std::unique_ptr<Trainer> trainer = NewTrainer(options);
  ASSERT_NE(trainer, nullptr);
  absl::StatusOr<std::vector<Losses>> losses = trainer->Train(60);
  ASSERT_TRUE(losses.ok()) << losses.status();
  ASSERT_EQ(losses->size(), 60u);
  const double first = MeanTotal(*losses, 0, 5);
  const double last = MeanTotal(*losses, 55, 5);
  EXPECT_LT(last, 0.6 * first) << "first " << first << " last " << last;
  EXPECT_GT((*losses)[59].value_accuracy, 0.9);
  EXPECT_TRUE(trainer->done());

  // The CSV log: a header and a line every 20 steps, the last with
  // validation.
  absl::StatusOr<std::string> log = ReadWholeFile(options.log_csv);
  ASSERT_TRUE(log.ok());
  std::vector<std::string_view> lines = Split(*log, "\n", true);
  ASSERT_EQ(lines.size(), 4u) << *log;
  EXPECT_EQ(lines[0], TrainingLogHeader());
  EXPECT_TRUE(lines[3].starts_with("60,"));
  EXPECT_EQ(Split(lines[3], ",", false).size(),
            Split(lines[0], ",", false).size());
  EXPECT_FALSE(Contains(std::string(lines[3]), ",,"));    // validation present
  EXPECT_TRUE(Contains(std::string(lines[1]), ",,,,,"));  // none
  EXPECT_FALSE(Contains(std::string(lines[0]), "moves_left"));
  for (const Losses& l : *losses) EXPECT_EQ(l.moves_left, 0);
}

// Pearson's correlation of two series.
double Correlation(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    mx += x[i] / n;
    my += y[i] / n;
  }
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
}

// A net with the moves-left head learns the plies to the end on a tiny
// synthetic window (every game 40 plies of random moves: the plies left
// are 40 - ply, which the position shows through how far the pieces have
// spread): its loss falls, the CSV log has its columns, and the exported
// net's predictions follow the true plies left.
TEST(TrainerTest, MovesLeftHeadLearnsThePliesToTheEnd) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::filesystem::create_directories(dir + "/records");
  const std::vector<proto::GameRecord> games =
      SyntheticGames("tavlei9", {.games = 16, .max_plies = 40});
  WriteRecords(dir + "/records/a.vrec", games);
  proto::TrainingConfig config = TinyConfig();
  config.set_batch_size(32);
  config.set_steps(150);
  config.set_log_interval(50);
  config.set_validation_fraction(0);
  TrainerOptions options = Options(
      dir, WriteTinyNet(dir, "tavlei9", 0, /*moves_left_filters=*/4), config);
  options.log_csv = dir + "/log.csv";
  std::unique_ptr<Trainer> trainer = NewTrainer(options);
  ASSERT_NE(trainer, nullptr);
  absl::StatusOr<std::vector<Losses>> losses = trainer->Train(150);
  ASSERT_TRUE(losses.ok()) << losses.status();
  ASSERT_EQ(losses->size(), 150u);
  double first = 0, last = 0;
  for (int i = 0; i < 10; ++i) {
    first += (*losses)[i].moves_left / 10;
    last += (*losses)[140 + i].moves_left / 10;
  }
  EXPECT_GT(first, 0);
  EXPECT_LT(last, 0.5 * first) << "first " << first << " last " << last;

  absl::StatusOr<std::string> log = ReadWholeFile(options.log_csv);
  ASSERT_TRUE(log.ok());
  std::vector<std::string_view> lines = Split(*log, "\n", true);
  ASSERT_EQ(lines.size(), 4u) << *log;
  EXPECT_EQ(lines[0], TrainingLogHeader(/*moves_left=*/true));
  EXPECT_TRUE(Contains(std::string(lines[0]),
                       "val_value_accuracy,train_moves_left_loss,"
                       "val_moves_left_loss,window_positions"));
  const std::vector<std::string_view> cells = Split(lines[3], ",", false);
  ASSERT_EQ(cells.size(), Split(lines[0], ",", false).size());
  EXPECT_FALSE(cells[12].empty());  // train_moves_left_loss

  // The exported net against the true plies left of every position.
  ASSERT_TRUE(trainer->Export(dir + "/out.net").ok());
  absl::StatusOr<nn::NetworkWeights> w =
      nn::ReadNetworkWeights(dir + "/out.net");
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(nn::HasMovesLeftHead(w->architecture()));
  nn::TorchBackendOptions backend_options;
  backend_options.threads = 1;
  absl::StatusOr<std::unique_ptr<nn::Backend>> backend =
      nn::MakeTorchBackend(*w, backend_options);
  ASSERT_TRUE(backend.ok()) << backend.status();
  std::unique_ptr<Game> game = NewGame("tavlei9");
  std::unique_ptr<Encoder> encoder = EncoderFor(*game);
  std::vector<double> predicted, truth;
  for (const proto::GameRecord& record : games) {
    std::unique_ptr<GameState> state = game->NewInitialState();
    for (int ply = 0; ply < record.plies_size(); ++ply) {
      std::vector<float> input(encoder->Shape().Size());
      encoder->Encode(*state, input.data());
      std::vector<float> policy(encoder->PolicySize());
      float wdl[3], moves_left = -1;
      (*backend)->Compute(1, input.data(), policy.data(), wdl, &moves_left);
      ASSERT_GE(moves_left, 0);
      predicted.push_back(moves_left);
      truth.push_back(record.plies_size() - ply);
      state->Play(UnpackMove(record.plies(ply).move()));
    }
  }
  const double r = Correlation(predicted, truth);
  std::printf(
      "moves-left loss %.4f -> %.4f; correlation with the plies "
      "left %.3f over %zu positions\n",
      first, last, r, truth.size());
  EXPECT_GT(r, 0.7);
}

// Issue 22, item 5: a net whose outputs overflow gives a non-finite loss:
// the trainer refuses it before the optimiser step, names the batch's
// records, and the checkpoint on disk stays the last finite one.
TEST(TrainerTest, ANonFiniteLossIsRefusedAndNothingIsSaved) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::filesystem::create_directories(dir + "/records");
  WriteRecords(dir + "/records/a.vrec",
               SyntheticGames("tavlei9", {.games = 6, .max_plies = 20}));
  // Finite weights so large that the value logits overflow.
  absl::StatusOr<nn::NetworkWeights> net =
      nn::ReadNetworkWeights(WriteTinyNet(dir, "tavlei9"));
  ASSERT_TRUE(net.ok()) << net.status();
  int scaled = 0;
  for (nn::TensorData& t : net->tensors) {
    if (t.name == "value.fc1.weight") {
      for (float& x : t.values) x *= 1e20f;
      ++scaled;
    }
    if (t.name == "value.fc2.weight") {  // [3][hidden]: +W, 0, -L
      const size_t hidden = t.values.size() / 3;
      for (size_t i = 0; i < t.values.size(); ++i) {
        t.values[i] = i < hidden ? 3e38f : i < 2 * hidden ? 0.0f : -3e38f;
      }
      ++scaled;
    }
  }
  ASSERT_EQ(scaled, 2);
  const std::string huge = dir + "/huge.net";
  ASSERT_TRUE(nn::WriteNetworkWeights(*net, huge).ok());
  TrainerOptions options = Options(dir, huge, TinyConfig());
  options.checkpoint = dir + "/train.ckpt";
  options.log_csv = dir + "/log.csv";
  std::unique_ptr<Trainer> trainer = NewTrainer(options);
  ASSERT_NE(trainer, nullptr);
  // A new call checkpoints its start.
  absl::StatusOr<std::string> before = ReadWholeFile(options.checkpoint);
  ASSERT_TRUE(before.ok()) << before.status();
  absl::StatusOr<std::vector<Losses>> losses = trainer->Train(6);
  ASSERT_FALSE(losses.ok());
  const std::string message(losses.status().message());
  EXPECT_TRUE(Contains(message, "training step 1: the loss is not finite"));
  EXPECT_TRUE(Contains(
      message, "the batch came from " + dir + "/records: a.vrec game "));
  EXPECT_TRUE(Contains(message, " ply "));
  trainer.reset();
  absl::StatusOr<std::string> after = ReadWholeFile(options.checkpoint);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, *before);
}

// Issue 22, items 5 and 9: a bad record file is skipped with a warning, and
// once it is removed the interrupted call resumes (it read that file); a
// call killed before its first interval checkpoint resumes from the one
// of its start and writes no log line twice.
TEST(TrainerTest, ResumesAfterABadFileIsRemovedWithoutDuplicateLogLines) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::filesystem::create_directories(dir + "/records");
  WriteRecords(dir + "/records/a.vrec",
               SyntheticGames("tavlei9", {.games = 6, .max_plies = 20}));
  std::vector<proto::GameRecord> bad = SyntheticGames(
      "tavlei9", {.games = 2, .max_plies = 20, .seed = 9, .tag = "bad"});
  for (proto::GameRecord& g : bad) {
    for (proto::PlyRecord& p : *g.mutable_plies()) {
      for (float x : {0.2f, 0.3f, 0.5f}) p.add_root_wdl(x);
    }
  }
  bad[0].mutable_plies(1)->set_root_wdl(0, std::nanf(""));
  bad[1].mutable_plies(0)->set_root_wdl(0, -5);
  WriteRecords(dir + "/records/b.vrec", bad);
  proto::TrainingConfig config = TinyConfig();
  config.set_search_value_weight(0.5f);  // the root WDL is a target
  config.set_checkpoint_interval(4);
  config.set_validation_fraction(0);
  const std::string net = WriteTinyNet(dir, "tavlei9");
  TrainerOptions options = Options(dir, net, config);
  options.checkpoint = dir + "/train.ckpt";
  options.log_csv = dir + "/log.csv";
  std::vector<std::string> warnings;
  options.warn = [&](const std::string& w) { warnings.push_back(w); };
  std::unique_ptr<Trainer> trainer = NewTrainer(options);
  ASSERT_NE(trainer, nullptr);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_TRUE(Contains(warnings[1],
                       "b.vrec game 1 (tavlei9, created bad-0): "
                       "ply 2: root_wdl[0]: nan is not a "
                       "probability"));
  EXPECT_TRUE(Contains(warnings[0],
                       "b.vrec game 2 (tavlei9, created bad-1): "
                       "ply 1: root_wdl[0]: -5 is not a "
                       "probability"));
  absl::StatusOr<std::vector<Losses>> first = trainer->Train(2);
  ASSERT_TRUE(first.ok()) << first.status();
  for (const Losses& l : *first) EXPECT_TRUE(std::isfinite(l.total));
  trainer.reset();  // killed after two logged steps, before step 4's checkpoint

  std::filesystem::remove(dir + "/records/b.vrec");
  warnings.clear();
  trainer = NewTrainer(options);
  ASSERT_NE(trainer, nullptr);
  EXPECT_TRUE(trainer->resumed());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(Contains(warnings[0], "now gone; continuing without it"));
  absl::StatusOr<std::vector<Losses>> rest = trainer->Train(100);
  ASSERT_TRUE(rest.ok()) << rest.status();
  EXPECT_EQ(rest->size(), 6u);  // from the start's checkpoint
  EXPECT_TRUE(trainer->done());
  ASSERT_TRUE(trainer->Export(dir + "/out.net").ok());
  EXPECT_TRUE(nn::ReadNetworkWeights(dir + "/out.net").ok());

  absl::StatusOr<std::string> log = ReadWholeFile(options.log_csv);
  ASSERT_TRUE(log.ok());
  std::vector<std::string_view> lines = Split(*log, "\n", true);
  ASSERT_EQ(lines.size(), 7u) << *log;
  for (int step = 1; step <= 6; ++step) {
    EXPECT_TRUE(lines[step].starts_with(Cat(step, ","))) << *log;
  }
}

// Training with a checkpoint, "killing" the trainer (destroying it after a
// step that no checkpoint saved) and resuming gives the same losses as an
// uninterrupted run, the same CSV lines and the same net.
// Parameters: the optimiser, and whether the net has the moves-left head.
class ResumeTest : public ::testing::TestWithParam<
                       std::tuple<proto::TrainingConfig::Optimizer, bool>> {};

TEST_P(ResumeTest, ResumeReproducesTheUninterruptedRun) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::filesystem::create_directories(dir + "/records");
  WriteRecords(dir + "/records/a.vrec",
               SyntheticGames("tavreli", {.games = 6, .max_plies = 30}));
  const auto [optimizer, moves_left_head] = GetParam();
  const std::string net =
      WriteTinyNet(dir, "tavreli", 0, moves_left_head ? 4 : 0);
  proto::TrainingConfig config = TinyConfig();
  config.set_optimizer(optimizer);
  if (optimizer == proto::TrainingConfig::ADAMW) {
    config.set_learning_rate(0.003f);
    config.set_weight_decay(0.01f);
  }
  config.set_warmup_steps(3);  // a varying learning rate

  // Uninterrupted.
  TrainerOptions straight = Options(dir, net, config);
  straight.checkpoint = dir + "/straight.ckpt";
  straight.log_csv = dir + "/straight.csv";
  std::unique_ptr<Trainer> a = NewTrainer(straight);
  ASSERT_NE(a, nullptr);
  absl::StatusOr<std::vector<Losses>> all = a->Train(6);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 6u);
  ASSERT_TRUE(a->Export(dir + "/straight.net").ok());
  a.reset();

  // Interrupted after step 5; the last checkpoint is at step 4.
  TrainerOptions interrupted = Options(dir, net, config);
  interrupted.checkpoint = dir + "/resumed.ckpt";
  interrupted.log_csv = dir + "/resumed.csv";
  std::unique_ptr<Trainer> b = NewTrainer(interrupted);
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->resumed());
  absl::StatusOr<std::vector<Losses>> before = b->Train(5);
  ASSERT_TRUE(before.ok()) << before.status();
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ((*before)[i].total, (*all)[i].total) << "step " << i;
    EXPECT_EQ((*before)[i].moves_left, (*all)[i].moves_left) << "step " << i;
    EXPECT_EQ((*all)[i].moves_left > 0, moves_left_head) << "step " << i;
  }
  b.reset();  // killed: step 5 is lost

  // The records directory grows meanwhile: the resumed call must not see
  // the new file.
  WriteRecords(
      dir + "/records/b.vrec",
      SyntheticGames("tavreli", {.games = 2, .seed = 9, .tag = "new"}));
  interrupted.config.set_batch_size(7);  // ignored: the call's config wins
  std::vector<std::string> notes;
  interrupted.warn = [&](const std::string& w) { notes.push_back(w); };
  std::unique_ptr<Trainer> c = NewTrainer(interrupted);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->resumed());
  EXPECT_EQ(notes.size(), 1u);  // the note about the configuration
  EXPECT_EQ(c->step(), 4);
  EXPECT_EQ(c->config().batch_size(), 16);
  absl::StatusOr<std::vector<Losses>> after = c->Train(100);
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_EQ(after->size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR((*after)[i].policy, (*all)[4 + i].policy, 1e-6);
    EXPECT_NEAR((*after)[i].value, (*all)[4 + i].value, 1e-6);
    EXPECT_NEAR((*after)[i].total, (*all)[4 + i].total, 1e-6);
    EXPECT_NEAR((*after)[i].moves_left, (*all)[4 + i].moves_left, 1e-6);
  }
  ASSERT_TRUE(c->Export(dir + "/resumed.net").ok());

  // The same net.
  absl::StatusOr<nn::NetworkWeights> w1 =
      nn::ReadNetworkWeights(dir + "/straight.net");
  absl::StatusOr<nn::NetworkWeights> w2 =
      nn::ReadNetworkWeights(dir + "/resumed.net");
  ASSERT_TRUE(w1.ok() && w2.ok());
  ASSERT_EQ(w1->tensors.size(), w2->tensors.size());
  for (size_t i = 0; i < w1->tensors.size(); ++i) {
    const std::vector<float>& x = w1->tensors[i].values;
    const std::vector<float>& y = w2->tensors[i].values;
    ASSERT_EQ(x.size(), y.size());
    for (size_t k = 0; k < x.size(); ++k) {
      ASSERT_NEAR(x[k], y[k], 1e-5) << w1->tensors[i].name << "[" << k << "]";
    }
  }

  // The same CSV lines (the timing columns aside), none twice.
  auto losses_columns = [](const std::string& path) {
    absl::StatusOr<std::string> text = ReadWholeFile(path);
    EXPECT_TRUE(text.ok());
    std::vector<std::string> out;
    for (std::string_view line : Split(*text, "\n", true)) {
      std::vector<std::string_view> cells = Split(line, ",", false);
      cells.resize(cells.size() - 2);
      std::string joined;
      for (std::string_view c : cells) Append(&joined, c, ",");
      out.push_back(joined);
    }
    return out;
  };
  const std::vector<std::string> want = losses_columns(straight.log_csv);
  const std::vector<std::string> got = losses_columns(interrupted.log_csv);
  EXPECT_EQ(want.size(), 7u);
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    // Loss values agree to the 6 printed digits.
    std::vector<std::string_view> x = Split(want[i], ",", false);
    std::vector<std::string_view> y = Split(got[i], ",", false);
    ASSERT_EQ(x.size(), y.size());
    EXPECT_EQ(x[0], y[0]);
    for (size_t k = 1; k < x.size(); ++k) {
      if (x[k].empty() || i == 0) {
        EXPECT_EQ(x[k], y[k]);
        continue;
      }
      EXPECT_NEAR(std::stod(std::string(x[k])), std::stod(std::string(y[k])),
                  1e-5)
          << "line " << i << " column " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Optimizers, ResumeTest,
    ::testing::Combine(::testing::Values(proto::TrainingConfig::SGD,
                                         proto::TrainingConfig::ADAMW),
                       ::testing::Bool()),
    [](const ::testing::TestParamInfo<ResumeTest::ParamType>& info) {
      return std::string(std::get<0>(info.param) == proto::TrainingConfig::SGD
                             ? "SGD"
                             : "ADAMW") +
             (std::get<1>(info.param) ? "_MovesLeftHead" : "");
    });

// The exported net reads back, fits the game, loads into the LibTorch
// backend and evaluates; its provenance says where it came from. A second
// call for the same generation finds the checkpoint finished and exports
// again without training; a call for the next generation continues.
TEST(TrainerTest, ExportedNetLoadsAndEvaluates) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::filesystem::create_directories(dir + "/records");
  WriteRecords(dir + "/records/a.vrec",
               SyntheticGames("tavlei11", {.games = 4, .max_plies = 20}));
  const std::string net = WriteTinyNet(dir, "tavlei11", /*generation=*/3);
  proto::TrainingConfig config = TinyConfig();
  config.set_steps(4);
  TrainerOptions options = Options(dir, net, config);
  options.checkpoint = dir + "/train.ckpt";
  std::unique_ptr<Trainer> trainer = NewTrainer(options);
  ASSERT_NE(trainer, nullptr);
  const std::string out = dir + "/gen4.net";
  absl::StatusOr<TrainSummary> summary = trainer->Run(out);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->steps_run, 4);
  EXPECT_EQ(summary->positions_trained, 64);
  EXPECT_EQ(summary->generation, 4);
  EXPECT_GE(summary->load_wait_share, 0);
  EXPECT_LE(summary->load_wait_share, 1);
  trainer.reset();

  absl::StatusOr<nn::NetworkWeights> weights = nn::ReadNetworkWeights(out);
  ASSERT_TRUE(weights.ok()) << weights.status();
  const proto::Provenance& p = weights->header.provenance();
  EXPECT_EQ(p.generation(), 4);
  EXPECT_EQ(p.training_steps(), 4);
  EXPECT_EQ(p.training_positions(), 64);
  EXPECT_EQ(p.parent_net(), net);
  EXPECT_FALSE(p.created().empty());
  std::unique_ptr<Game> game = NewGame("tavlei11");
  std::unique_ptr<Encoder> encoder = EncoderFor(*game);
  ASSERT_TRUE(nn::CheckNetworkFits(*weights, "tavlei11", *encoder).ok());
  absl::StatusOr<nn::NetworkWeights> parent = nn::ReadNetworkWeights(net);
  ASSERT_TRUE(parent.ok());
  EXPECT_NE(parent->tensors[0].values, weights->tensors[0].values);

  nn::TorchBackendOptions backend_options;
  backend_options.threads = 1;
  absl::StatusOr<std::unique_ptr<nn::Backend>> backend =
      nn::MakeTorchBackend(*weights, backend_options);
  ASSERT_TRUE(backend.ok()) << backend.status();
  std::unique_ptr<GameState> state = game->NewInitialState();
  std::vector<float> input(encoder->Shape().Size());
  encoder->Encode(*state, input.data());
  std::vector<float> policy(encoder->PolicySize()), wdl(3);
  (*backend)->Compute(1, input.data(), policy.data(), wdl.data(), nullptr);
  for (float v : policy) ASSERT_TRUE(std::isfinite(v));
  EXPECT_NEAR(wdl[0] + wdl[1] + wdl[2], 1.0f, 1e-5);

  // Again for generation 4: nothing to train, the same weights.
  trainer = NewTrainer(options);
  ASSERT_NE(trainer, nullptr);
  EXPECT_TRUE(trainer->done());
  absl::StatusOr<TrainSummary> again = trainer->Run(dir + "/again.net");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->steps_run, 0);
  absl::StatusOr<nn::NetworkWeights> same =
      nn::ReadNetworkWeights(dir + "/again.net");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->tensors[0].values, weights->tensors[0].values);
  trainer.reset();

  // Generation 5 from generation 4: 4 more steps from the checkpoint.
  options.net_in = out;
  trainer = NewTrainer(options);
  ASSERT_NE(trainer, nullptr);
  EXPECT_EQ(trainer->step(), 4);
  EXPECT_EQ(trainer->target_step(), 8);
  EXPECT_EQ(trainer->generation(), 5);
  absl::StatusOr<TrainSummary> next = trainer->Run(dir + "/gen5.net");
  ASSERT_TRUE(next.ok()) << next.status();
  absl::StatusOr<nn::NetworkWeights> gen5 =
      nn::ReadNetworkWeights(dir + "/gen5.net");
  ASSERT_TRUE(gen5.ok());
  EXPECT_EQ(gen5->header.provenance().training_steps(), 8);
  EXPECT_EQ(gen5->header.provenance().training_positions(), 128);
  EXPECT_EQ(gen5->header.provenance().parent_net(), out);
}

// Trains `steps` steps of a fresh call on `device` with `precision`,
// checkpointing every 2 steps, and returns the losses; the trainer is then
// destroyed as if killed.
std::vector<Losses> TrainAndStop(
    TrainerOptions options, const std::string& device,
    proto::TrainingConfig::MixedPrecision precision, int steps) {
  options.device = device;
  options.config.set_mixed_precision(precision);
  std::unique_ptr<Trainer> trainer = NewTrainer(options);
  EXPECT_NE(trainer, nullptr);
  if (trainer == nullptr) return {};
  absl::StatusOr<std::vector<Losses>> losses = trainer->Train(steps);
  EXPECT_TRUE(losses.ok()) << losses.status();
  return losses.ok() ? *losses : std::vector<Losses>{};
}

// Resumes options.checkpoint on `device` with `precision`, finishes the
// call and exports; checks the net reads back as float32 and evaluates.
void ResumeAndFinish(TrainerOptions options, const std::string& device,
                     proto::TrainingConfig::MixedPrecision precision,
                     int64_t expected_step, const std::string& out) {
  options.device = device;
  options.config.set_mixed_precision(precision);
  std::unique_ptr<Trainer> trainer = NewTrainer(options);
  ASSERT_NE(trainer, nullptr);
  EXPECT_TRUE(trainer->resumed());
  EXPECT_EQ(trainer->step(), expected_step);
  EXPECT_EQ(trainer->config().mixed_precision(), precision);
  absl::StatusOr<TrainSummary> summary = trainer->Run(out);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->step, options.config.steps());
  EXPECT_TRUE(std::isfinite(summary->last_train.total));
  absl::StatusOr<nn::NetworkWeights> w = nn::ReadNetworkWeights(out);
  ASSERT_TRUE(w.ok()) << w.status();
  for (const nn::TensorData& t : w->tensors) {
    for (float v : t.values) ASSERT_TRUE(std::isfinite(v)) << t.name;
  }
}

// Mixed precision changes how a step computes, not what a checkpoint
// holds: a call written with BF16 resumes with OFF and the other way, the
// resumed call computing as told now (no note about the configuration:
// Options() fails the test on any). Its first step's losses are close to
// float32's. Where this LibTorch cannot train in bf16 on the CPU the
// option is refused with one line, and the test checks that line instead.
TEST(TrainerTest, MixedPrecisionCheckpointsResumeWithoutIt) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::filesystem::create_directories(dir + "/records");
  WriteRecords(dir + "/records/a.vrec",
               SyntheticGames("tavlei9", {.games = 6, .max_plies = 30}));
  const std::string net = WriteTinyNet(dir, "tavlei9");
  proto::TrainingConfig config = TinyConfig();
  TrainerOptions options = Options(dir, net, config);
  options.config.set_mixed_precision(proto::TrainingConfig::BF16);
  absl::StatusOr<std::unique_ptr<Trainer>> probe = Trainer::Create(options);
  if (!probe.ok()) {
    EXPECT_EQ(probe.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_TRUE(Contains(std::string(probe.status().message()),
                         "training.mixed_precision BF16 on device cpu"));
    GTEST_SKIP() << probe.status().message();
  }
  probe->reset();

  const std::vector<Losses> fp32 =
      TrainAndStop(options, "cpu", proto::TrainingConfig::OFF, 1);
  options.checkpoint = dir + "/bf16.ckpt";
  const std::vector<Losses> bf16 =
      TrainAndStop(options, "cpu", proto::TrainingConfig::BF16, 3);
  ASSERT_EQ(fp32.size(), 1u);
  ASSERT_EQ(bf16.size(), 3u);
  EXPECT_NEAR(bf16[0].policy, fp32[0].policy, 0.02 * fp32[0].policy);
  EXPECT_NEAR(bf16[0].value, fp32[0].value, 0.02 * fp32[0].value);
  // ... but not equal: autocast did compute in bf16.
  EXPECT_NE(bf16[0].policy, fp32[0].policy);
  std::cout << "first step policy/value loss: bf16 " << bf16[0].policy << " / "
            << bf16[0].value << ", fp32 " << fp32[0].policy << " / "
            << fp32[0].value << "\n";
  // Killed after step 3: the checkpoint of step 2 resumes in float32.
  ResumeAndFinish(options, "cpu", proto::TrainingConfig::OFF, 2,
                  dir + "/from-bf16.net");

  options.checkpoint = dir + "/fp32.ckpt";
  TrainAndStop(options, "cpu", proto::TrainingConfig::OFF, 5);
  ResumeAndFinish(options, "cpu", proto::TrainingConfig::BF16, 4,
                  dir + "/from-fp32.net");
}

// A checkpoint written on the GPU (in bf16) resumes on the CPU (float32)
// and one written on the CPU resumes on the GPU.
TEST(TrainerTest, GpuCheckpointsResumeOnTheCpuAndBack) {
  if (!nn::TorchCudaAvailable()) GTEST_SKIP() << "no CUDA device";
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::filesystem::create_directories(dir + "/records");
  WriteRecords(dir + "/records/a.vrec",
               SyntheticGames("tavreli", {.games = 6, .max_plies = 30}));
  TrainerOptions options =
      Options(dir, WriteTinyNet(dir, "tavreli"), TinyConfig());
  options.checkpoint = dir + "/gpu.ckpt";
  const std::vector<Losses> gpu =
      TrainAndStop(options, "cuda", proto::TrainingConfig::BF16, 3);
  ASSERT_EQ(gpu.size(), 3u);
  ResumeAndFinish(options, "cpu", proto::TrainingConfig::OFF, 2,
                  dir + "/gpu-then-cpu.net");

  options.checkpoint = dir + "/cpu.ckpt";
  TrainAndStop(options, "cpu", proto::TrainingConfig::OFF, 3);
  ResumeAndFinish(options, "cuda", proto::TrainingConfig::BF16, 2,
                  dir + "/cpu-then-gpu.net");
}

TEST(TrainerTest, RejectsMismatchedInputs) {
  const ScopedTempDir test_dir;
  const std::string& dir = test_dir.path();
  std::filesystem::create_directories(dir + "/records");
  // Records of another game only: no training positions.
  WriteRecords(dir + "/records/a.vrec",
               SyntheticGames("tavlei9", {.games = 2, .max_plies = 6}));
  TrainerOptions options =
      Options(dir, WriteTinyNet(dir, "tavreli"), TinyConfig());
  options.warn = [](const std::string&) {};
  absl::StatusOr<std::unique_ptr<Trainer>> t = Trainer::Create(options);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(
      Contains(std::string(t.status().message()), "no training positions"));
  options.device = "tpu";
  t = Trainer::Create(options);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(Contains(std::string(t.status().message()), "device"));
}

}  // namespace
}  // namespace volkhv::training
