// Captures resolved at the leaves (leaf_quiescence_weight, search_params.h):
// AlphaBetaSearch::QuiescenceScore on hand-made Tavreli positions, the
// exact mix of the network's value and the quiescence value, its depths
// (noisy plies and recaptures), the prior its best move is given, and a
// hanging queen found with uniform priors.
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/games/games.h"
#include "engine/search/alphabeta.h"
#include "engine/search/search.h"
#include "engine/search/search_params.h"
#include "engine/tavreli/module.h"
#include "gtest/gtest.h"
#include "nn/evaluator.h"
#include "tests/game_fixtures.h"
#include "tests/tree_checks.h"

namespace volkhv::search {
namespace {

using ::volkhv::testing::StateOf;
using ::volkhv::testing::Visits;

// White to move: the black queen on d5 hangs to the white queen on d1.
constexpr char kHangingQueen[] = "3k4/8/8/3q4/8/8/8/3Q2K1 w - - 0 1";
// White to move: Qxd5 takes a pawn that e6 defends (exd5 buries the queen).
constexpr char kPoisonedPawn[] = "4k3/8/4ph3/3pq4/8/8/8/3Q2K1 w - - 0 1";

std::unique_ptr<Heuristic> HeuristicFor(const GameState& state) {
  absl::StatusOr<std::unique_ptr<Heuristic>> h = MakeHeuristic(state.Info());
  EXPECT_TRUE(h.ok()) << h.status().message();
  return *std::move(h);
}

int QuiescenceOf(GameState* state,
                 int plies = SearchParams().leaf_quiescence_plies,
                 int recaptures = SearchParams().leaf_quiescence_recaptures) {
  std::unique_ptr<Heuristic> h = HeuristicFor(*state);
  AlphaBetaOptions options;
  options.quiescence_plies = plies;
  options.recapture_plies = recaptures;
  AlphaBetaSearch search(h.get(), options);
  return search.QuiescenceScore(state);
}

// The quiescence alone at the leaves (leaf_search_depth 0, no root search);
// LeafSearchTest below sets the depths.
SearchParams WithQuiescence(double weight) {
  SearchParams params;
  params.leaf_quiescence_weight = weight;
  params.leaf_search_depth = 0;
  params.root_search_depth = 0;
  return params;
}

TEST(AlphaBetaQuiescenceTest, ScoresTheCaptureAndLeavesTheStateAsItWas) {
  std::unique_ptr<GameState> s = StateOf("tavreli", kHangingQueen);
  const std::string text = s->PositionText();
  const uint64_t hash = s->Hash();
  const int stand_pat = HeuristicFor(*s)->Evaluate(*s);
  const int score = QuiescenceOf(s.get());
  EXPECT_GT(score, stand_pat + 700) << "the queen is won";
  EXPECT_EQ(s->PositionText(), text);
  EXPECT_EQ(s->Hash(), hash);
}

TEST(AlphaBetaQuiescenceTest, StandsPatRatherThanTakeAPoisonedPawn) {
  std::unique_ptr<GameState> s = StateOf("tavreli", kPoisonedPawn);
  const int stand_pat = HeuristicFor(*s)->Evaluate(*s);
  EXPECT_EQ(QuiescenceOf(s.get()), stand_pat);
}

TEST(AlphaBetaQuiescenceTest, RecapturesPastTheLastPlySeeTheExchangeToItsEnd) {
  std::unique_ptr<GameState> s = StateOf("tavreli", kPoisonedPawn);
  const int stand_pat = HeuristicFor(*s)->Evaluate(*s);
  // Cut after Qxd5, the pawn looks won; one recapture more buries the queen.
  EXPECT_GT(QuiescenceOf(s.get(), 1, 0), stand_pat + 50);
  EXPECT_EQ(QuiescenceOf(s.get(), 1, 1), stand_pat);
  EXPECT_EQ(QuiescenceOf(s.get(), 1, 1), QuiescenceOf(s.get(), 2, 0));
  // The hanging queen: a capture with no recapture, the same at any count.
  std::unique_ptr<GameState> q = StateOf("tavreli", kHangingQueen);
  EXPECT_EQ(QuiescenceOf(q.get(), 1, 0), QuiescenceOf(q.get(), 1, 8));
}

TEST(AlphaBetaQuiescenceTest, NamesTheMoveItsScoreComesFrom) {
  std::unique_ptr<GameState> q = StateOf("tavreli", kHangingQueen);
  std::unique_ptr<Heuristic> h = HeuristicFor(*q);
  AlphaBetaSearch search(h.get(), AlphaBetaOptions{});
  Move move;
  search.QuiescenceScore(q.get(), &move);
  EXPECT_EQ(q->MoveText(move), "d1xd5");
  // Standing pat is best: no move.
  std::unique_ptr<GameState> pawn = StateOf("tavreli", kPoisonedPawn);
  search.QuiescenceScore(pawn.get(), &move);
  EXPECT_EQ(move, Move{});
}

// The root's priors after its first visit, by move text.
std::map<std::string, float> RootPriors(double prior_share,
                                        const char* position) {
  std::unique_ptr<GameState> s = StateOf("tavreli", position);
  std::unique_ptr<Heuristic> h = HeuristicFor(*s);
  nn::UniformEvaluator uniform;
  SearchParams params = WithQuiescence(0.5);
  params.leaf_quiescence_prior = prior_share;
  Search search(params, &uniform, nullptr, 1);
  search.SetHeuristic(h.get());
  EXPECT_TRUE(search.SetPosition(*s).ok());
  const SearchResult r = search.Run(Visits(1));
  std::map<std::string, float> priors;
  for (const MoveInfo& m : r.moves) priors[s->MoveText(m.move)] = m.prior;
  return priors;
}

TEST(LeafQuiescenceTest, TheQuiescenceMoveTakesItsShareOfThePriors) {
  const std::map<std::string, float> off = RootPriors(0, kHangingQueen);
  const std::map<std::string, float> on = RootPriors(0.4, kHangingQueen);
  ASSERT_GT(off.size(), 2u);
  ASSERT_EQ(on.size(), off.size());
  const float uniform = 1.0f / off.size();
  double sum = 0;
  for (const auto& [move, prior] : on) {
    SCOPED_TRACE(move);
    EXPECT_NEAR(off.at(move), uniform, 1e-6);
    EXPECT_NEAR(prior, 0.6 * uniform + (move == "d1xd5" ? 0.4 : 0), 1e-6);
    sum += prior;
  }
  EXPECT_NEAR(sum, 1, 1e-5);
  // Where standing pat is best no move is raised.
  EXPECT_EQ(RootPriors(0.4, kPoisonedPawn), RootPriors(0, kPoisonedPawn));
}

TEST(LeafQuiescenceTest, ALeafValueMixesTheNetAndTheQuiescenceScore) {
  std::unique_ptr<GameState> s = StateOf("tavreli", kHangingQueen);
  std::unique_ptr<Heuristic> h = HeuristicFor(*s);
  const int q = QuiescenceOf(s.get());
  nn::UniformEvaluator uniform;  // W = D = L = 1/3: W - L = 0
  for (const double w : {0.0, 0.25, 1.0}) {
    SCOPED_TRACE(w);
    Search search(WithQuiescence(w), &uniform, nullptr, 1);
    search.SetHeuristic(h.get());
    ASSERT_TRUE(search.SetPosition(*s).ok());
    const SearchResult r = search.Run(Visits(1));
    ASSERT_EQ(r.root_visits, 1u);
    const double scale = SearchParams().leaf_quiescence_scale;
    EXPECT_NEAR(r.root_q, w * std::tanh(q / scale), 1e-5);
    EXPECT_NEAR(r.root_wdl[1], (1 - w) / 3, 1e-5);
  }
}

TEST(LeafQuiescenceTest, ItsPliesAndRecapturesTakeEffectBetweenRuns) {
  struct Case {
    const char* position;
    int plies;
    int recaptures;
  };
  const Case cases[] = {{kHangingQueen, 0, 0}, {kHangingQueen, 1, 0},
                        {kHangingQueen, 4, 0}, {kPoisonedPawn, 1, 0},
                        {kPoisonedPawn, 1, 1}, {kPoisonedPawn, 1, 0},
                        {kHangingQueen, 0, 0}};
  std::unique_ptr<Heuristic> h =
      HeuristicFor(*StateOf("tavreli", kHangingQueen));
  const double scale = SearchParams().leaf_quiescence_scale;
  nn::UniformEvaluator uniform;
  SearchParams params = WithQuiescence(1.0);
  Search search(params, &uniform, nullptr, 1);
  search.SetHeuristic(h.get());
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << c.position << " " << c.plies << "+" << c.recaptures);
    std::unique_ptr<GameState> s = StateOf("tavreli", c.position);
    params.leaf_quiescence_plies = c.plies;
    params.leaf_quiescence_recaptures = c.recaptures;
    search.SetParams(params);
    search.ClearTree();
    ASSERT_TRUE(search.SetPosition(*s).ok());
    const SearchResult r = search.Run(Visits(1));
    EXPECT_NEAR(r.root_q,
                std::tanh(QuiescenceOf(s.get(), c.plies, c.recaptures) / scale),
                1e-5);
  }
  // The cases differ: without quiescence the queen is not taken yet, and
  // the recapture shows the pawn poisoned.
  std::unique_ptr<GameState> queen = StateOf("tavreli", kHangingQueen);
  EXPECT_EQ(QuiescenceOf(queen.get(), 0, 0), h->Evaluate(*queen));
  EXPECT_GT(QuiescenceOf(queen.get(), 1, 0), h->Evaluate(*queen) + 700);
  std::unique_ptr<GameState> pawn = StateOf("tavreli", kPoisonedPawn);
  EXPECT_NE(QuiescenceOf(pawn.get(), 1, 0), QuiescenceOf(pawn.get(), 1, 1));
}

