// Self-play: forced playouts and policy target pruning in the search, the
// self-play config, and self-play runs (random evaluator and a tiny
// random-initialised net) whose records replay legally, whose visit
// distributions add up, whose results are the rules' verdict, with
// resignation, playthrough, maximum length, stopping and several writers
// sharing a directory.
#include "selfplay/selfplay.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/game/encoder.h"
#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "engine/search/search.h"
#include "engine/search/search_params.h"
#include "engine/tavreli/module.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "nn/batching_evaluator.h"
#include "nn/evaluator.h"
#include "nn/torch_backend.h"
#include "nn/torch_weights.h"
#include "nn/weights_file.h"
#include "selfplay/selfplay_config.h"
#include "tests/fake_evaluator.h"
#include "tests/game_fixtures.h"
#include "tests/test_toolkit.h"

namespace volkhv::selfplay {
namespace {

using search::Search;
using search::SearchLimits;
using search::SearchParams;
using ::volkhv::testing::FakeEvaluator;
using ::volkhv::testing::FirstMovePrior;
using ::volkhv::testing::FreshPath;
using ::volkhv::testing::LostFor;
using ::volkhv::testing::ProverOf;
using ::volkhv::testing::StateOf;
using ::volkhv::testing::ValueFromHash;

std::unique_ptr<Game> GameNamed(std::string_view name) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(name);
  EXPECT_TRUE(game.ok()) << game.status();
  return *std::move(game);
}

// PUCT's exploration factor at the root, as the search computes it.
double RootPuctMultiplier(const SearchParams& p, uint32_t root_visits,
                          uint64_t child_visits) {
  const double cpuct =
      p.cpuct_init +
      p.cpuct_factor * std::log((root_visits + p.cpuct_base) / p.cpuct_base);
  return cpuct *
         std::sqrt(static_cast<double>(std::max<uint64_t>(child_visits, 1)));
}

// ---------------------------------------------------------------------------
// Forced playouts and policy target pruning (engine/search).

TEST(ForcedPlayoutsTest, ParameterIsInTheTableAndOffByDefault) {
  const SearchParams defaults;
  EXPECT_EQ(defaults.forced_playouts_k, 0);
  SearchParams params;
  EXPECT_TRUE(search::SetSearchParam(&params, "forced_playouts_k", "2").ok());
  EXPECT_EQ(params.forced_playouts_k, 2);
  EXPECT_FALSE(search::SetSearchParam(&params, "forced_playouts_k", "-1").ok());
  EXPECT_EQ(*search::GetSearchParam(params, "forced_playouts_k"), "2");
}

// A search where one move has most of the prior and the others get few
// visits on their own; returns the root's children as (prior, visits).
struct RootChild {
  Move move;
  float prior = 0;
  uint32_t visits = 0;
  double q = 0;
  bool proven = false;
};
std::vector<RootChild> SearchedRoot(Search& search) {
  std::vector<RootChild> children;
  const int side = search.root()->side_to_move;
  const search::Node* root = search.root();
  search::ChildWalk walk(*root);
  for (int i = 0; i < root->num_edges; ++i) {
    const search::Edge& edge = root->edges[i];
    RootChild c;
    c.move = edge.move;
    c.prior = edge.prior;
    if (const search::Node* child = walk.At(i); child != nullptr) {
      c.visits = child->n;
      c.q = child->n > 0 ? child->WlFor(side) : 0;
      c.proven = child->proven() != search::Proven::kNone;
    }
    children.push_back(c);
  }
  return children;
}

TEST(ForcedPlayoutsTest, VisitedRootChildrenGetSqrtKPriorTotalVisits) {
  auto state = StateOf("tavreli");
  FakeEvaluator evaluator(FirstMovePrior(0.6f), ValueFromHash(0.8f));
  constexpr uint32_t kVisits = 3000;
  constexpr double kK = 2;
  auto run = [&](double k) {
    SearchParams params;
    params.minibatch_size = 1;
    params.forced_playouts_k = k;
    auto search =
        std::make_unique<Search>(params, &evaluator, ProverOf(*state), 7);
    EXPECT_TRUE(search->SetPosition(*state).ok());
    SearchLimits limits;
    limits.visits = kVisits;
    EXPECT_EQ(search->Run(limits).root_visits, kVisits);
    return search;
  };
  std::unique_ptr<Search> forced = run(kK);
  std::unique_ptr<Search> plain = run(0);
  const std::vector<RootChild> with = SearchedRoot(*forced);
  const std::vector<RootChild> without = SearchedRoot(*plain);
  ASSERT_EQ(with.size(), without.size());
  uint64_t total = 0;
  for (const RootChild& c : with) total += c.visits;
  ASSERT_EQ(total, kVisits - 1);
  int below_without = 0;
  int checked = 0;
  for (size_t i = 0; i < with.size(); ++i) {
    const double share = std::sqrt(kK * with[i].prior * total);
    if (with[i].visits > 0 && !with[i].proven) {
      // The share grows with every playout while one child at a time is
      // topped up: each visited child ends at most one visit short.
      EXPECT_GE(with[i].visits + 1.0, std::floor(share))
          << "child " << i << " prior " << with[i].prior;
      ++checked;
    }
    const double plain_share =
        std::sqrt(kK * without[i].prior * static_cast<double>(total));
    if (without[i].visits > 0 && without[i].visits + 1.0 < plain_share) {
      ++below_without;
    }
  }
  EXPECT_GT(checked, 5);
  // Without forcing, children the values disfavour stay below that share:
  // the forcing made the difference.
  EXPECT_GT(below_without, 0);
}

TEST(PolicyTargetPruningTest, KeepsTheBestMoveAndNeverIncreasesACount) {
  for (std::string_view game : {"tavreli", "tavlei9"}) {
    SCOPED_TRACE(game);
    auto state = StateOf(game);
    FakeEvaluator evaluator(FirstMovePrior(0.5f), ValueFromHash(0.8f));
    SearchParams params;
    params.forced_playouts_k = 2;
    params.root_noise = true;
    params.minibatch_size = 4;
    Search search(params, &evaluator, ProverOf(*state), 3);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    SearchLimits limits;
    limits.visits = 2000;
    const search::SearchResult result = search.Run(limits);
    const auto raw = search.RootVisits();
    const auto pruned = search.PrunedRootVisits();
    const std::vector<RootChild> children = SearchedRoot(search);
    ASSERT_EQ(raw.size(), pruned.size());
    uint64_t total = 0, pruned_total = 0;
    size_t best = 0;
    for (size_t i = 0; i < raw.size(); ++i) {
      total += raw[i].second;
      pruned_total += pruned[i].second;
      if (raw[i].second > raw[best].second) best = i;
    }
    ASSERT_EQ(total, result.root_visits - 1);
    EXPECT_EQ(pruned[best].second, raw[best].second);
    EXPECT_LT(pruned_total, total);  // something was pruned
    const double mult = RootPuctMultiplier(params, result.root_visits, total);
    const double bar =
        children[best].q + mult * children[best].prior / (1 + raw[best].second);
    int reduced = 0;
    for (size_t i = 0; i < raw.size(); ++i) {
      ASSERT_EQ(pruned[i].first, raw[i].first);
      EXPECT_LE(pruned[i].second, raw[i].second);
      if (i == best) continue;
      EXPECT_NE(pruned[i].second, 1u) << "single visits are dropped";
      if (pruned[i].second == raw[i].second || raw[i].second == 0) continue;
      ++reduced;
      // Never more than the forced playouts are taken away (before the
      // single-visit drop).
      const double forced = std::floor(
          std::sqrt(params.forced_playouts_k * children[i].prior * total));
      if (pruned[i].second > 0) {
        EXPECT_GE(pruned[i].second + forced, raw[i].second);
        // What is left keeps the child's PUCT value below the best's, and
        // one visit fewer would not (unless the forced cap stopped it).
        const uint32_t m = pruned[i].second;
        EXPECT_LT(children[i].q + mult * children[i].prior / (1 + m), bar);
        if (m + forced > raw[i].second) {
          EXPECT_GE(children[i].q + mult * children[i].prior / m, bar);
        }
      } else {
        EXPECT_LE(raw[i].second, forced + 1);
      }
    }
    EXPECT_GT(reduced, 0);
    // The pruned distribution can be sampled: only moves it keeps.
    std::set<uint32_t> kept;
    for (const auto& [move, count] : pruned) {
      if (count > 0) kept.insert(move.Packed());
    }
    for (int draw = 0; draw < 200; ++draw) {
      const Move m = search.SampleMoveFrom(pruned, 1.0);
      EXPECT_TRUE(kept.count(m.Packed())) << draw;
    }
    EXPECT_EQ(search.SampleMoveFrom(pruned, 0.0), search.BestMove());
  }
}

TEST(PolicyTargetPruningTest, AProvenWinKeepsItsVisits) {
  // Rh1-h8 mates: the search proves the win and stops.
  auto state = StateOf("tavreli", "k7/8/1K6/8/8/8/8/7R w - - 0 1");
  const Move mate = *state->ParseMove("h1-h8");
  nn::UniformEvaluator evaluator;
  SearchParams params;
  params.forced_playouts_k = 2;
  Search search(params, &evaluator, ProverOf(*state), 5);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  SearchLimits limits;
  limits.visits = 400;
  const search::SearchResult result = search.Run(limits);
  ASSERT_EQ(result.root_proven, search::Proven::kWin);
  ASSERT_EQ(result.best_move, mate);
  const auto raw = search.RootVisits();
  const auto pruned = search.PrunedRootVisits();
  for (size_t i = 0; i < raw.size(); ++i) {
    EXPECT_LE(pruned[i].second, raw[i].second);
    if (raw[i].first == mate) {
      EXPECT_GT(raw[i].second, 0u);
      EXPECT_EQ(pruned[i].second, raw[i].second);
    }
  }
  EXPECT_EQ(search.SampleMoveFrom(pruned, 1.0), mate);
}

TEST(PolicyTargetPruningTest, WithoutForcedPlayoutsTheVisitsAreUnchanged) {
  auto state = StateOf("tavreli");
  nn::UniformEvaluator evaluator;
  Search search(SearchParams(), &evaluator, ProverOf(*state), 5);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  SearchLimits limits;
  limits.visits = 500;
  search.Run(limits);
  EXPECT_EQ(search.PrunedRootVisits(), search.RootVisits());
}

// ---------------------------------------------------------------------------
// The config.

TEST(SelfplayConfigTest, DefaultsAreValidAndSubsetsParse) {
  const proto::SelfplayConfig defaults;
  EXPECT_TRUE(ValidateSelfplayConfig(defaults).ok());
  EXPECT_EQ(defaults.forced_playouts_k(), 2);
  EXPECT_TRUE(defaults.policy_target_pruning());
  absl::StatusOr<proto::SelfplayConfig> config = ParseSelfplayConfig(
      "visits: 400  # comment\ncheap_visits: 50\n"
      "search_params { name: 'cpuct_init' value: '2.5' }\n",
      "test");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->visits(), 400);
  EXPECT_EQ(config->cheap_visits(), 50);
  EXPECT_EQ(config->games(), defaults.games());
  absl::StatusOr<SearchParams> full = SelfplaySearchParams(*config, true);
  absl::StatusOr<SearchParams> cheap = SelfplaySearchParams(*config, false);
  ASSERT_TRUE(full.ok() && cheap.ok());
  EXPECT_EQ(full->cpuct_init, 2.5);
  EXPECT_TRUE(full->root_noise);
  EXPECT_EQ(full->forced_playouts_k, 2);
  EXPECT_FALSE(cheap->root_noise);
  EXPECT_EQ(cheap->forced_playouts_k, 0);
  EXPECT_EQ(cheap->minibatch_size, config->minibatch());
}

