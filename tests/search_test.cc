// The MCTS search with the uniform evaluator: forced wins found and proven,
// losing moves avoided, visit bookkeeping, tree reuse, root noise,
// determinism, the memory cap and leaf batching.
#include "engine/search/search.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/games/games.h"
#include "engine/search/node.h"
#include "engine/search/search_params.h"
#include "engine/search/tree.h"
#include "engine/tavlei/module.h"
#include "engine/tavreli/module.h"
#include "engine/util/random.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "nn/evaluator.h"
#include "tests/fake_evaluator.h"
#include "tests/game_fixtures.h"
#include "tests/nim/module.h"
#include "tests/tree_checks.h"

namespace volkhv::search {
namespace {

using ::volkhv::testing::ExpectConsistentTree;
using ::volkhv::testing::FakeEvaluator;
using ::volkhv::testing::FavourMoves;
using ::volkhv::testing::ProverOf;
using ::volkhv::testing::ShyOfSquare;
using ::volkhv::testing::StateOf;
using ::volkhv::testing::ValueBySide;
using ::volkhv::testing::Visits;

const bool kNimRegistered = nim::RegisterNim();

Move ParseMove(const GameState& state, std::string_view text) {
  auto move = state.ParseMove(text);
  EXPECT_TRUE(move.ok()) << text << ": " << move.status().message();
  return move.ok() ? *move : Move{};
}

const MoveInfo* FindMove(const SearchResult& result, Move move) {
  for (const MoveInfo& info : result.moves) {
    if (info.move == move) return &info;
  }
  return nullptr;
}

// White: Kb6, Rh1; Black: Ka8. Only h1-h8 mates.
constexpr char kRookMateInOne[] = "k7/8/1K6/8/8/8/8/7R w - - 0 1";
// Black to move: b8-a8 allows h1-h8 mate; b8-c8 does not.
constexpr char kAllowsMateInOne[] = "1k6/8/1K6/8/8/8/8/7R b - - 0 1";
// Mates in 2 (3 plies) with exactly one first move that forces mate,
// checked by exhaustive search when the tests were written.
constexpr char kQuietMateInTwo[] = "8/1pr6/6R1/2pr5/8/2K3N1/8/3k4 w - - 0 1";
constexpr char kMateInTwo[] = "1k6/4Rpr2/8/2K5/3N4/1pr4b1/2B5/7n w - - 0 1";

TEST(SearchParamsTest, TableHoldsDefaultsAndSetRejectsBadInput) {
  const SearchParams defaults;
  const auto& table = SearchParamTable();
  ASSERT_GE(table.size(), 10u);
  for (const SearchParamInfo& info : table) {
    EXPECT_FALSE(info.help.empty()) << info.name;
    auto value = GetSearchParam(defaults, info.name);
    ASSERT_TRUE(value.ok()) << info.name;
    EXPECT_EQ(*value, info.default_value) << info.name;
  }
  EXPECT_DOUBLE_EQ(defaults.cpuct_init, 1.745);
  EXPECT_FALSE(defaults.root_noise);

  SearchParams params;
  EXPECT_TRUE(SetSearchParam(&params, "cpuct_init", "2.5").ok());
  EXPECT_DOUBLE_EQ(params.cpuct_init, 2.5);
  EXPECT_TRUE(SetSearchParam(&params, "minibatch_size", "64").ok());
  EXPECT_EQ(params.minibatch_size, 64);
  EXPECT_TRUE(SetSearchParam(&params, "root_noise", "true").ok());
  EXPECT_TRUE(params.root_noise);

  absl::Status unknown = SetSearchParam(&params, "cpuct", "1");
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(unknown.message()).find("'cpuct'"), std::string::npos);
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{
           {"minibatch_size", "0"},
           {"minibatch_size", "1.5"},
           {"cpuct_init", "abc"},
           {"cpuct_init", "nan"},
           {"dirichlet_epsilon", "1.5"},
           {"root_noise", "maybe"}}) {
    absl::Status status = SetSearchParam(&params, name, value);
    EXPECT_FALSE(status.ok()) << name << "=" << value;
    EXPECT_NE(std::string(status.message()).find("'" + name + "'"),
              std::string::npos)
        << status.message();
  }
  EXPECT_EQ(params.minibatch_size, 64);  // unchanged by the failures
  EXPECT_DOUBLE_EQ(params.cpuct_init, 2.5);
}

TEST(SearchTest, PlaysAndProvesTavreliMateInOne) {
  auto state = StateOf("tavreli", kRookMateInOne);
  nn::UniformEvaluator evaluator;
  Search search(SearchParams(), &evaluator, ProverOf(*state), 1);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  SearchLimits limits;
  limits.visits = 100000;
  const SearchResult result = search.Run(limits);
  const Move mate = ParseMove(*state, "h1-h8");
  EXPECT_EQ(result.best_move, mate);
  EXPECT_EQ(search.BestMove(), mate);
  EXPECT_EQ(result.root_proven, Proven::kWin);
  EXPECT_EQ(result.root_proven_plies, 1);
  EXPECT_EQ(result.stop_reason, StopReason::kProven);
  EXPECT_LT(result.root_visits, 100000u);  // stopped once proven
  ASSERT_FALSE(result.moves.empty());
  EXPECT_EQ(result.moves[0].proven, Proven::kWin);
  EXPECT_EQ(result.moves[0].proven_plies, 1);
  EXPECT_FLOAT_EQ(result.moves[0].q, 1.0f);
  EXPECT_EQ(result.moves[0].pv, std::vector<Move>{mate});
  EXPECT_FLOAT_EQ(result.root_wdl[0], 1.0f);
  state->Play(result.best_move);
  EXPECT_EQ(state->Result().termination, tavreli::kCheckmate);
}

TEST(SearchTest, PlaysTavreliMatesInTwo) {
  for (const auto& [text, first] :
       std::vector<std::pair<std::string, std::string>>{
           {kQuietMateInTwo, "g6-f6"}, {kMateInTwo, "d4-c6"}}) {
    SCOPED_TRACE(text);
    auto state = StateOf("tavreli", text);
    nn::UniformEvaluator evaluator;
    Search search(SearchParams(), &evaluator, ProverOf(*state), 1);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    SearchLimits limits;
    limits.visits = 200000;
    const SearchResult result = search.Run(limits);
    EXPECT_EQ(result.best_move, ParseMove(*state, first));
    EXPECT_EQ(result.root_proven, Proven::kWin);
    EXPECT_EQ(result.root_proven_plies, 3);
    ASSERT_GE(result.moves[0].pv.size(), 3u);
    // Follow the PV: the reply is forced into a mate on the next move.
    state->Play(result.moves[0].pv[0]);
    state->Play(result.moves[0].pv[1]);
    state->Play(result.moves[0].pv[2]);
    EXPECT_EQ(state->Result().termination, tavreli::kCheckmate);
  }
}

TEST(SearchTest, AvoidsAMoveThatAllowsMateInOne) {
  auto state = StateOf("tavreli", kAllowsMateInOne);
  nn::UniformEvaluator evaluator;
  Search search(SearchParams(), &evaluator, ProverOf(*state), 1);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  SearchLimits limits;
  limits.visits = 3000;
  const SearchResult result = search.Run(limits);
  const Move losing = ParseMove(*state, "b8-a8");
  EXPECT_EQ(result.best_move, ParseMove(*state, "b8-c8"));
  const MoveInfo* bad = FindMove(result, losing);
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->proven, Proven::kLoss);
  EXPECT_EQ(bad->proven_plies, 2);
  EXPECT_FLOAT_EQ(bad->q, -1.0f);
  EXPECT_EQ(result.moves.back().move, losing);  // ranked last
  // Sampling with temperature never picks the proven loss either.
  for (int i = 0; i < 50; ++i) EXPECT_NE(search.SampleMove(1.0), losing);
}

// White: Kb6, Ne5; Black: Ka8. e5-d7 and e5-c6 stalemate (a draw); no move
// wins at once.
constexpr char kStalemateAvailable[] = "k7/8/1K6/4N3/8/8/8/8 w - - 0 1";

// The best move of a 3000-visit uniform search of kStalemateAvailable with
// the given draw scores.
Move BestWithDrawScores(double draw_score, double draw_score_opponent) {
  auto state = StateOf("tavreli", kStalemateAvailable);
  SearchParams params;
  params.draw_score = draw_score;
  params.draw_score_opponent = draw_score_opponent;
  nn::UniformEvaluator evaluator;
  Search search(params, &evaluator, ProverOf(*state), 1);
  EXPECT_TRUE(search.SetPosition(*state).ok());
  SearchLimits limits;
  limits.visits = 3000;
  const SearchResult result = search.Run(limits);
  const MoveInfo* stalemate = FindMove(result, ParseMove(*state, "e5-d7"));
  EXPECT_NE(stalemate, nullptr);
  if (stalemate != nullptr) {
    EXPECT_EQ(stalemate->proven, Proven::kDraw);
    EXPECT_FLOAT_EQ(stalemate->q, 0.0f);  // reported unadjusted
  }
  return result.best_move;
}