TEST(LeafQuiescenceTest, WithoutAHeuristicTheWeightHasNoEffect) {
  std::unique_ptr<GameState> s = StateOf("tavreli", kHangingQueen);
  nn::UniformEvaluator uniform;
  Search search(WithQuiescence(1.0), &uniform, nullptr, 1);
  ASSERT_TRUE(search.SetPosition(*s).ok());
  const SearchResult r = search.Run(Visits(1));
  EXPECT_NEAR(r.root_q, 0, 1e-6);
  EXPECT_NEAR(r.root_wdl[1], 1.0 / 3, 1e-6);
}

TEST(LeafQuiescenceTest, UniformPriorsFindTheHangingQueen) {
  std::unique_ptr<GameState> s = StateOf("tavreli", kHangingQueen);
  std::unique_ptr<Heuristic> h = HeuristicFor(*s);
  nn::UniformEvaluator uniform;
  Search search(WithQuiescence(1.0), &uniform, nullptr, 1);
  search.SetHeuristic(h.get());
  ASSERT_TRUE(search.SetPosition(*s).ok());
  const SearchResult r = search.Run(Visits(200));
  ASSERT_FALSE(r.moves.empty());
  EXPECT_EQ(s->MoveText(r.best_move), "d1xd5");
  EXPECT_GT(r.moves[0].q, 0.5) << "a queen up";
}