TEST(SelfplayConfigTest, LeafQuiescenceIsOffUnlessTheConfigSetsIt) {
  EXPECT_GT(SearchParams().leaf_quiescence_weight, 0) << "play's default";
  EXPECT_EQ(SearchParams().leaf_search_depth, -1) << "play's: the game's";
  EXPECT_EQ(SearchParams().root_search_depth, -1) << "play's: the game's";
  absl::StatusOr<SearchParams> plain =
      SelfplaySearchParams(proto::SelfplayConfig(), true);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->leaf_quiescence_weight, 0);
  EXPECT_EQ(plain->leaf_search_depth, 0);
  EXPECT_EQ(plain->root_search_depth, 0);
  absl::StatusOr<proto::SelfplayConfig> config = ParseSelfplayConfig(
      "search_params { name: 'leaf_quiescence_weight' value: '0.25' }", "test");
  ASSERT_TRUE(config.ok()) << config.status();
  absl::StatusOr<proto::SelfplayConfig> deep = ParseSelfplayConfig(
      "search_params { name: 'leaf_quiescence_weight' value: '0.25' }"
      "search_params { name: 'leaf_search_depth' value: '2' }"
      "search_params { name: 'root_search_depth' value: '3' }",
      "test");
  ASSERT_TRUE(deep.ok()) << deep.status();
  for (const bool full : {true, false}) {
    absl::StatusOr<SearchParams> params = SelfplaySearchParams(*config, full);
    ASSERT_TRUE(params.ok());
    EXPECT_EQ(params->leaf_quiescence_weight, 0.25);
    EXPECT_EQ(params->leaf_search_depth, 0) << "a quiescence config as before";
    EXPECT_EQ(params->root_search_depth, 0);
    absl::StatusOr<SearchParams> deep_params =
        SelfplaySearchParams(*deep, full);
    ASSERT_TRUE(deep_params.ok());
    EXPECT_EQ(deep_params->leaf_search_depth, 2);
    EXPECT_EQ(deep_params->root_search_depth, 3);
  }
}