TEST(SearchTest, DrawScoreSteersTowardsOrAwayFromADraw) {
  auto state = StateOf("tavreli", kStalemateAvailable);
  const Move d7 = ParseMove(*state, "e5-d7");
  const Move c6 = ParseMove(*state, "e5-c6");
  // A draw worth more than the uniform net's 0 for unclear positions: take
  // it. Worth less (self-play contempt or contempt against a weaker
  // opponent): avoid it.
  const Move liked = BestWithDrawScores(0.5, 0.0);
  EXPECT_TRUE(liked == d7 || liked == c6);
  const Move avoided_self_play = BestWithDrawScores(-0.5, -0.5);
  EXPECT_NE(avoided_self_play, d7);
  EXPECT_NE(avoided_self_play, c6);
  const Move avoided_contempt = BestWithDrawScores(-0.5, 0.5);
  EXPECT_NE(avoided_contempt, d7);
  EXPECT_NE(avoided_contempt, c6);
}

TEST(SearchTest, ASmallSearchWithALargeMinibatchDoesNotDriftIntoADraw) {
  // With 32 leaves gathered at once from a 100-visit tree, virtual loss on
  // the pending winning moves used to hand most visits to the stalemate.
  auto state = StateOf("tavreli", kStalemateAvailable);
  SearchParams params;
  params.minibatch_size = 32;
  // White is better everywhere (W-L = +0.35 for white); the two stalemating
  // knight moves of kStalemateAvailable get 15 % of the policy each, the
  // other moves share the rest.
  FakeEvaluator evaluator(
      FavourMoves({"e5-d7", "e5-c6"}, 0.15f),
      ValueBySide({0.5f, 0.35f, 0.15f}, {0.15f, 0.35f, 0.5f}));
  Search search(params, &evaluator, ProverOf(*state), 1);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  SearchLimits limits;
  limits.visits = 100;
  const SearchResult result = search.Run(limits);
  EXPECT_EQ(result.root_visits, 100u);
  // One leaf at a time gives each stalemate 5 visits and the best move 8.
  const uint32_t best_visits = result.moves.front().visits;
  for (const char* draw : {"e5-d7", "e5-c6"}) {
    const MoveInfo* info = FindMove(result, ParseMove(*state, draw));
    ASSERT_NE(info, nullptr);
    EXPECT_NE(result.best_move, info->move);
    EXPECT_LT(info->visits, best_visits) << draw;
  }
}

TEST(SearchTest, TwoFoldRepetitionsAreDrawsInTheSearchButNotAtTheRoot) {
  // After e5-f3 a8-b8 f3-e5, Black's b8-a8 repeats the start position;
  // b8-c8 does not.
  auto state = StateOf("tavreli", kStalemateAvailable);
  std::vector<Move> moves;
  for (const char* text : {"e5-f3", "a8-b8", "f3-e5"}) {
    moves.push_back(ParseMove(*state, text));
    state->Play(moves.back());
  }
  const Move repeat = ParseMove(*state, "b8-a8");
  auto start = StateOf("tavreli", kStalemateAvailable);
  SearchLimits limits;
  limits.visits = 200;
  for (const bool two_fold : {true, false}) {
    SearchParams params;
    params.two_fold_draws = two_fold;
    nn::UniformEvaluator evaluator;
    Search search(params, &evaluator, ProverOf(*start), 1);
    ASSERT_TRUE(search.SetPosition(*start, moves).ok());
    const SearchResult result = search.Run(limits);
    const MoveInfo* info = FindMove(result, repeat);
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->proven == Proven::kDraw, two_fold);
    // Playing the repetition keeps the game going: the reused root is
    // searched afresh, not reported as a finished game.
    ASSERT_TRUE(search.Advance(repeat).ok());
    const SearchResult after = search.Run(limits);
    EXPECT_EQ(after.stop_reason, StopReason::kVisits);
    EXPECT_EQ(after.root_visits, 200u);
    EXPECT_EQ(after.root_proven, Proven::kNone);
    ExpectConsistentTree(search.root());
  }
}

TEST(SearchTest, AvoidsTheOneMoveThatAllowsMateAmongMany) {
  // Black to move with 18 moves; only the knight leaving a3 (a3-b5) lets
  // White mate at once.
  auto state = StateOf("tavreli", "8/1r3pr2/8/8/8/n4K1R/2Q5/k7 b - - 0 1");
  nn::UniformEvaluator evaluator;
  Search search(SearchParams(), &evaluator, ProverOf(*state), 1);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  SearchLimits limits;
  limits.visits = 20000;
  const SearchResult result = search.Run(limits);
  const Move losing = ParseMove(*state, "a3-b5");
  EXPECT_NE(result.best_move, losing);
  const MoveInfo* bad = FindMove(result, losing);
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->proven, Proven::kLoss);
  EXPECT_EQ(bad->proven_plies, 2);
  // Exhaustive search: a3-c4, b7-a7 and b7-c7 lose to mates in 2, and
  // every other move holds for 2 moves. Whatever the search proves must
  // agree (with the mate-in-one prover it also proves mates in 3).
  const std::map<std::string, int> losses = {
      {"a3-b5", 2}, {"a3-c4", 4}, {"b7-a7", 4}, {"b7-c7", 4}};
  for (const MoveInfo& info : result.moves) {
    if (info.proven == Proven::kNone) continue;
    const std::string text = state->MoveText(info.move);
    EXPECT_EQ(info.proven, Proven::kLoss) << text;
    const auto listed = losses.find(text);
    if (listed != losses.end()) {
      EXPECT_EQ(info.proven_plies, listed->second) << text;
    } else {
      EXPECT_GT(info.proven_plies, 4) << text;
    }
  }
  EXPECT_EQ(result.moves.back().move, losing);  // the quickest loss last
  EXPECT_EQ(result.moves[0].proven, Proven::kNone);
}

TEST(SearchTest, PrinceEscapesAndIsCapturedInOneInTavlei) {
  for (const auto& [text, win] :
       std::vector<std::pair<std::string, std::string>>{
           // The prince on a5 reaches the exit a1 (a9 is blocked).
           {"9/t8/9/9/K7t/9/9/9/4t4 d 0", "a5-a1"},
           // An attacker closes on the prince from d9: b3 and d3 capture.
           {"3t5/9/9/9/9/9/1tK6/9/4T4 a 0", "d9-d3"}}) {
    SCOPED_TRACE(text);
    auto state = StateOf("tavlei9", text);
    nn::UniformEvaluator evaluator;
    Search search(SearchParams(), &evaluator, ProverOf(*state), 7);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    SearchLimits limits;
    limits.visits = 50000;
    const SearchResult result = search.Run(limits);
    EXPECT_EQ(result.best_move, ParseMove(*state, win));
    EXPECT_EQ(result.root_proven, Proven::kWin);
    EXPECT_EQ(result.root_proven_plies, 1);
    state->Play(result.best_move);
    EXPECT_EQ(state->Result().outcome, Outcome::kLoss);
  }
}

// From a self-play match: the prince on i4 has two open lines to exits (i1,
// i9), which a net that gives prince moves no prior never searched.
constexpr char kPrinceOnAnOpenFile[] =
    "9/3TT4/9/t6T1/tt1t3T1/tt6K/t6T1/ttt6/1tt4T1 d 0";

TEST(SearchTest, AnImmediateWinIsPlayedWhateverItsPrior) {
  auto state = StateOf("tavlei9", kPrinceOnAnOpenFile);
  const int prince = ParseMove(*state, "i4-i1").from;
  for (const bool immediate_wins : {true, false}) {
    SCOPED_TRACE(immediate_wins);
    FakeEvaluator evaluator(ShyOfSquare(prince));
    SearchParams params;
    params.immediate_wins = immediate_wins;
    Search search(params, &evaluator, ProverOf(*state), 3);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    const SearchResult result = search.Run(Visits(100));
    auto after = state->Clone();
    after->Play(result.best_move);
    const bool won = after->Result().termination == tavlei::kKingEscaped;
    EXPECT_EQ(won, immediate_wins);
    if (!immediate_wins) continue;
    // Known at once: nothing evaluated, one playout, proven in one ply.
    EXPECT_EQ(evaluator.calls(), 0);
    EXPECT_EQ(result.playouts, 1u);
    EXPECT_EQ(result.root_proven, Proven::kWin);
    EXPECT_EQ(result.root_proven_plies, 1);
    // The training target is the winning move alone.
    int targets = 0;
    for (const auto& [move, visits] : search.RootVisits()) {
      if (visits == 0) continue;
      ++targets;
      EXPECT_EQ(move, result.best_move);
    }
    EXPECT_EQ(targets, 1);
    EXPECT_EQ(search.PrunedRootVisits(), search.RootVisits());
    EXPECT_EQ(search.SampleMove(1.0), result.best_move);
  }
}