// Black to move, from a game the bundled net lost: the bishop's d6xe5 takes
// the tower on e5, and d4xe5 takes it back with the bishop buried in it:
// -260 cp for Black in the leaves' quiescence.
constexpr char kRecapturedBishop[] =
    "rn1qk1nr/pr1pb4pr/3bb3/3pq(phN)pbpn1/1pn1PQ4/PR1N5/1PNPB1PHPBPNPR/"
    "R1BQKB1R b kq d3 0 9";

MoveInfo InfoOf(const SearchResult& r, const GameState& s,
                std::string_view move) {
  for (const MoveInfo& m : r.moves) {
    if (s.MoveText(m.move) == move) return m;
  }
  ADD_FAILURE() << move << " is not a root move";
  return MoveInfo{};
}

TEST(LeafQuiescenceTest, TheRaisedPriorKeepsTheRecaptureFromBeingAveragedAway) {
  std::unique_ptr<GameState> s = StateOf("tavreli", kRecapturedBishop);
  std::unique_ptr<Heuristic> h = HeuristicFor(*s);
  nn::UniformEvaluator uniform;
  auto search_with = [&](double share) {
    SearchParams params = WithQuiescence(0.5);
    params.leaf_quiescence_prior = share;
    Search search(params, &uniform, nullptr, 1);
    search.SetHeuristic(h.get());
    EXPECT_TRUE(search.SetPosition(*s).ok());
    return InfoOf(search.Run(Visits(800)), *s, "d6xe5");
  };
  // Without it White's 46 replies get about a visit each, and their mean
  // makes the losing capture look good enough to search it on and on.
  const MoveInfo averaged = search_with(0);
  EXPECT_GT(averaged.q, 0);
  EXPECT_GT(averaged.visits, 50u);
  // With it the recapture is searched first and most: the capture keeps
  // the quiescence's verdict, 0.5 * tanh(-260 / 300) = -0.35, and is left.
  const MoveInfo raised = search_with(0.5);
  EXPECT_LT(raised.q, -0.3);
  EXPECT_LT(raised.visits, 10u);
}