TEST(SelfplayConfigTest, TargetsWithoutRootSearchTurnItOffInFullSearchesOnly) {
  EXPECT_FALSE(proto::SelfplayConfig().targets_without_root_search());
  absl::StatusOr<proto::SelfplayConfig> config = ParseSelfplayConfig(
      "targets_without_root_search: true\n"
      "search_params { name: 'leaf_quiescence_weight' value: '0.5' }"
      "search_params { name: 'root_search_depth' value: '3' }",
      "test");
  ASSERT_TRUE(config.ok()) << config.status();
  absl::StatusOr<SearchParams> full = SelfplaySearchParams(*config, true);
  absl::StatusOr<SearchParams> cheap = SelfplaySearchParams(*config, false);
  ASSERT_TRUE(full.ok() && cheap.ok());
  EXPECT_EQ(full->root_search_depth, 0);
  EXPECT_EQ(full->leaf_quiescence_weight, 0.5) << "only the root's search";
  EXPECT_EQ(cheap->root_search_depth, 3);
}

TEST(SelfplayConfigTest, UnknownKeysAndBadValuesAreRejectedByName) {
  struct Case {
    const char* text;
    const char* must_name;
  };
  for (const Case& c : {
           Case{"visitz: 100", "visitz"},
           Case{"visits: 0", "visits"},
           Case{"temperature: 'hot'", "temperature"},
           Case{"full_search_prob: 1.5", "full_search_prob"},
           Case{"resign_threshold: -2", "resign_threshold"},
           Case{"cheap_visits: 500\nvisits: 100", "cheap_visits"},
           Case{"games_per_file: 0", "games_per_file"},
           Case{"search_params { name: 'cpuct_nope' value: '1' }",
                "cpuct_nope"},
           Case{"search_params { name: 'cpuct_init' value: 'x' }",
                "cpuct_init"},
           Case{"search_params { name: 'root_noise' value: 'true' }",
                "root_noise"},
           Case{"parallel_games: 99999999999", "parallel_games"},
       }) {
    absl::StatusOr<proto::SelfplayConfig> config =
        ParseSelfplayConfig(c.text, "cfg.textproto");
    ASSERT_FALSE(config.ok()) << c.text;
    const std::string message(config.status().message());
    EXPECT_NE(message.find(c.must_name), std::string::npos) << message;
    EXPECT_NE(message.find("cfg.textproto"), std::string::npos) << message;
  }
}