TEST(SearchTest, ImmediateWinsProveALostRootWithFewOrNoEvaluations) {
  // Attackers to move; whatever they play, the prince a5 reaches a1 (a9 is
  // blocked by a8, and nothing can reach a2-a4 or capture him).
  auto state = StateOf("tavlei9", "9/t8/9/9/K7t/9/9/9/4t4 a 0");
  MoveList legal;
  state->LegalMoves(&legal);
  const struct {
    bool immediate_wins;
    bool avoid_immediate_losses;
  } kSettings[] = {{true, true}, {true, false}, {false, false}};
  for (const auto& setting : kSettings) {
    SCOPED_TRACE(setting.immediate_wins);
    SCOPED_TRACE(setting.avoid_immediate_losses);
    nn::UniformEvaluator evaluator;
    SearchParams params;
    params.immediate_wins = setting.immediate_wins;
    params.avoid_immediate_losses = setting.avoid_immediate_losses;
    // Off here: the prince's a5-a2 would prove the replies in three plies.
    params.unstoppable_threats = false;
    Search search(params, &evaluator, ProverOf(*state), 3);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    const SearchResult result = search.Run(Visits(100 * legal.size()));
    EXPECT_EQ(result.root_proven, Proven::kLoss);
    EXPECT_EQ(result.root_proven_plies, 2);
    if (setting.avoid_immediate_losses) {
      // Known before anything is evaluated.
      EXPECT_EQ(result.evaluations, 0u);
      EXPECT_EQ(result.playouts, 1u);
    } else if (setting.immediate_wins) {
      // Only the root was evaluated: each reply was known on its first visit.
      EXPECT_EQ(result.evaluations, 1u);
    } else {
      // Each reply had to be evaluated to see the escape below it.
      EXPECT_GT(result.evaluations, static_cast<uint64_t>(legal.size()));
    }
  }
}

TEST(SearchTest, MovesThatAllowAnImmediateWinAreKnownLossesAtExpansion) {
  // Attackers to move; the prince a5 threatens a5-a1 (a9 is blocked by a7).
  // Only d4-a4 closes the line; the net is shy of d4's moves.
  auto state = StateOf("tavlei9", "9/9/t8/9/K7t/3t5/9/9/4t4 a 0");
  const Move block = ParseMove(*state, "d4-a4");
  for (const bool avoid : {true, false}) {
    SCOPED_TRACE(avoid);
    FakeEvaluator evaluator(ShyOfSquare(block.from));
    SearchParams params;
    params.avoid_immediate_losses = avoid;
    // Off: after d4-a4 the prince still wins in five (a5-c5, heading for
    // the open rank 9), which would prove the root lost in six.
    params.wins_in_five = false;
    // Root noise leaves the known losses alone.
    params.root_noise = true;
    Search search(params, &evaluator, ProverOf(*state), 3);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    const SearchResult result = search.Run(Visits(50));
    if (!avoid) {
      EXPECT_NE(result.best_move, block);
      continue;
    }
    EXPECT_EQ(result.best_move, block);
    for (const MoveInfo& info : result.moves) {
      if (info.move == block) continue;
      EXPECT_EQ(info.proven, Proven::kLoss) << state->MoveText(info.move);
      EXPECT_EQ(info.proven_plies, 2);
      EXPECT_EQ(info.visits, 0u);
      EXPECT_EQ(info.prior, 0.0f);
    }
    ExpectConsistentTree(search.root());
    // Played anyway, a losing move's node (known won for the prince, never
    // expanded) becomes a root that finds the escape.
    const Move blunder = ParseMove(*state, "e1-f1");
    ASSERT_TRUE(search.Advance(blunder).ok());
    const SearchResult after = search.Run(Visits(50));
    EXPECT_EQ(after.root_proven, Proven::kWin);
    EXPECT_EQ(after.root_proven_plies, 1);
    EXPECT_EQ(after.best_move, ParseMove(search.root_state(), "a5-a1"));
  }
}

// Gumbel search at tiny budgets: the one move that does not lose is chosen
// however small its prior, as PUCT does.
TEST(GumbelSearchTest, TinyBudgetsNeverChooseAKnownLoss) {
  auto state = StateOf("tavlei9", "9/9/t8/9/K7t/3t5/9/9/4t4 a 0");
  const Move block = ParseMove(*state, "d4-a4");
  for (const int budget : {2, 4, 8, 16}) {
    SCOPED_TRACE(budget);
    FakeEvaluator evaluator(ShyOfSquare(block.from));
    SearchParams params;
    params.gumbel = true;
    params.gumbel_noise = true;
    params.wins_in_five = false;
    Search search(params, &evaluator, ProverOf(*state), 3);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    const SearchResult result = search.Run(Visits(budget + 1));
    EXPECT_EQ(result.best_move, block);
    EXPECT_EQ(search.BestMove(), block);
    EXPECT_EQ(search.SampleMove(1.0), block);
  }
}

// Sequential Halving in the real search: 4 moves considered, 16 simulations
// (the root's own evaluation is the 17th visit): two visits each, then four
// more for each of the best two, whatever the minibatch size.
TEST(GumbelSearchTest, SequentialHalvingSpreadsTheVisitsAsDocumented) {
  auto state = StateOf("tavlei9");
  for (const int minibatch : {1, 8, 32}) {
    SCOPED_TRACE(minibatch);
    nn::UniformEvaluator evaluator;
    SearchParams params;
    params.gumbel = true;
    params.gumbel_considered = 4;
    params.minibatch_size = minibatch;
    Search search(params, &evaluator, ProverOf(*state), 1);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    const SearchResult result = search.Run(Visits(17));
    std::vector<uint32_t> visits;
    for (const auto& [move, n] : search.RootVisits()) {
      if (n > 0) visits.push_back(n);
    }
    std::sort(visits.begin(), visits.end());
    EXPECT_EQ(visits, (std::vector<uint32_t>{2, 2, 6, 6}));
    // The choice is one of the two survivors.
    const MoveInfo* chosen = FindMove(result, result.best_move);
    ASSERT_NE(chosen, nullptr);
    EXPECT_EQ(chosen->visits, 6u);
  }
}

TEST(GumbelSearchTest, ImprovedPolicyCoversEveryLegalMoveAndSumsToOne) {
  auto state = StateOf("tavreli");
  MoveList legal;
  state->LegalMoves(&legal);
  nn::UniformEvaluator evaluator;
  SearchParams params;
  params.gumbel = true;
  params.gumbel_noise = true;
  Search search(params, &evaluator, ProverOf(*state), 5);
  EXPECT_TRUE(search.ImprovedRootPolicy().empty());  // no Run yet
  ASSERT_TRUE(search.SetPosition(*state).ok());
  const SearchResult result = search.Run(Visits(33));
  const auto policy = search.ImprovedRootPolicy();
  ASSERT_EQ(static_cast<int>(policy.size()), legal.size());
  double sum = 0;
  for (const auto& [move, p] : policy) {
    EXPECT_TRUE(legal.contains(move));
    EXPECT_GE(p, 0.0f);
    sum += p;
  }
  EXPECT_NEAR(sum, 1.0, 1e-5);
  // Same seed, same search; PUCT gives no improved policy.
  Search again(params, &evaluator, ProverOf(*state), 5);
  ASSERT_TRUE(again.SetPosition(*state).ok());
  EXPECT_EQ(again.Run(Visits(33)).best_move, result.best_move);
  Search puct(SearchParams{}, &evaluator, ProverOf(*state), 5);
  ASSERT_TRUE(puct.SetPosition(*state).ok());
  puct.Run(Visits(33));
  EXPECT_TRUE(puct.ImprovedRootPolicy().empty());
}