// White to move, a queen each and no capture on: depth 1 finds a quiet move
// (d1-d8, check) better than standing pat, which quiescence never plays.
constexpr char kQuietMoveBest[] = "7k/q7/8/8/8/8/8/3Q3K w - - 0 1";

// The alpha-beta search of `depth` plies with the leaves' quiescence.
AlphaBetaResult SearchToDepth(const GameState& state, int depth) {
  std::unique_ptr<Heuristic> h = HeuristicFor(state);
  AlphaBetaOptions options;
  options.quiescence_plies = SearchParams().leaf_quiescence_plies;
  options.recapture_plies = SearchParams().leaf_quiescence_recaptures;
  AlphaBetaSearch search(h.get(), options);
  AlphaBetaLimits limits;
  limits.depth = depth;
  return search.Search(state, limits);
}

AlphaBetaResult DepthOneOf(const GameState& state) {
  return SearchToDepth(state, 1);
}

TEST(LeafSearchTest, ALeafIsScoredByTheAlphaBetaSearchOfItsDepth) {
  const double scale = SearchParams().leaf_quiescence_scale;
  nn::UniformEvaluator uniform;
  for (const char* position : {kHangingQueen, kPoisonedPawn, kQuietMoveBest}) {
    SCOPED_TRACE(position);
    std::unique_ptr<GameState> s = StateOf("tavreli", position);
    std::unique_ptr<Heuristic> h = HeuristicFor(*s);
    const AlphaBetaResult expected = DepthOneOf(*s);
    SearchParams params = WithQuiescence(1.0);
    params.leaf_search_depth = SearchParams().leaf_search_depth;  // Tavreli's
    Search search(params, &uniform, nullptr, 1);
    search.SetHeuristic(h.get());
    ASSERT_TRUE(search.SetPosition(*s).ok());
    const SearchResult r = search.Run(Visits(1));
    EXPECT_NEAR(r.root_q, std::tanh(expected.score / scale), 1e-5);
    // The search's best move, quiet or not, takes the prior's share.
    const float uniform_prior = 1.0f / r.moves.size();
    const double share = SearchParams().leaf_quiescence_prior;
    EXPECT_NEAR(InfoOf(r, *s, s->MoveText(expected.best_move)).prior,
                (1 - share) * uniform_prior + share, 1e-6);
  }
  // The game's choice, measured at equal time (docs/search.md).
  EXPECT_EQ(SearchParams().leaf_search_depth, -1);
  EXPECT_EQ(HeuristicFor(*StateOf("tavreli"))->LeafSearchDepth(), 1);
  EXPECT_EQ(HeuristicFor(*StateOf("tavlei9"))->LeafSearchDepth(), 1);
  EXPECT_EQ(HeuristicFor(*StateOf("tavlei11"))->LeafSearchDepth(), 0);
  EXPECT_EQ(SearchParams().root_search_depth, -1);
  EXPECT_EQ(HeuristicFor(*StateOf("tavreli"))->RootSearchDepth(), 4);
  EXPECT_EQ(HeuristicFor(*StateOf("tavlei9"))->RootSearchDepth(), 3);
  EXPECT_EQ(HeuristicFor(*StateOf("tavlei11"))->RootSearchDepth(), 3);
  // Where a quiet move is best the two leaf scores differ.
  std::unique_ptr<GameState> quiet = StateOf("tavreli", kQuietMoveBest);
  EXPECT_GT(DepthOneOf(*quiet).score, QuiescenceOf(quiet.get()));
}