TEST(SelfplayConfigTest, ExampleConfigsParse) {
  const std::filesystem::path configs =
      std::filesystem::path(VOLKHV_TEST_DATA_DIR) / ".." / ".." / "configs";
  int found = 0;
  for (const auto& entry : std::filesystem::directory_iterator(configs)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("selfplay-")) continue;
    ++found;
    absl::StatusOr<proto::SelfplayConfig> config =
        ReadSelfplayConfig(entry.path().string());
    EXPECT_TRUE(config.ok()) << config.status();
  }
  EXPECT_GT(found, 0);
}

// ---------------------------------------------------------------------------
// Games and runs.

// Checks one record against the rules and the invariants of the config:
// legal replay, move texts, flags, visit sums, and the result.
void CheckRecord(const proto::GameRecord& record,
                 const proto::SelfplayConfig& config, int* full_plies,
                 int* cheap_plies) {
  bool gumbel = false;
  for (const auto& param : config.search_params()) {
    gumbel |= param.name() == "gumbel" && param.value() == "1";
  }
  const bool pruned = !gumbel && config.policy_target_pruning() &&
                      config.forced_playouts_k() > 0;
  std::unique_ptr<GameState> final_state;
  const absl::Status replay =
      ReplayRecord(record, [&](const GameState& state, int ply) {
        if (ply == record.plies_size()) {
          final_state = state.Clone();
          return;
        }
        const proto::PlyRecord& p = record.plies(ply);
        MoveList legal;
        state.LegalMoves(&legal);
        const Move move = UnpackMove(p.move());
        ASSERT_TRUE(legal.contains(move)) << "ply " << ply;
        EXPECT_EQ(p.move_text(), state.MoveText(move));
        EXPECT_TRUE(legal.contains(UnpackMove(p.best_move())));
        EXPECT_FALSE(state.Result().IsOver());
        ASSERT_EQ(p.root_wdl_size(), 3);
        EXPECT_NEAR(p.root_wdl(0) + p.root_wdl(1) + p.root_wdl(2), 1, 1e-4);
        // A proven root (an exact WDL) may stop the search early, and its
        // visits may count exact backups that reached no child.
        const bool proven_root =
            (p.root_wdl(0) == 1 || p.root_wdl(1) == 1 || p.root_wdl(2) == 1);
        if (!p.full_search()) {
          ++*cheap_plies;
          EXPECT_EQ(p.visits_size(), 0) << "cheap searches are not targets";
          if (!proven_root) {
            EXPECT_GE(p.root_visits(), config.cheap_visits());
          }
          return;
        }
        ++*full_plies;
        // A root proven before its search (an immediate win) learns its
        // winning move from visits, Gumbel or not.
        const bool improved = p.policy_target() == proto::IMPROVED_POLICY;
        if (!proven_root) {
          EXPECT_EQ(improved, gumbel) << "ply " << ply;
        }
        if (!gumbel) {
          EXPECT_FALSE(improved);
        }
        uint64_t sum = 0;
        double probability = 0;
        for (const proto::MoveVisits& mv : p.visits()) {
          EXPECT_TRUE(legal.contains(UnpackMove(mv.move())));
          // Gumbel lists every move its improved policy gives a chance.
          if (!improved) {
            EXPECT_GT(mv.visits(), 0u);
          }
          sum += mv.visits();
          probability += mv.probability();
        }
        if (improved) {
          EXPECT_NEAR(probability, 1.0, 1e-4) << "ply " << ply;
        }
        if (pruned) {
          // Single visits are pruned, except the most visited move's and
          // proven wins' (whose root is then a proven win too).
          uint32_t most = 0;
          for (const proto::MoveVisits& mv : p.visits()) {
            most = std::max(most, mv.visits());
          }
          for (const proto::MoveVisits& mv : p.visits()) {
            EXPECT_TRUE(mv.visits() == most || mv.visits() >= 2u ||
                        p.root_wdl(0) == 1);
          }
        }
        if (!proven_root) {
          EXPECT_GE(p.root_visits(), config.visits());
        }
        if (pruned || proven_root) {
          // A root known won on its first visit (an immediate win) still
          // gives its winning move one visit to learn.
          EXPECT_LE(sum, std::max<uint64_t>(p.root_visits() - 1, 1));
        } else {
          EXPECT_EQ(sum, static_cast<uint64_t>(p.root_visits() - 1))
              << "ply " << ply;
        }
        EXPECT_GT(sum, 0u);
      });
  ASSERT_TRUE(replay.ok()) << replay;
  ASSERT_NE(final_state, nullptr);
  const GameResult result = final_state->Result();
  switch (static_cast<Termination>(record.termination())) {
    case Termination::kMaxLength:
      EXPECT_FALSE(result.IsOver());
      EXPECT_EQ(record.plies_size(), config.max_plies());
      EXPECT_EQ(record.winner(), proto::GameRecord::DRAW);
      break;
    case Termination::kResignation:
      EXPECT_FALSE(result.IsOver());
      EXPECT_FALSE(record.resign_disabled());
      EXPECT_NE(record.winner(), proto::GameRecord::DRAW);
      break;
    default: {
      ASSERT_TRUE(result.IsOver());
      EXPECT_EQ(record.termination(), TerminationCode(result.termination));
      const int side = final_state->SideToMove() & 1;
      proto::GameRecord::Winner expected = proto::GameRecord::DRAW;
      if (result.outcome == Outcome::kWin || result.outcome == Outcome::kLoss) {
        const int winner = result.outcome == Outcome::kWin ? side : 1 - side;
        expected = winner == 0 ? proto::GameRecord::FIRST_PLAYER
                               : proto::GameRecord::SECOND_PLAYER;
      }
      EXPECT_EQ(record.winner(), expected);
    }
  }
  if (!record.resign_disabled()) {
    EXPECT_EQ(record.would_resign_ply(), -1);
  }
}