TEST(SearchTest, AnUnstoppableThreatIsAProvenWinInThree) {
  // Defenders to move: a5-a7 takes a8 against the exit a9 and opens a9;
  // no attacker can reach a8 or capture the prince on a7. The net is shy
  // of the prince's moves and likes those of the defender on e3.
  auto state = StateOf("tavlei9", "9/t8/9/9/K7t/t8/4T4/9/4t4 d 0");
  const Move threat = ParseMove(*state, "a5-a7");
  for (const bool threats : {true, false}) {
    SCOPED_TRACE(threats);
    FakeEvaluator evaluator(ShyOfSquare(threat.from));
    SearchParams params;
    params.unstoppable_threats = threats;
    // Off with it: the attackers' replies would find the threats below.
    params.avoid_unstoppable_threats = threats;
    Search search(params, &evaluator, ProverOf(*state), 3);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    const SearchResult result = search.Run(Visits(100));
    if (!threats) {
      EXPECT_EQ(result.root_proven, Proven::kNone);
      EXPECT_NE(result.best_move, threat);
      continue;
    }
    EXPECT_EQ(result.best_move, threat);
    EXPECT_EQ(result.root_proven, Proven::kWin);
    EXPECT_EQ(result.root_proven_plies, 3);
    EXPECT_EQ(result.evaluations, 0u);
    // The threat played: the attackers' root (known lost, never expanded)
    // is searched and found lost in two plies.
    ASSERT_TRUE(search.Advance(threat).ok());
    const SearchResult after = search.Run(Visits(100));
    EXPECT_EQ(after.root_proven, Proven::kLoss);
    EXPECT_EQ(after.root_proven_plies, 2);
    EXPECT_FALSE(after.best_move.IsNull());
  }
}

TEST(SearchTest, AWinInFiveIsProvenWithoutEvaluation) {
  // Defenders to move; the prince a5 goes to the c-file, from where c9 opens
  // a9 and i9 at once (and c1 threatens a1): the attackers cannot parry
  // everything. The net is shy of the prince's moves.
  auto state = StateOf("tavlei9", "9/9/t8/9/K7t/t8/9/9/4t4 d 0");
  for (const bool five : {true, false}) {
    SCOPED_TRACE(five);
    FakeEvaluator evaluator(ShyOfSquare(state->ParseMove("a5-a6")->from));
    SearchParams params;
    params.wins_in_five = five;
    // Off with it: the attackers' replies would find the threats below.
    params.avoid_unstoppable_threats = five;
    Search search(params, &evaluator, ProverOf(*state), 3);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    const SearchResult result = search.Run(Visits(30));
    if (!five) {
      EXPECT_EQ(result.root_proven, Proven::kNone);
      continue;
    }
    EXPECT_EQ(result.root_proven, Proven::kWin);
    EXPECT_EQ(result.root_proven_plies, 5);
    EXPECT_EQ(result.evaluations, 0u);
    // Played: the attackers' root (known lost, never expanded) is searched
    // and found lost in four plies.
    const Move win = result.best_move;
    ASSERT_TRUE(search.Advance(win).ok());
    const SearchResult after = search.Run(Visits(100));
    EXPECT_EQ(after.root_proven, Proven::kLoss);
    EXPECT_EQ(after.root_proven_plies, 4);
  }
}

TEST(SearchTest, MovesThatAllowAnUnstoppableThreatAreKnownLossesAtExpansion) {
  // Attackers to move; the prince a5 (walled in by his men on a4 and b5)
  // threatens a5-a7, taking a8 against the exit and opening a9 where
  // nothing can then reach a8. Only a8-a7 and
  // a8-a6 stop it; a8's other moves open a9 at once, and e1's seven moves
  // allow the threat. The net is shy of a8's moves.
  auto state = StateOf("tavlei9", "9/t8/9/9/KT7/T8/4T4/9/4t4 a 0");
  const Move saves[] = {ParseMove(*state, "a8-a7"), ParseMove(*state, "a8-a6")};
  auto is_save = [&](Move move) {
    return move == saves[0] || move == saves[1];
  };
  for (const bool avoid : {true, false}) {
    SCOPED_TRACE(avoid);
    FakeEvaluator evaluator(ShyOfSquare(saves[0].from));
    SearchParams params;
    params.avoid_unstoppable_threats = avoid;
    Search search(params, &evaluator, ProverOf(*state), 3);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    const SearchResult result = search.Run(Visits(20));
    EXPECT_TRUE(is_save(result.best_move));
    int losses_in_two = 0;
    int losses_in_four = 0;
    uint64_t visits_to_losses = 0;
    for (const MoveInfo& info : result.moves) {
      if (is_save(info.move)) continue;
      EXPECT_EQ(info.proven, Proven::kLoss) << state->MoveText(info.move);
      losses_in_two += info.proven_plies == 2;
      losses_in_four += info.proven_plies == 4;
      visits_to_losses += info.visits;
      if (avoid) {
        EXPECT_EQ(info.prior, 0.0f);
      }
    }
    EXPECT_EQ(losses_in_two, 8);
    EXPECT_EQ(losses_in_four, 7);
    // Known at expansion, or found by visits to each of e1's moves.
    if (avoid) {
      EXPECT_EQ(visits_to_losses, 0u);
    } else {
      EXPECT_GE(visits_to_losses, 7u);
    }
    ExpectConsistentTree(search.root());
  }
  // With b8 for a8 every move loses: b8-a8 in four plies, the others in
  // two. Known at once.
  auto lost = StateOf("tavlei9", "9/1t7/9/9/KT7/T8/4T4/9/4t4 a 0");
  nn::UniformEvaluator evaluator;
  Search search(SearchParams(), &evaluator, ProverOf(*lost), 3);
  ASSERT_TRUE(search.SetPosition(*lost).ok());
  const SearchResult result = search.Run(Visits(100));
  EXPECT_EQ(result.root_proven, Proven::kLoss);
  EXPECT_EQ(result.root_proven_plies, 4);
  EXPECT_EQ(result.evaluations, 0u);
  EXPECT_EQ(result.best_move, ParseMove(*lost, "b8-a8"));
}

TEST(SearchTest, FindsTavleiWinsInTwo) {
  for (const auto& [text, first] :
       std::vector<std::pair<std::string, std::string>>{
           // The prince goes to i5, from where i1 and i9 both open.
           {"7t1/9/9/9/2t2K3/t4t3/7t1/8T/9 d 0", "f5-i5"},
           {"4t1K2/t5T2/9/9/2t6/6tt1/9/2T6/9 a 0", "h4-h9"}}) {
    SCOPED_TRACE(text);
    auto state = StateOf("tavlei9", text);
    nn::UniformEvaluator evaluator;
    Search search(SearchParams(), &evaluator, ProverOf(*state), 7);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    SearchLimits limits;
    // The proof of f5-i5 takes ~165k visits with uniform priors (every
    // attacker reply must be refuted); it stops as soon as proven.
    limits.visits = 1000000;
    const SearchResult result = search.Run(limits);
    EXPECT_EQ(result.best_move, ParseMove(*state, first));
    EXPECT_EQ(result.root_proven, Proven::kWin);
    EXPECT_EQ(result.root_proven_plies, 3);
  }
}

// One-pile Nim (tests/nim/module.h), a game only the tests register: the
// player to move wins exactly when the pile is not a multiple of 4, by
// taking pile % 4 stones, in 2 * (pile / 4) + 1 plies.
TEST(SearchTest, FindsAndProvesNimWins) {
  ASSERT_TRUE(kNimRegistered);
  for (int pile : {1, 2, 3, 5, 6, 7, 9, 10}) {
    SCOPED_TRACE(pile);
    auto state = StateOf("nim", Cat(pile, " 0"));
    nn::UniformEvaluator evaluator;
    Search search(SearchParams(), &evaluator, ProverOf(*state), 3);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    const SearchResult result = search.Run(Visits(1000000));
    EXPECT_EQ(result.best_move, ParseMove(*state, Cat(pile % 4)));
    EXPECT_EQ(result.root_proven, Proven::kWin);
    EXPECT_EQ(result.root_proven_plies, 2 * (pile / 4) + 1);
    EXPECT_EQ(result.stop_reason, StopReason::kProven);
  }
}