// root_search_depth: once per root, the best move of the root's own
// alpha-beta search takes root_search_prior of the root's priors
// (leaf_quiescence_prior when -1), on top of what the leaves' search gave it.
TEST(LeafSearchTest, TheRootsOwnSearchRaisesItsBestMoveOnce) {
  nn::UniformEvaluator uniform;
  // From a random game.
  std::unique_ptr<GameState> s =
      StateOf("tavreli",
              "rnb2bnr/1qpbpq(phk)pbpnpr/1pn6/pr3PH3/8/PR5K1/1(PNB)PBPQ1PBPNPR/"
              "RN1Q1BNR w - - 1 7");
  std::unique_ptr<Heuristic> h = HeuristicFor(*s);
  const Move best = SearchToDepth(*s, 3).best_move;
  // The depth counts: one ply less finds another move.
  EXPECT_NE(best, DepthOneOf(*s).best_move);
  EXPECT_EQ(SearchParams().root_search_prior, -1);
  const double leaf_share = SearchParams().leaf_quiescence_prior;
  constexpr double kRootShare = 0.8;
  // By (root_search_depth, root_search_prior).
  std::map<std::pair<int, double>, std::map<Move, float>> priors;
  for (const auto& key :
       {std::pair(0, -1.0), std::pair(3, -1.0), std::pair(3, kRootShare)}) {
    SearchParams params = WithQuiescence(0.5);
    params.leaf_search_depth = 1;
    params.root_search_depth = key.first;
    params.root_search_prior = key.second;
    Search search(params, &uniform, nullptr, 1);
    search.SetHeuristic(h.get());
    ASSERT_TRUE(search.SetPosition(*s).ok());
    for (const MoveInfo& info : search.Run(Visits(2)).moves) {
      priors[key][info.move] = info.prior;
    }
    // A second Run on the same root leaves its priors as they are.
    for (const MoveInfo& info : search.Run(Visits(50)).moves) {
      EXPECT_FLOAT_EQ(info.prior, priors[key][info.move]);
    }
  }
  const std::map<Move, float>& none = priors[{0, -1.0}];
  for (const auto& [key, share] :
       {std::pair(std::pair(3, -1.0), leaf_share),
        std::pair(std::pair(3, kRootShare), kRootShare)}) {
    ASSERT_EQ(priors[key].size(), none.size());
    for (const auto& [move, prior] : none) {
      EXPECT_NEAR(priors[key][move],
                  (1 - share) * prior + (move == best ? share : 0), 1e-6)
          << s->MoveText(move) << " with root_search_prior " << key.second;
    }
  }
}