proto::SelfplayConfig SmallConfig() {
  proto::SelfplayConfig config;
  config.set_games(6);
  config.set_parallel_games(3);
  config.set_visits(48);
  config.set_cheap_visits(12);
  config.set_full_search_prob(0.5);
  config.set_max_plies(90);
  config.set_games_per_file(4);
  config.set_minibatch(4);
  config.set_temperature_plies(10);
  config.set_seed(12345);
  return config;
}

void RunAndCheck(const proto::SelfplayConfig& config, std::string_view game,
                 nn::Evaluator* evaluator, const std::string& dir,
                 int generation) {
  SelfplayOutput output;
  output.directory = dir;
  output.net_generation = generation;
  int progress_calls = 0;
  absl::StatusOr<SelfplayStats> stats = RunSelfplay(
      config, *GameNamed(game), evaluator, output,
      [&](const SelfplayStats&) { ++progress_calls; }, nullptr);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_GE(progress_calls, 1);
  EXPECT_EQ(stats->games_finished, config.games());
  EXPECT_FALSE(stats->stopped);
  const int expected_files =
      (config.games() + config.games_per_file() - 1) / config.games_per_file();
  EXPECT_EQ(static_cast<int>(stats->files.size()), expected_files);

  std::vector<std::string> warnings;
  absl::StatusOr<DirectoryRead> read = ReadRecordDirectory(
      dir, [&](const std::string& w) { warnings.push_back(w); });
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(read->files_read, expected_files);
  ASSERT_EQ(static_cast<int>(read->games.size()), config.games());
  int full = 0, cheap = 0;
  int64_t plies = 0;
  int first = 0, second = 0, draws = 0;
  for (const proto::GameRecord& record : read->games) {
    SCOPED_TRACE(record.DebugString().substr(0, 300));
    EXPECT_EQ(record.game(), game);
    EXPECT_EQ(record.net_generation(), generation);
    EXPECT_FALSE(record.created().empty());
    CheckRecord(record, config, &full, &cheap);
    plies += record.plies_size();
    first += record.winner() == proto::GameRecord::FIRST_PLAYER;
    second += record.winner() == proto::GameRecord::SECOND_PLAYER;
    draws += record.winner() == proto::GameRecord::DRAW;
  }
  EXPECT_GT(full, 0);
  EXPECT_GT(cheap, 0);
  EXPECT_EQ(stats->plies, plies);
  EXPECT_EQ(stats->full_search_plies, full);
  EXPECT_EQ(stats->first_wins, first);
  EXPECT_EQ(stats->second_wins, second);
  EXPECT_EQ(stats->draws, draws);
  EXPECT_EQ(stats->searches,
            static_cast<uint64_t>(plies) +
                stats->terminations[Termination::kResignation]);
  EXPECT_GT(stats->evaluations, 0u);
}

TEST(SelfplayRunTest, GumbelGamesRecordTheImprovedPolicy) {
  nn::UniformEvaluator evaluator;
  for (std::string_view game : {"tavlei9", "tavreli"}) {
    SCOPED_TRACE(game);
    proto::SelfplayConfig config = SmallConfig();
    proto::SelfplayConfig::SearchParam* gumbel = config.add_search_params();
    gumbel->set_name("gumbel");
    gumbel->set_value("1");
    RunAndCheck(config, game, &evaluator, FreshPath(Cat("gumbel_", game)), -1);
  }
}

TEST(SelfplayRunTest, RandomEvaluatorGamesReplayAndAddUp) {
  nn::UniformEvaluator evaluator;
  for (std::string_view game : {"tavlei9", "tavreli"}) {
    for (bool pruning : {false, true}) {
      SCOPED_TRACE(::testing::Message() << game << " pruning " << pruning);
      proto::SelfplayConfig config = SmallConfig();
      config.set_policy_target_pruning(pruning);
      RunAndCheck(config, game, &evaluator,
                  FreshPath(Cat("random_", game, pruning ? "_pruned" : "")),
                  -1);
    }
  }
}