// Moves left (SearchParams::mlh_slope): from a pile of 20, every position
// is worth 0.9 to the player to move at the root (winning) or -0.9
// (losing), whatever the move; only the net's plies to the end differ (10
// per stone). Winning, the search should spend its visits on the move that
// ends the game soonest (take 3); losing, on the one that drags it out
// (take 1); without the head's numbers, or with mlh_slope 0, it cannot tell.
std::map<int, uint32_t> NimVisitsWithMovesLeft(bool winning, double slope,
                                               bool head) {
  // 60 visits stay well above the end of the game (7 plies at best).
  auto game = MakeGame("nim", {{"stones", 20}});
  EXPECT_TRUE(game.ok());
  auto state = (*game)->NewInitialState();
  FakeEvaluator evaluator(nullptr, [winning](const GameState& s) {
    const bool good = (s.SideToMove() == 0) == winning;
    return good ? std::array<float, 3>{0.95f, 0, 0.05f}
                : std::array<float, 3>{0.05f, 0, 0.95f};
  });
  if (head) {
    evaluator.set_moves_left(
        [](const GameState& s) { return 10.0f * std::stoi(s.PositionText()); });
  }
  SearchParams params;
  params.mlh_slope = slope;
  params.mlh_cap = 0.2;
  params.minibatch_size = 1;
  Search search(params, &evaluator, nullptr, 1);
  EXPECT_TRUE(search.SetPosition(*state).ok());
  const SearchResult result = search.Run(Visits(60));
  std::map<int, uint32_t> visits;
  for (const MoveInfo& info : result.moves) {
    visits[std::stoi(state->MoveText(info.move))] = info.visits;
  }
  return visits;
}

TEST(SearchTest, MovesLeftPrefersTheShorterWinAndTheLongerLoss) {
  ASSERT_TRUE(kNimRegistered);
  std::map<int, uint32_t> win = NimVisitsWithMovesLeft(true, 0.01, true);
  EXPECT_GT(win[3], win[2]);
  EXPECT_GT(win[2], win[1]);
  EXPECT_GT(win[3], win[1] + 5);  // 26 and 14 when written
  std::map<int, uint32_t> loss = NimVisitsWithMovesLeft(false, 0.01, true);
  EXPECT_GT(loss[1], loss[2]);
  EXPECT_GT(loss[2], loss[3]);
  EXPECT_GT(loss[1], loss[3] + 5);  // 23 and 16 when written
  // Off: the same visits whatever the side, with or without the numbers.
  const std::map<int, uint32_t> off = NimVisitsWithMovesLeft(true, 0, true);
  EXPECT_EQ(off, NimVisitsWithMovesLeft(false, 0, true));
  EXPECT_EQ(off, NimVisitsWithMovesLeft(true, 0.01, false));
  EXPECT_LE(std::max({off.at(1), off.at(2), off.at(3)}) -
                std::min({off.at(1), off.at(2), off.at(3)}),
            2u);
}

// The result reports the mean plies to the end: with a head that says 7
// everywhere, the root's first visit gives 7 and its second, one ply
// deeper, 8 (mean 7.5); the visited move's own mean, counting the move, is
// 8; unvisited moves and a net without the head report -1.
TEST(SearchTest, ResultsReportMovesLeft) {
  ASSERT_TRUE(kNimRegistered);
  auto state = StateOf("nim", "10 0");
  for (bool head : {true, false}) {
    SCOPED_TRACE(head);
    FakeEvaluator evaluator;
    if (head) evaluator.set_moves_left([](const GameState&) { return 7.0f; });
    SearchParams params;
    params.minibatch_size = 1;
    Search search(params, &evaluator, nullptr, 1);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    const SearchResult result = search.Run(Visits(2));
    EXPECT_FLOAT_EQ(result.root_moves_left, head ? 7.5f : -1.0f);
    ASSERT_EQ(result.moves.size(), 3u);
    EXPECT_EQ(result.moves[0].visits, 1u);
    EXPECT_FLOAT_EQ(result.moves[0].moves_left, head ? 8.0f : -1.0f);
    EXPECT_FLOAT_EQ(result.moves[1].moves_left, -1.0f);
  }
}

TEST(SearchTest, ProvesNimLosses) {
  for (int pile : {4, 8}) {
    SCOPED_TRACE(pile);
    auto state = StateOf("nim", Cat(pile, " 1"));
    nn::UniformEvaluator evaluator;
    Search search(SearchParams(), &evaluator, ProverOf(*state), 3);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    const SearchResult result = search.Run(Visits(1000000));
    EXPECT_EQ(result.root_proven, Proven::kLoss);
    // The loser plays on as long as it can: the win needs every ply.
    EXPECT_EQ(result.root_proven_plies, 2 * (pile / 4));
    EXPECT_FLOAT_EQ(result.root_wdl[2], 1.0f);
  }
}

TEST(SearchTest, ReportsTheRootOfAFinishedGame) {
  auto state = StateOf("tavreli", kRookMateInOne);
  state->Play(ParseMove(*state, "h1-h8"));
  nn::UniformEvaluator evaluator;
  Search search(SearchParams(), &evaluator, ProverOf(*state), 1);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  SearchLimits limits;
  limits.visits = 100;
  const SearchResult result = search.Run(limits);
  EXPECT_EQ(result.stop_reason, StopReason::kGameOver);
  EXPECT_TRUE(result.moves.empty());
  EXPECT_TRUE(result.best_move.IsNull());
  EXPECT_EQ(result.root_proven, Proven::kLoss);
  EXPECT_EQ(result.game_result.termination, tavreli::kCheckmate);
  EXPECT_EQ(result.playouts, 0u);
}

TEST(SearchTest, VisitCountsAddUpExactly) {
  for (std::string_view game : {"tavreli", "tavlei9"}) {
    SCOPED_TRACE(game);
    auto state = StateOf(game);
    FakeEvaluator evaluator;
    SearchParams params;
    params.minibatch_size = 8;
    Search search(params, &evaluator, ProverOf(*state), 3);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    SearchLimits limits;
    limits.visits = 5000;
    const SearchResult result = search.Run(limits);
    EXPECT_EQ(result.stop_reason, StopReason::kVisits);
    EXPECT_EQ(result.root_visits, 5000u);
    EXPECT_EQ(result.playouts, 5000u);
    uint64_t sum = 0;
    for (const MoveInfo& info : result.moves) sum += info.visits;
    EXPECT_EQ(sum, 4999u);
    uint64_t distribution_sum = 0;
    for (const auto& [move, visits] : search.RootVisits()) {
      distribution_sum += visits;
    }
    EXPECT_EQ(distribution_sum, 4999u);
    MoveList legal;
    state->LegalMoves(&legal);
    EXPECT_EQ(static_cast<int>(result.moves.size()), legal.size());
    EXPECT_EQ(static_cast<int>(search.RootVisits().size()), legal.size());
    EXPECT_TRUE(legal.contains(result.best_move));
    EXPECT_EQ(result.best_move, result.moves[0].move);
    EXPECT_EQ(result.moves[0].visits,
              std::max_element(result.moves.begin(), result.moves.end(),
                               [](const MoveInfo& a, const MoveInfo& b) {
                                 return a.visits < b.visits;
                               })
                  ->visits);
    ExpectConsistentTree(search.root());
    // Every playout either reached a terminal node or evaluated one leaf.
    EXPECT_LE(result.evaluations, result.playouts);
    EXPECT_EQ(evaluator.bad_requests(), 0);
    // A PV is a legal line.
    const std::vector<Move>& pv = result.moves[0].pv;
    ASSERT_GE(pv.size(), 2u);
    auto line = state->Clone();
    for (Move move : pv) {
      MoveList moves;
      line->LegalMoves(&moves);
      ASSERT_TRUE(moves.contains(move));
      line->Play(move);
    }
    // A second Run continues the same tree.
    limits.visits = 6000;
    const SearchResult more = search.Run(limits);
    EXPECT_EQ(more.root_visits, 6000u);
    EXPECT_EQ(more.playouts, 1000u);
    ExpectConsistentTree(search.root());
  }
}