// Uniform, except that in `root` (a position text) the net wants one move
// (`first`, 0.9 of the prior) and then another (`second`, 0.07; none if
// empty). Value: a draw everywhere. Thread-safe as ReadingEvaluator below.
class FavouriteEvaluator final : public nn::Evaluator {
 public:
  FavouriteEvaluator(std::string root, std::string first, std::string second)
      : root_(std::move(root)),
        first_(std::move(first)),
        second_(std::move(second)) {}
  void Evaluate(std::span<const nn::EvalRequest> requests,
                std::span<nn::Evaluation> results) override {
    for (size_t i = 0; i < requests.size(); ++i) {
      const GameState& state = *requests[i].state;
      const MoveList& legal = *requests[i].legal_moves;
      const int n = legal.size();
      results[i].priors.assign(n, 1.0f / n);
      if (state.PositionText() == root_) {
        for (int k = 0; k < n; ++k) {
          const std::string text = state.MoveText(legal[k]);
          results[i].priors[k] = text == first_    ? 0.9f
                                 : text == second_ ? 0.07f
                                                   : 0.03f / (n - 2);
        }
      }
      results[i].wdl[0] = results[i].wdl[2] = 0.0f;
      results[i].wdl[1] = 1.0f;
    }
  }

 private:
  std::string root_;
  std::string first_;
  std::string second_;
};

// root_veto_margin: the tree's move is played only if a search of it one ply
// shallower than the root's own scores within the margin of the root
// search's best. Here the net wants Qxd5, the pawn that e6 defends; the
// tree, trusting it, ranks Qxd5 first; the check sees the queen lost and
// plays the next-ranked move that passes instead, or the root search's own
// move where it comes first. The ranking the search reports is unchanged.
TEST(LeafSearchTest, TheRootsSearchVetoesAMoveThatLosesMaterial) {
  std::unique_ptr<GameState> s = StateOf("tavreli", kPoisonedPawn);
  std::unique_ptr<Heuristic> h = HeuristicFor(*s);
  constexpr int kRootDepth = 2;
  const AlphaBetaResult root = SearchToDepth(*s, kRootDepth);
  ASSERT_NE(s->MoveText(root.best_move), "d1xd5");
  // The search's score of `move` as the veto sees it: one ply shallower.
  auto score_after = [&](Move move) {
    std::unique_ptr<GameState> child = s->Clone();
    child->Play(move);
    return -SearchToDepth(*child, kRootDepth - 1).score;
  };
  // The net's second choice: none, or the root search's own move.
  for (const std::string& second :
       {std::string(), s->MoveText(root.best_move)}) {
    SCOPED_TRACE(second);
    FavouriteEvaluator net(s->PositionText(), "d1xd5", second);
    std::map<int, SearchResult> results;  // by margin
    for (const int margin : {0, 100}) {
      SCOPED_TRACE(margin);
      SearchParams params = WithQuiescence(0.01);  // the net's value, nearly
      params.leaf_quiescence_prior = 0;            // and its priors
      params.root_search_depth = kRootDepth;
      params.root_veto_margin = margin;
      Search search(params, &net, nullptr, 1);
      search.SetHeuristic(h.get());
      ASSERT_TRUE(search.SetPosition(*s).ok());
      results[margin] = search.Run(Visits(200));
      ASSERT_FALSE(results[margin].moves.empty());
      EXPECT_EQ(s->MoveText(results[margin].moves.front().move), "d1xd5");
      EXPECT_EQ(search.BestMove(), results[margin].best_move);
    }
    EXPECT_EQ(s->MoveText(results[0].best_move), "d1xd5")
        << "without: the tree's";
    const std::vector<MoveInfo>& ranked = results[100].moves;
    EXPECT_LT(score_after(ranked.front().move), root.score - 100);
    // The first of the tree's three best-ranked visited moves that passes,
    // ending at the root search's own move, or else that move.
    Move expected = root.best_move;
    for (size_t i = 0; i < 3 && i < ranked.size(); ++i) {
      if (ranked[i].visits == 0 || ranked[i].move == root.best_move) break;
      if (score_after(ranked[i].move) >= root.score - 100) {
        expected = ranked[i].move;
        break;
      }
    }
    EXPECT_EQ(s->MoveText(results[100].best_move), s->MoveText(expected));
    EXPECT_GE(score_after(results[100].best_move), root.score - 100);
    if (!second.empty()) {
      EXPECT_EQ(ranked[1].move, root.best_move) << "ranked second";
      EXPECT_EQ(results[100].best_move, root.best_move);
    }
  }
}