// A tiny random-initialised net behind the batching evaluator.
std::unique_ptr<nn::BatchingEvaluator> TinyNetEvaluator(
    const std::string& game_name) {
  std::unique_ptr<Game> game = GameNamed(game_name);
  absl::StatusOr<std::unique_ptr<Encoder>> encoder =
      MakeEncoder(game->Info(), EncoderOptions{});
  EXPECT_TRUE(encoder.ok()) << encoder.status();
  proto::NetworkFile header;
  header.set_format_version(nn::kNetworkFileFormatVersion);
  header.set_game(game_name);
  header.set_input_format_version((*encoder)->FormatVersion());
  header.mutable_encoder()->set_stack_layers(EncoderOptions{}.stack_layers);
  proto::Architecture* a = header.mutable_architecture();
  a->set_blocks(1);
  a->set_filters(8);
  a->set_se_ratio(2);
  a->set_policy_head_filters(8);
  a->set_value_head_filters(2);
  a->set_value_hidden(8);
  nn::SetGeometry(**encoder, a);
  header.mutable_provenance()->set_generation(0);
  absl::StatusOr<nn::NetworkWeights> weights =
      nn::RandomNetworkWeights(header, 17);
  EXPECT_TRUE(weights.ok()) << weights.status();
  nn::TorchBackendOptions options;
  options.threads = 1;
  absl::StatusOr<std::unique_ptr<nn::Backend>> backend =
      nn::MakeTorchBackend(*weights, options);
  EXPECT_TRUE(backend.ok()) << backend.status();
  return std::make_unique<nn::BatchingEvaluator>(
      *std::move(backend), *std::move(encoder), nn::BatchingOptions{});
}

TEST(SelfplayRunTest, TinyNetGamesReplayAndAddUp) {
  for (std::string_view game : {"tavlei9", "tavreli"}) {
    SCOPED_TRACE(game);
    std::unique_ptr<nn::BatchingEvaluator> evaluator =
        TinyNetEvaluator(std::string(game));
    proto::SelfplayConfig config = SmallConfig();
    config.set_games(4);
    config.set_parallel_games(4);
    config.set_visits(32);
    config.set_cheap_visits(8);
    config.set_max_plies(60);
    config.set_games_per_file(3);
    RunAndCheck(config, game, evaluator.get(), FreshPath(Cat("net_", game)), 0);
    const std::optional<nn::EvaluatorStats> batch = evaluator->Stats();
    ASSERT_TRUE(batch.has_value());
    EXPECT_GT(batch->batches, 0);
  }
}

TEST(SelfplayRunTest, NetworkStatsComeFromTheBatchingEvaluator) {
  std::unique_ptr<nn::BatchingEvaluator> evaluator =
      TinyNetEvaluator("tavlei9");
  proto::SelfplayConfig config = SmallConfig();
  config.set_games(2);
  config.set_max_plies(20);
  SelfplayOutput output;
  output.directory = FreshPath("net_stats");
  absl::StatusOr<SelfplayStats> stats = RunSelfplay(
      config, *GameNamed("tavlei9"), evaluator.get(), output, {}, nullptr);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_TRUE(stats->has_network_stats);
  EXPECT_GT(stats->batches, 0);
  EXPECT_GT(stats->network_positions, 0);
  EXPECT_LE(stats->network_positions + stats->cache_hits,
            static_cast<int64_t>(stats->evaluations));
  EXPECT_GT(stats->network_seconds, 0);
  EXPECT_GT(stats->NetworkShare(), 0);
  EXPECT_LE(stats->NetworkShare(), 1.0);
  nn::UniformEvaluator uniform;
  output.directory = FreshPath("random_stats");
  stats =
      RunSelfplay(config, *GameNamed("tavlei9"), &uniform, output, {}, nullptr);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_FALSE(stats->has_network_stats);
  EXPECT_EQ(stats->NetworkShare(), 0);
}

proto::GameRecord PlayOrDie(const proto::SelfplayConfig& config,
                            const GameState& start, nn::Evaluator* evaluator,
                            uint64_t seed, GameSummary* summary = nullptr) {
  absl::StatusOr<proto::GameRecord> record = PlaySelfplayGame(
      config, start, evaluator, ProverOf(start),
      /*heuristic=*/nullptr, SelfplayOutput(), seed, nullptr, nullptr, summary);
  EXPECT_TRUE(record.ok()) << record.status();
  return record.ok() ? *record : proto::GameRecord();
}

// Black (a lone king) to move against king and rook; no mate in one is
// possible after any black move.
constexpr char kLoneKing[] = "8/8/8/4k3/8/8/8/R3K3 b - - 0 1";

TEST(SelfplayGameTest, AHopelessSideResigns) {
  auto start = StateOf("tavreli", kLoneKing);
  FakeEvaluator evaluator(nullptr, LostFor(/*losing_side=*/1));
  proto::SelfplayConfig config;
  config.set_visits(32);
  config.set_cheap_visits(8);
  config.set_resign_threshold(-0.9);
  config.set_resign_consecutive_plies(2);
  config.set_resign_playthrough_fraction(0);
  GameSummary summary;
  const proto::GameRecord record =
      PlayOrDie(config, *start, &evaluator, 1, &summary);
  EXPECT_EQ(record.termination(), TerminationCode(Termination::kResignation));
  EXPECT_EQ(record.winner(), proto::GameRecord::FIRST_PLAYER);
  // Black searched at plies 0 and 2 and resigned at its second move.
  EXPECT_EQ(record.plies_size(), 2);
  EXPECT_FALSE(record.resign_disabled());
  EXPECT_EQ(record.would_resign_ply(), -1);
  EXPECT_EQ(summary.resigning_side, 1);
  int full = 0, cheap = 0;
  CheckRecord(record, config, &full, &cheap);

  // When White's value is the hopeless one, White resigns (at its second
  // move, ply 3) and Black wins.
  FakeEvaluator other(nullptr, LostFor(/*losing_side=*/0));
  const proto::GameRecord white =
      PlayOrDie(config, *start, &other, 1, &summary);
  EXPECT_EQ(white.termination(), TerminationCode(Termination::kResignation));
  EXPECT_EQ(white.winner(), proto::GameRecord::SECOND_PLAYER);
  EXPECT_EQ(white.plies_size(), 3);
  EXPECT_EQ(summary.resigning_side, 0);
  CheckRecord(white, config, &full, &cheap);
  // Resignation off: played to the end (here the maximum length).
  config.set_max_plies(12);
  config.set_resign_consecutive_plies(0);
  const proto::GameRecord off = PlayOrDie(config, *start, &evaluator, 1);
  EXPECT_NE(off.termination(), TerminationCode(Termination::kResignation));
  EXPECT_FALSE(off.resign_disabled());
}