TEST(SearchTest, TreeReuseKeepsTheSubtree) {
  auto start = StateOf("tavreli");
  nn::UniformEvaluator evaluator;
  Search search(SearchParams(), &evaluator, ProverOf(*start), 5);
  ASSERT_TRUE(search.SetPosition(*start).ok());
  SearchLimits limits;
  limits.visits = 4000;
  const SearchResult first = search.Run(limits);
  const Move m1 = first.moves[0].move;
  const uint32_t m1_visits = first.moves[0].visits;
  // The most visited reply below m1.
  const Node* child = nullptr;
  for (int i = 0; i < search.root()->num_edges; ++i) {
    if (search.root()->edges[i].move == m1) child = search.root()->child(i);
  }
  ASSERT_NE(child, nullptr);
  const Node* reply = nullptr;
  for (const Node* c = child->first_child; c != nullptr; c = c->next_sibling) {
    if (!reply || c->n > reply->n) reply = c;
  }
  ASSERT_NE(reply, nullptr);
  const Move m2 = child->edges[reply->index].move;
  const uint32_t m2_visits = reply->n;
  ASSERT_GT(m2_visits, 1u);
  const uint64_t nodes_before = search.tree_nodes();

  ASSERT_TRUE(search.Advance(m1).ok());
  EXPECT_EQ(search.root()->n, m1_visits);
  EXPECT_LT(search.tree_nodes(), nodes_before);
  EXPECT_EQ(search.root_state().PliesPlayed(), 1);
  // lc0-style: the same start with one more move keeps the grandchild.
  const Move moves[2] = {m1, m2};
  ASSERT_TRUE(search.SetPosition(*start, moves).ok());
  EXPECT_EQ(search.root()->n, m2_visits);
  ExpectConsistentTree(search.root());
  // The kept tree is searched on: visits continue from m2_visits.
  limits.visits = m2_visits + 500;
  const SearchResult next = search.Run(limits);
  EXPECT_EQ(next.root_visits, m2_visits + 500);
  EXPECT_EQ(next.playouts, 500u);
  ExpectConsistentTree(search.root());
  // A different start position means a fresh tree.
  ASSERT_TRUE(search.SetPosition(*StateOf("tavreli", kRookMateInOne)).ok());
  EXPECT_EQ(search.root()->n, 0u);
  EXPECT_EQ(search.tree_nodes(), 1u);
  // Illegal moves are refused and change nothing.
  const Move bad[1] = {MakeMove(0, 63, 1)};
  EXPECT_FALSE(search.SetPosition(*start, bad).ok());
  EXPECT_FALSE(search.Advance(MakeMove(0, 63, 1)).ok());
  EXPECT_EQ(search.tree_nodes(), 1u);
}

TEST(SearchTest, DirichletNoiseOnlyAtTheRootAndOnlyWhenEnabled) {
  auto state = StateOf("tavreli");
  MoveList legal;
  state->LegalMoves(&legal);
  const float uniform = 1.0f / legal.size();
  nn::UniformEvaluator evaluator;
  for (bool noise : {false, true}) {
    SCOPED_TRACE(noise);
    SearchParams params;
    params.root_noise = noise;
    Search search(params, &evaluator, ProverOf(*state), 11);
    ASSERT_TRUE(search.SetPosition(*state).ok());
    SearchLimits limits;
    limits.visits = 3000;
    search.Run(limits);
    const Node* root = search.root();
    double sum = 0;
    int differing = 0;
    for (const Edge& edge : root->edge_span()) {
      sum += edge.prior;
      differing += std::fabs(edge.prior - uniform) > 1e-4;
    }
    EXPECT_NEAR(sum, 1.0, 1e-4);
    if (noise) {
      EXPECT_GT(differing, legal.size() / 2);
    } else {
      EXPECT_EQ(differing, 0);
    }
    // Below the root, priors are the evaluator's (uniform) in both cases.
    int inner_nodes = 0;
    std::vector<const Node*> stack;
    for (const Node* c = root->first_child; c; c = c->next_sibling) {
      stack.push_back(c);
    }
    while (!stack.empty()) {
      const Node* node = stack.back();
      stack.pop_back();
      if (!node->expanded()) continue;
      ++inner_nodes;
      for (const Edge& edge : node->edge_span()) {
        ASSERT_FLOAT_EQ(edge.prior, 1.0f / node->num_edges);
      }
      for (const Node* c = node->first_child; c; c = c->next_sibling) {
        stack.push_back(c);
      }
    }
    EXPECT_GT(inner_nodes, 100);
  }
}

TEST(SearchTest, SameSeedSameSearch) {
  auto state = StateOf("tavreli");
  nn::UniformEvaluator evaluator;
  SearchParams params;
  params.root_noise = true;
  SearchLimits limits;
  limits.visits = 3000;
  auto run = [&](uint64_t seed) {
    Search search(params, &evaluator, ProverOf(*state), seed);
    EXPECT_TRUE(search.SetPosition(*state).ok());
    SearchResult result = search.Run(limits);
    std::vector<Move> samples;
    for (int i = 0; i < 20; ++i) samples.push_back(search.SampleMove(1.0));
    return std::make_pair(result, samples);
  };
  const auto [a, a_samples] = run(42);
  const auto [b, b_samples] = run(42);
  const auto [c, c_samples] = run(43);
  ASSERT_EQ(a.moves.size(), b.moves.size());
  for (size_t i = 0; i < a.moves.size(); ++i) {
    EXPECT_EQ(a.moves[i].move, b.moves[i].move);
    EXPECT_EQ(a.moves[i].visits, b.moves[i].visits);
    EXPECT_EQ(a.moves[i].prior, b.moves[i].prior);
    EXPECT_EQ(a.moves[i].q, b.moves[i].q);
    EXPECT_EQ(a.moves[i].pv, b.moves[i].pv);
  }
  EXPECT_EQ(a.tree_nodes, b.tree_nodes);
  EXPECT_EQ(a_samples, b_samples);
  // Temperature sampling does spread over several moves.
  EXPECT_GT(std::set<uint32_t>([&] {
              std::set<uint32_t> s;
              for (Move m : a_samples) s.insert(m.Packed());
              return s;
            }())
                .size(),
            1u);
  // Another seed draws other noise.
  bool any_prior_differs = false;
  for (const MoveInfo& info : c.moves) {
    const MoveInfo* same = FindMove(a, info.move);
    any_prior_differs |= same->prior != info.prior;
  }
  EXPECT_TRUE(any_prior_differs);
}

TEST(SearchTest, MemoryCapStopsTheTreeAndStillAnswers) {
  auto state = StateOf("tavreli");
  nn::UniformEvaluator evaluator;
  SearchParams params;
  params.ram_limit_mb = 0.25;
  const uint64_t cap = 256 * 1024;
  Search search(params, &evaluator, ProverOf(*state), 1);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  SearchLimits limits;
  limits.visits = 1000000;
  const SearchResult result = search.Run(limits);
  EXPECT_EQ(result.stop_reason, StopReason::kMemory);
  EXPECT_LE(result.tree_bytes, cap);
  EXPECT_GT(result.tree_bytes, cap * 9 / 10);  // it did use the budget
  EXPECT_LT(result.root_visits, 1000000u);
  MoveList legal;
  state->LegalMoves(&legal);
  EXPECT_TRUE(legal.contains(result.best_move));
  ExpectConsistentTree(search.root());
  // Searching on adds nothing.
  const SearchResult again = search.Run(limits);
  EXPECT_EQ(again.stop_reason, StopReason::kMemory);
  EXPECT_EQ(again.tree_nodes, result.tree_nodes);
  EXPECT_EQ(again.tree_bytes, result.tree_bytes);
  EXPECT_TRUE(legal.contains(again.best_move));
  // Even a cap below one expansion answers with a legal move.
  params.ram_limit_mb = 0.0001;
  Search tiny(params, &evaluator, ProverOf(*state), 1);
  ASSERT_TRUE(tiny.SetPosition(*state).ok());
  const SearchResult small = tiny.Run(limits);
  EXPECT_EQ(small.stop_reason, StopReason::kMemory);
  EXPECT_TRUE(legal.contains(small.best_move));
}

TEST(SearchTest, GathersLeavesIntoBatches) {
  auto state = StateOf("tavreli");
  FakeEvaluator evaluator;
  SearchParams params;
  params.minibatch_size = 16;
  Search search(params, &evaluator, ProverOf(*state), 1);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  SearchLimits limits;
  limits.visits = 4000;
  const SearchResult result = search.Run(limits);
  const std::vector<int> sizes = evaluator.batch_sizes();
  ASSERT_FALSE(sizes.empty());
  EXPECT_EQ(sizes.size(), result.batches);
  uint64_t total = 0;
  for (int s : sizes) {
    EXPECT_GE(s, 1);
    EXPECT_LE(s, 16);
    total += s;
  }
  EXPECT_EQ(total, result.evaluations);
  EXPECT_EQ(sizes[0], 1);  // the root alone comes first
  EXPECT_EQ(*std::max_element(sizes.begin(), sizes.end()), 16);
  EXPECT_GT(double(total) / sizes.size(), 8.0);
  EXPECT_EQ(evaluator.bad_requests(), 0);
  ExpectConsistentTree(search.root());
  // Without batching each call holds one position.
  FakeEvaluator single;
  params.minibatch_size = 1;
  Search one(params, &single, ProverOf(*state), 1);
  ASSERT_TRUE(one.SetPosition(*state).ok());
  one.Run(limits);
  for (int s : single.batch_sizes()) ASSERT_EQ(s, 1);
}