// A move the root's search agrees with is never vetoed: the hanging queen
// taken.
TEST(LeafSearchTest, TheRootsSearchKeepsAMoveItAgreesWith) {
  std::unique_ptr<GameState> s = StateOf("tavreli", kHangingQueen);
  std::unique_ptr<Heuristic> h = HeuristicFor(*s);
  FavouriteEvaluator net(s->PositionText(), "d1xd5", "");
  SearchParams params = WithQuiescence(0.01);
  params.leaf_quiescence_prior = 0;
  params.root_search_depth = 2;
  params.root_veto_margin = 100;
  Search search(params, &net, nullptr, 1);
  search.SetHeuristic(h.get());
  ASSERT_TRUE(search.SetPosition(*s).ok());
  const SearchResult r = search.Run(Visits(200));
  EXPECT_EQ(s->MoveText(r.best_move), "d1xd5");
  EXPECT_EQ(r.best_move, r.moves.front().move);
}

// Uniform, after reading every leaf as a network's encoder would, and
// noting the thread of each call. Thread-safe (one Evaluate call at a time,
// as one search thread makes them).
class ReadingEvaluator final : public nn::Evaluator {
 public:
  void Evaluate(std::span<const nn::EvalRequest> requests,
                std::span<nn::Evaluation> results) override {
    threads.push_back(std::this_thread::get_id());
    for (size_t i = 0; i < requests.size(); ++i) {
      const GameState& state = *requests[i].state;
      MoveList legal;
      state.LegalMoves(&legal);
      text_bytes += state.PositionText().size() + legal.size();
      const int n = requests[i].legal_moves->size();
      results[i].priors.assign(n, 1.0f / n);
      results[i].wdl[0] = results[i].wdl[1] = results[i].wdl[2] = 1.0f / 3;
    }
  }
  std::vector<std::thread::id> threads;
  size_t text_bytes = 0;
};

// With a leaf search the network runs on a thread of its own while the
// search thread scores the same leaves (scripts/fuzz.sh --thread-tests runs
// this under ThreadSanitizer); without one, on the search thread. Either
// way the tree is the same.
TEST(LeafSearchTest, TheNetworkReadsTheLeavesWhileTheyAreSearched) {
  std::unique_ptr<GameState> s = StateOf("tavreli", kPoisonedPawn);
  std::unique_ptr<Heuristic> h = HeuristicFor(*s);
  std::map<int, SearchResult> results;
  for (const int depth : {0, 1}) {
    SCOPED_TRACE(depth);
    ReadingEvaluator reader;
    SearchParams params = WithQuiescence(0.5);
    params.leaf_search_depth = depth;
    Search search(params, &reader, nullptr, 1);
    search.SetHeuristic(h.get());
    ASSERT_TRUE(search.SetPosition(*s).ok());
    results[depth] = search.Run(Visits(300));
    EXPECT_EQ(results[depth].root_visits, 300u);
    ASSERT_FALSE(reader.threads.empty());
    EXPECT_GT(reader.text_bytes, 0u);
    for (std::thread::id id : reader.threads) {
      if (depth > 0) {
        EXPECT_NE(id, std::this_thread::get_id());
      } else {
        EXPECT_EQ(id, std::this_thread::get_id());
      }
    }
  }
  // The same search with the uniform evaluator gives the same tree.
  nn::UniformEvaluator uniform;
  SearchParams params = WithQuiescence(0.5);
  params.leaf_search_depth = 1;
  Search search(params, &uniform, nullptr, 1);
  search.SetHeuristic(h.get());
  ASSERT_TRUE(search.SetPosition(*s).ok());
  const SearchResult r = search.Run(Visits(300));
  ASSERT_EQ(r.moves.size(), results[1].moves.size());
  for (size_t i = 0; i < r.moves.size(); ++i) {
    EXPECT_EQ(r.moves[i].move, results[1].moves[i].move);
    EXPECT_EQ(r.moves[i].visits, results[1].moves[i].visits);
  }
}

}  // namespace
}  // namespace volkhv::search