TEST(SelfplayGameTest, PlaythroughGamesContinueAndRecordTheResignPly) {
  auto start = StateOf("tavreli", kLoneKing);
  FakeEvaluator evaluator(nullptr, LostFor(/*losing_side=*/1));
  proto::SelfplayConfig config;
  config.set_visits(32);
  config.set_cheap_visits(8);
  config.set_resign_consecutive_plies(2);
  config.set_resign_playthrough_fraction(1);
  config.set_max_plies(16);
  GameSummary summary;
  const proto::GameRecord record =
      PlayOrDie(config, *start, &evaluator, 1, &summary);
  EXPECT_TRUE(record.resign_disabled());
  EXPECT_EQ(record.would_resign_ply(), 2);
  EXPECT_GT(record.plies_size(), 2);
  EXPECT_NE(record.termination(), TerminationCode(Termination::kResignation));
  EXPECT_EQ(summary.resigning_side, 1);
  int full = 0, cheap = 0;
  CheckRecord(record, config, &full, &cheap);
}

TEST(SelfplayGameTest, MaxPliesAdjudicatesADraw) {
  for (std::string_view game : {"tavlei9", "tavreli"}) {
    SCOPED_TRACE(game);
    auto start = StateOf(game);
    nn::UniformEvaluator evaluator;
    proto::SelfplayConfig config;
    config.set_visits(16);
    config.set_cheap_visits(4);
    config.set_max_plies(7);
    const proto::GameRecord record = PlayOrDie(config, *start, &evaluator, 9);
    EXPECT_EQ(record.plies_size(), 7);
    EXPECT_EQ(record.termination(), TerminationCode(Termination::kMaxLength));
    EXPECT_EQ(record.winner(), proto::GameRecord::DRAW);
    int full = 0, cheap = 0;
    CheckRecord(record, config, &full, &cheap);
  }
}

TEST(SelfplayGameTest, FinishedPositionsAndMatesEndByTheRules) {
  // White to move mates in one (Rh1-h8); the game must end by checkmate,
  // won by White, after one ply.
  auto start = StateOf("tavreli", "k7/8/1K6/8/8/8/8/7R w - - 0 1");
  nn::UniformEvaluator evaluator;
  proto::SelfplayConfig config;
  config.set_visits(200);
  config.set_cheap_visits(200);
  config.set_final_temperature(0);
  config.set_temperature_plies(0);
  const proto::GameRecord record = PlayOrDie(config, *start, &evaluator, 4);
  EXPECT_EQ(record.plies_size(), 1);
  EXPECT_EQ(record.termination(), TerminationCode(tavreli::kCheckmate));
  EXPECT_EQ(record.winner(), proto::GameRecord::FIRST_PLAYER);
  int full = 0, cheap = 0;
  CheckRecord(record, config, &full, &cheap);
}

TEST(SelfplayGameTest, SameSeedSameGame) {
  auto start = StateOf("tavlei9");
  nn::UniformEvaluator evaluator;
  proto::SelfplayConfig config;
  config.set_visits(24);
  config.set_cheap_visits(6);
  config.set_max_plies(40);
  auto moves = [&](uint64_t seed) {
    const proto::GameRecord record =
        PlayOrDie(config, *start, &evaluator, seed);
    std::vector<uint32_t> out;
    for (const proto::PlyRecord& p : record.plies()) out.push_back(p.move());
    return out;
  };
  EXPECT_EQ(moves(5), moves(5));
  EXPECT_NE(moves(5), moves(6));
}

TEST(SelfplayRunTest, StopWritesTheFinishedGames) {
  nn::UniformEvaluator evaluator;
  proto::SelfplayConfig config = SmallConfig();
  config.set_games(100000);
  config.set_parallel_games(2);
  config.set_max_plies(20);
  config.set_games_per_file(config.games());
  std::atomic<bool> stop{false};
  SelfplayOutput output;
  output.directory = FreshPath("stop");
  absl::StatusOr<SelfplayStats> stats = RunSelfplay(
      config, *GameNamed("tavlei9"), &evaluator, output,
      [&](const SelfplayStats& s) {
        if (s.games_finished > 0) stop = true;
      },
      &stop);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_TRUE(stats->stopped);
  EXPECT_GT(stats->games_finished, 0);
  EXPECT_LT(stats->games_finished, config.games());
  EXPECT_EQ(stats->files.size(), 1u);
  absl::StatusOr<DirectoryRead> read =
      ReadRecordDirectory(output.directory, [](const std::string&) {});
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(static_cast<int>(read->games.size()), stats->games_finished);
  // No temporary file left behind.
  for (const auto& entry :
       std::filesystem::directory_iterator(output.directory)) {
    EXPECT_TRUE(entry.path().string().ends_with(kRecordExtension))
        << entry.path();
  }
}