TEST(SearchTest, SearchesShareOneEvaluatorAcrossThreads) {
  FakeEvaluator evaluator;
  std::vector<SearchResult> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto state = StateOf(t % 2 ? "tavlei9" : "tavreli");
      Search search(SearchParams(), &evaluator, ProverOf(*state), t);
      EXPECT_TRUE(search.SetPosition(*state).ok());
      SearchLimits limits;
      limits.visits = 2000;
      results[t] = search.Run(limits);
      MoveList legal;
      state->LegalMoves(&legal);
      EXPECT_TRUE(legal.contains(results[t].best_move));
    });
  }
  for (std::thread& t : threads) t.join();
  uint64_t evaluations = 0;
  for (const SearchResult& r : results) {
    EXPECT_EQ(r.root_visits, 2000u);
    evaluations += r.evaluations;
  }
  uint64_t seen = 0;
  for (int s : evaluator.batch_sizes()) seen += s;
  EXPECT_EQ(seen, evaluations);
  EXPECT_EQ(evaluator.bad_requests(), 0);
}

TEST(SearchTest, StopsOnTimeNodesAndTheStopFlag) {
  auto state = StateOf("tavreli");
  nn::UniformEvaluator evaluator;
  Search search(SearchParams(), &evaluator, ProverOf(*state), 1);
  ASSERT_TRUE(search.SetPosition(*state).ok());

  SearchLimits nodes;
  nodes.nodes = 777;
  const SearchResult by_nodes = search.Run(nodes);
  EXPECT_EQ(by_nodes.stop_reason, StopReason::kNodes);
  EXPECT_EQ(by_nodes.playouts, 777u);

  SearchLimits timed;
  timed.time_ms = 100;
  const SearchResult by_time = search.Run(timed);
  EXPECT_EQ(by_time.stop_reason, StopReason::kTime);
  EXPECT_GE(by_time.elapsed_seconds, 0.1);
  EXPECT_GT(by_time.playouts, 0u);

  std::atomic<bool> stop{false};
  std::atomic<int> progress_calls{0};
  SearchLimits infinite;
  infinite.infinite = true;
  infinite.visits = 10;  // ignored when infinite
  infinite.progress_interval_ms = 0;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    // However slow the machine, let the search report once first.
    while (progress_calls == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    stop = true;
  });
  const SearchResult stopped = search.Run(
      infinite,
      [&](const SearchResult& r) {
        ++progress_calls;
        EXPECT_FALSE(r.moves.empty());
      },
      &stop);
  stopper.join();
  // The root already had more than 10 visits: a visits limit that was not
  // ignored would have ended the search at once with kVisits.
  EXPECT_EQ(stopped.stop_reason, StopReason::kStopped);
  EXPECT_GT(stopped.playouts, 0u);
  EXPECT_GT(progress_calls, 0);
  ExpectConsistentTree(search.root());

  // An infinite search of a proven root still waits for the stop flag.
  Search mate(SearchParams(), &evaluator, ProverOf(*StateOf("tavreli")), 1);
  ASSERT_TRUE(mate.SetPosition(*StateOf("tavreli", kRookMateInOne)).ok());
  stop = false;
  std::thread late_stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop = true;
  });
  const SearchResult proven = mate.Run(infinite, {}, &stop);
  // Only the stopper sets the flag: Run returned after it, not on its own.
  const bool stopped_first = stop.load();
  late_stopper.join();
  EXPECT_EQ(proven.stop_reason, StopReason::kProven);
  EXPECT_TRUE(stopped_first);
}