TEST(SelfplayRunTest, NoGamesAskedForPlaysNoneAndWritesNothing) {
  nn::UniformEvaluator evaluator;
  proto::SelfplayConfig config = SmallConfig();
  config.set_games(0);
  SelfplayOutput output;
  output.directory = FreshPath("none");
  absl::StatusOr<SelfplayStats> stats = RunSelfplay(
      config, *GameNamed("tavlei9"), &evaluator, output, {}, nullptr);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->games_finished, 0);
  EXPECT_TRUE(stats->files.empty());
  EXPECT_TRUE(std::filesystem::is_empty(output.directory));
}

TEST(SelfplayRunTest, WritersSharingADirectoryDoNotCollide) {
  EXPECT_NE(DefaultWriterId(), DefaultWriterId());
  const std::string dir = FreshPath("shared");
  proto::SelfplayConfig config = SmallConfig();
  config.set_games(3);
  config.set_games_per_file(1);
  config.set_max_plies(16);
  // Two writers in this process at the same time (same pid and second:
  // the random part of the default id tells them apart) ...
  std::vector<absl::StatusOr<SelfplayStats>> results(2);
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      nn::UniformEvaluator evaluator;
      proto::SelfplayConfig c = config;
      c.set_seed(100 + w);
      SelfplayOutput output;
      output.directory = dir;
      results[w] = RunSelfplay(c, *GameNamed("tavlei9"), &evaluator, output, {},
                               nullptr);
    });
  }
  for (std::thread& t : writers) t.join();
  // ... and one in a child process.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    nn::UniformEvaluator evaluator;
    proto::SelfplayConfig c = config;
    c.set_seed(300);
    SelfplayOutput output;
    output.directory = dir;
    absl::StatusOr<SelfplayStats> stats =
        RunSelfplay(c, *GameNamed("tavlei9"), &evaluator, output, {}, nullptr);
    _exit(stats.ok() && stats->files.size() == 3 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);

  std::set<std::string> names;
  for (const auto& result : results) {
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->files.size(), 3u);
    for (const std::string& f : result->files) names.insert(f);
  }
  EXPECT_EQ(names.size(), 6u);
  absl::StatusOr<DirectoryRead> read =
      ReadRecordDirectory(dir, [](const std::string&) {});
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->files_read, 9);
  EXPECT_EQ(read->files_skipped, 0);
  EXPECT_EQ(read->games.size(), 9u);
}

TEST(SelfplayRunTest, BadConfigOrDirectoryIsAnError) {
  nn::UniformEvaluator evaluator;
  proto::SelfplayConfig config = SmallConfig();
  config.set_visits(0);
  SelfplayOutput output;
  output.directory = FreshPath("bad");
  absl::StatusOr<SelfplayStats> stats = RunSelfplay(
      config, *GameNamed("tavlei9"), &evaluator, output, {}, nullptr);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().message().find("visits"), std::string::npos);
  // A path under a regular file cannot be a directory.
  const std::string file = FreshPath("plain_file");
  std::ofstream(file) << "x";
  output.directory = file + "/sub";
  stats = RunSelfplay(SmallConfig(), *GameNamed("tavlei9"), &evaluator, output,
                      {}, nullptr);
  EXPECT_FALSE(stats.ok());
}

// ---------------------------------------------------------------------------
// The command line.

int RunBinary(const std::string& args, std::string* output) {
  const std::string command = Cat(VOLKHV_BINARY, " ", args, " 2>&1");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  output->clear();
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe)) {
    output->append(buffer, n);
  }
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(SelfplayCommandTest, WritesRecordsAndRejectsBadConfigs) {
  const std::string dir = FreshPath("cli");
  std::string out;
  ASSERT_EQ(RunBinary(Cat("selfplay --game tavlei9 --net random --games 3 "
                          "--parallel 2 --visits 16 --seed 3 --generation 4 "
                          "--set 'cheap_visits: 4 max_plies: 30' --out ",
                          dir),
                      &out),
            0)
      << out;
  EXPECT_NE(out.find("3 games"), std::string::npos) << out;
  EXPECT_NE(out.find("n/a"), std::string::npos) << out;
  absl::StatusOr<DirectoryRead> read =
      ReadRecordDirectory(dir, [](const std::string&) {});
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->games.size(), 3u);
  EXPECT_EQ(read->games[0].net_generation(), 4);

  const std::string config = dir + "/bad.textproto";
  std::ofstream(config) << "visits: 10\nresign_treshold: -0.5\n";
  EXPECT_NE(RunBinary(Cat("selfplay --game tavlei9 --config ", config,
                          " --out ", dir),
                      &out),
            0);
  EXPECT_NE(out.find("resign_treshold"), std::string::npos) << out;
  EXPECT_NE(RunBinary(Cat("selfplay --game tavlei9 --set 'games_per_file: -1'"
                          " --out ",
                          dir),
                      &out),
            0);
  EXPECT_NE(out.find("games_per_file"), std::string::npos) << out;
}

}  // namespace
}  // namespace volkhv::selfplay