// Issue 19, item 3: UCI's `go depth N` stops at a mean playout depth of N;
// `go mate N` returns once the root is proven won in 2N - 1 plies, without
// waiting for a stop flag that never comes.
TEST(SearchTest, StopsAtADepthAndAtAMate) {
  auto state = StateOf("tavreli");
  nn::UniformEvaluator evaluator;
  Search search(SearchParams(), &evaluator, ProverOf(*state), 1);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  SearchLimits deep;
  deep.depth = 3;
  const SearchResult by_depth = search.Run(deep);
  EXPECT_EQ(by_depth.stop_reason, StopReason::kDepth);
  EXPECT_GE(std::lround(by_depth.average_depth), 3);
  EXPECT_GT(by_depth.playouts, 0u);

  Search mate(SearchParams(), &evaluator, ProverOf(*state), 1);
  ASSERT_TRUE(mate.SetPosition(*StateOf("tavreli", kRookMateInOne)).ok());
  std::atomic<bool> stop{false};
  SearchLimits mate_in_one;
  mate_in_one.mate_plies = 1;
  // A safety net only: the Run must return on its own long before.
  std::atomic<bool> returned{false};
  std::thread safety([&] {
    for (int i = 0; i < 60000 && !returned; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    stop = true;
  });
  const SearchResult found = mate.Run(mate_in_one, {}, &stop);
  const bool stopped_first = stop.load();
  returned = true;
  safety.join();
  EXPECT_FALSE(stopped_first);
  EXPECT_EQ(found.stop_reason, StopReason::kProven);
  EXPECT_EQ(found.best_move,
            ParseMove(*StateOf("tavreli", kRookMateInOne), "h1-h8"));
}

// Issue 19: a move filter (UCI searchmoves, analysis allowMoves and
// avoidMoves) restricts the moves searched at the nodes its rules name; the
// evaluator still sees every legal move.
TEST(SearchTest, MoveFilterRestrictsTheMovesNearTheRoot) {
  auto state = StateOf("tavreli");
  FakeEvaluator evaluator;
  Search search(SearchParams(), &evaluator, ProverOf(*state), 1);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  ASSERT_TRUE(search.Run(Visits(50)).root_visits == 50);
  // Only two white moves at the root; black answers only e7-e5 below it.
  search.SetMoveFilter(
      {{.side = 0,
        .until_depth = 1,
        .allow = true,
        .moves = {"e2-e4", "d2-d4", "nonsense"}},
       {.side = 1, .until_depth = 2, .allow = true, .moves = {"e7-e5"}}});
  SearchResult r = search.Run(Visits(400));
  // The filter forgot the tree grown without it.
  EXPECT_EQ(r.playouts, 400u);
  ASSERT_EQ(r.moves.size(), 2u);
  std::set<std::string> moves;
  for (const MoveInfo& m : r.moves) moves.insert(state->MoveText(m.move));
  EXPECT_EQ(moves, (std::set<std::string>{"d2-d4", "e2-e4"}));
  EXPECT_EQ(r.moves[0].visits + r.moves[1].visits, 399u);
  for (int i = 0; i < search.root()->num_edges; ++i) {
    const Edge& edge = search.root()->edges[i];
    const Node* child = search.root()->child(i);
    ASSERT_NE(child, nullptr);
    ASSERT_TRUE(child->expanded());
    ASSERT_EQ(child->num_edges, 1);
    auto after = state->Clone();
    after->Play(edge.move);
    EXPECT_EQ(after->MoveText(child->edges[0].move), "e7-e5");
    EXPECT_NEAR(child->edges[0].prior, 1.0f, 1e-6);
  }
  ExpectConsistentTree(search.root());
  EXPECT_EQ(evaluator.bad_requests(), 0);
  // The same filter again keeps the tree.
  search.SetMoveFilter(search.move_filter());
  EXPECT_EQ(search.Run(Visits(400)).playouts, 0u);

  // Avoiding the only mate in one: the search plays something else.
  auto mate_state = StateOf("tavreli", kRookMateInOne);
  Search avoid(SearchParams(), &evaluator, ProverOf(*mate_state), 1);
  ASSERT_TRUE(avoid.SetPosition(*mate_state).ok());
  avoid.SetMoveFilter(
      {{.side = 0, .until_depth = 1, .allow = false, .moves = {"h1-h8"}}});
  r = avoid.Run(Visits(300));
  const Move mate = ParseMove(*mate_state, "h1-h8");
  EXPECT_NE(r.best_move, mate);
  EXPECT_EQ(FindMove(r, mate), nullptr);
  EXPECT_FALSE(r.root_proven == Proven::kWin && r.root_proven_plies == 1);
  // A filter that leaves no legal move is ignored there.
  avoid.SetMoveFilter(
      {{.side = 0, .until_depth = 1, .allow = true, .moves = {"a1-a2"}}});
  r = avoid.Run(Visits(300));
  EXPECT_EQ(r.best_move, mate);
  // Another root drops the filter (and the tree grown under it).
  ASSERT_TRUE(avoid.SetPosition(*mate_state, std::vector<Move>{mate}).ok());
  EXPECT_TRUE(avoid.move_filter().empty());
  ASSERT_TRUE(
      search.SetPosition(*state, std::vector<Move>{ParseMove(*state, "e2-e4")})
          .ok());
  EXPECT_TRUE(search.move_filter().empty());
  EXPECT_EQ(search.Run(Visits(10)).playouts, 10u);
}

// The filter under several threads growing one tree (search_threads).
TEST(SearchTest, MoveFilterHoldsWithSeveralThreads) {
  auto state = StateOf("tavreli");
  FakeEvaluator evaluator;
  SearchParams params;
  params.search_threads = 4;
  Search search(params, &evaluator, ProverOf(*state), 1);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  search.SetMoveFilter({{.side = 0,
                         .until_depth = 3,
                         .allow = false,
                         .moves = {"e2-e4", "d2-d4", "a1xb1"}}});
  const SearchResult r = search.Run(Visits(2000));
  EXPECT_EQ(r.root_visits, 2000u);
  MoveList legal;
  state->LegalMoves(&legal);
  EXPECT_EQ(r.moves.size(), static_cast<size_t>(legal.size() - 3));
  for (const MoveInfo& m : r.moves) {
    const std::string text = state->MoveText(m.move);
    EXPECT_TRUE(text != "e2-e4" && text != "d2-d4" && text != "a1xb1") << text;
  }
  ExpectConsistentTree(search.root());
  EXPECT_EQ(evaluator.bad_requests(), 0);
}

TEST(BenchSearchTest, ReportsPlayoutsAndEvaluatorShare) {
  if (access(VOLKHV_BINARY, X_OK) != 0) {
    GTEST_SKIP() << "build the volkhv target first";
  }
  auto run = [](const std::string& args, std::string* out) {
    const std::string command =
        std::string(VOLKHV_BINARY) + " bench search " + args + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
      out->append(buffer, n);
    }
    const int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  std::string out;
  EXPECT_EQ(run("--net random --visits 3000 --batch 8 --runs 2", &out), 0)
      << out;
  EXPECT_NE(out.find("run 1: 3000 playouts in"), std::string::npos) << out;
  EXPECT_NE(out.find("run 2: 3000 playouts in"), std::string::npos) << out;
  EXPECT_NE(out.find("uniform evaluator, minibatch 8, 1 search thread: median"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("% of wall time"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(run("--net random --game tavlei9 --visits 500", &out), 0) << out;
  EXPECT_NE(out.find("tavlei9 start position"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(run("--batch 0", &out), 2);
  EXPECT_NE(out.find("minibatch_size"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(run("--net /nonexistent/some.net", &out), 1);
  EXPECT_NE(out.find("some.net: cannot open"), std::string::npos) << out;
}

TEST(TreeTest, ReleasesADeepTreeWithoutRecursion) {
  // A chain a million nodes deep: recursive freeing would overflow the
  // stack.
  Tree tree;
  tree.Reset();
  Node* node = tree.root();
  const Move move = MakeMove(0, 1, 1);
  for (int i = 0; i < 1000000; ++i) {
    tree.Expand(node, std::span<const Move>(&move, 1));
    node = tree.AddChild(node, 0);
  }
  EXPECT_EQ(tree.nodes(), 1000001u);
  EXPECT_EQ(tree.bytes(), 1000001u * sizeof(Node) + 1000000u * sizeof(Edge));
  // Keeping a subtree frees what lies above it.
  const Move path[2] = {move, move};
  EXPECT_TRUE(tree.Descend(path));
  EXPECT_EQ(tree.nodes(), 1000001u - 2);
  tree.Clear();
  EXPECT_EQ(tree.nodes(), 0u);
  EXPECT_EQ(tree.bytes(), 0u);
  EXPECT_EQ(sizeof(Node), 56u);
  EXPECT_EQ(sizeof(Edge), 8u);
}

TEST(TreeTest, BytesFollowTheDocumentedFormula) {
  // node.h: 56 bytes per node and 8 per edge; an expanded node with k
  // moves adds 8 k.
  Tree tree;
  tree.Reset();
  std::vector<Move> moves;
  for (int i = 0; i < 40; ++i) moves.push_back(MakeMove(i, i + 1, 1));
  tree.Expand(tree.root(), moves);
  EXPECT_EQ(tree.bytes(), 56u + 40u * 8u);
  EXPECT_EQ(Tree::ExpansionBytes(40), 40u * 8u);
  for (int i : {3, 0, 39, 17, 5}) tree.AddChild(tree.root(), i);
  Node* child = tree.root()->child(17);
  ASSERT_NE(child, nullptr);
  tree.Expand(child, std::span<const Move>(moves).first(30));
  EXPECT_EQ(tree.nodes(), 6u);
  EXPECT_EQ(tree.edges(), 70u);
  EXPECT_EQ(tree.bytes(), 6u * 56u + 70u * 8u);
  tree.Clear();
  EXPECT_EQ(tree.bytes(), 0u);
}

// Checks `node`'s children list against `expected` (per edge: the n the
// test gave that edge's child, 0 for none) through Node::child, ChildWalk
// and the list itself.
void ExpectChildren(const Node& node, const std::vector<uint32_t>& expected) {
  ASSERT_EQ(expected.size(), node.num_edges);
  ChildWalk walk(node);
  for (int i = 0; i < node.num_edges; ++i) {
    const Node* by_index = node.child(i);
    const Node* walked = walk.At(i);
    EXPECT_EQ(by_index, walked) << "edge " << i;
    if (expected[i] == 0) {
      EXPECT_EQ(by_index, nullptr) << "edge " << i;
    } else {
      ASSERT_NE(by_index, nullptr) << "edge " << i;
      EXPECT_EQ(by_index->n, expected[i]) << "edge " << i;
      EXPECT_EQ(by_index->index, i);
    }
  }
  int count = 0;
  int last = -1;
  for (const Node* c = node.first_child; c != nullptr; c = c->next_sibling) {
    EXPECT_GT(static_cast<int>(c->index), last);
    last = c->index;
    ++count;
  }
  EXPECT_EQ(count, std::count_if(expected.begin(), expected.end(),
                                 [](uint32_t n) { return n != 0; }));
  const std::vector<const Node*> by_edge = ChildrenByEdge(node);
  for (int i = 0; i < node.num_edges; ++i) {
    EXPECT_EQ(by_edge[i], node.child(i)) << "edge " << i;
  }
}

TEST(TreeTest, ChildLinksMatchTheirEdgesInAnyVisitOrderAndAfterDescend) {
  Rng rng(2024);
  for (int trial = 0; trial < 30; ++trial) {
    SCOPED_TRACE(trial);
    const int k = 1 + trial * 3;
    std::vector<Move> moves;
    for (int i = 0; i < k; ++i) moves.push_back(MakeMove(i, i + 1, 1));
    Tree tree;
    tree.Reset();
    tree.Expand(tree.root(), moves);
    // Visit a random subset of the edges in a random order; each child is
    // marked with n = 1000 + its edge.
    std::vector<int> order(k);
    for (int i = 0; i < k; ++i) order[i] = i;
    for (int i = k - 1; i > 0; --i) {
      std::swap(order[i], order[static_cast<int>(rng.Uniform() * (i + 1))]);
    }
    order.resize(1 + static_cast<int>(rng.Uniform() * k) % k);
    std::vector<uint32_t> expected(k, 0);
    for (int i : order) {
      Node* child = tree.AddChild(tree.root(), i);
      child->n = 1000 + i;
      expected[i] = 1000 + i;
      ExpectChildren(*tree.root(), expected);
    }
    // The first visited child gets children of its own (edges in reverse
    // order of visit), then becomes the root.
    const int kept = order.front();
    Node* kept_node = tree.root()->child(kept);
    tree.Expand(kept_node, moves);
    std::vector<uint32_t> grand(k, 0);
    for (int i = k - 1; i >= 0; i -= 2) {
      tree.AddChild(kept_node, i)->n = 2000 + i;
      grand[i] = 2000 + i;
    }
    const uint64_t grandchildren = (k + 1) / 2;
    ASSERT_EQ(tree.nodes(), 1 + order.size() + grandchildren);
    const Move path[1] = {moves[kept]};
    ASSERT_TRUE(tree.Descend(path));
    ASSERT_EQ(tree.root(), kept_node);
    EXPECT_EQ(tree.root()->next_sibling, nullptr);
    EXPECT_EQ(tree.nodes(), 1 + grandchildren);
    EXPECT_EQ(tree.edges(), static_cast<uint64_t>(k));
    EXPECT_EQ(tree.bytes(), (1 + grandchildren) * 56 + k * 8u);
    ExpectChildren(*tree.root(), grand);
    // A move without a child resets the tree.
    if (grand[0] == 0) {
      const Move missing[1] = {moves[0]};
      EXPECT_FALSE(tree.Descend(missing));
      EXPECT_EQ(tree.nodes(), 1u);
    }
  }
}

}  // namespace
}  // namespace volkhv::search
