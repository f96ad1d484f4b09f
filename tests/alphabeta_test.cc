// The alpha-beta baseline (engine/search/alphabeta.h) with the games'
// heuristics on hand-made positions: mates in one and two (Tavreli
// checkmates, Tavlei escapes and king captures), material won, a poisoned
// capture refused thanks to quiescence, an escape route closed; and the
// baseline players (random, policy) play legal moves. Every "mate in n" is
// also checked by brute force over the game interface (no fewer, and n;
// tests/game_fixtures.h: WinsWithin).
#include "engine/search/alphabeta.h"

#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "engine/games/games.h"
#include "engine/search/centipawns.h"
#include "engine/search/players.h"
#include "engine/tavlei/heuristic.h"
#include "engine/tavlei/module.h"
#include "engine/tavlei/tavlei_state.h"
#include "engine/tavreli/heuristic.h"
#include "engine/tavreli/module.h"
#include "engine/tavreli/tavreli_game.h"
#include "gtest/gtest.h"
#include "nn/evaluator.h"
#include "tests/game_fixtures.h"

namespace volkhv::search {
namespace {

using ::volkhv::testing::StateOf;
using ::volkhv::testing::WinsWithin;

std::shared_ptr<const Heuristic> HeuristicFor(const GameState& state) {
  absl::StatusOr<std::unique_ptr<Heuristic>> h = MakeHeuristic(state.Info());
  EXPECT_TRUE(h.ok()) << h.status().message();
  return std::shared_ptr<const Heuristic>(std::move(*h));
}

AlphaBetaResult SearchDepth(const GameState& state, int depth,
                            int quiescence_plies = 8) {
  std::shared_ptr<const Heuristic> h = HeuristicFor(state);
  AlphaBetaOptions options;
  options.hash_mb = 4;
  options.quiescence_plies = quiescence_plies;
  AlphaBetaSearch search(h.get(), options);
  AlphaBetaLimits limits;
  limits.depth = depth;
  return search.Search(state, limits);
}

// The position is a win in exactly `moves` moves of the side to move.
void ExpectForcedWinIn(std::string_view game, std::string_view text,
                       int moves) {
  std::unique_ptr<GameState> s = StateOf(game, text);
  for (int k = 1; k < moves; ++k) {
    EXPECT_FALSE(WinsWithin(*s, 2 * k - 1)) << text << " wins in " << k;
  }
  EXPECT_TRUE(WinsWithin(*s, 2 * moves - 1)) << text;
}

// Plays the first `plies` moves of the principal variation (all of it by
// default) and returns the final state.
std::unique_ptr<GameState> PlayPv(const GameState& start,
                                  const AlphaBetaResult& r,
                                  size_t plies = 1000) {
  std::unique_ptr<GameState> s = start.Clone();
  for (size_t i = 0; i < r.pv.size() && i < plies; ++i) {
    MoveList legal;
    s->LegalMoves(&legal);
    EXPECT_TRUE(legal.contains(r.pv[i]));
    if (!legal.contains(r.pv[i])) break;
    s->Play(r.pv[i]);
  }
  return s;
}

// ---- Tavreli ----

// The white queen tops a stack over a black rook: only moves that keep the
// rook buried mate (moving the queen alone mostly frees the rook, which then
// takes the queen or blocks), and several queen moves stalemate.
constexpr char kTavreliMateInOne[] = "k7/4(rQ)3/1K6/8/8/8/8/8 w - - 0 1";
constexpr char kTavreliMateInTwo[] = "8/8/4K3/7k/4Q3/8/8/8 w - - 0 1";

TEST(AlphaBetaTavreliTest, MateInOneMovesTheWholeStack) {
  ExpectForcedWinIn("tavreli", kTavreliMateInOne, 1);
  std::unique_ptr<GameState> s = StateOf("tavreli", kTavreliMateInOne);
  const Move freeing = *s->ParseMove("e7(1)-b7");  // the rook takes back
  for (int depth = 1; depth <= 3; ++depth) {
    const AlphaBetaResult r = SearchDepth(*s, depth);
    EXPECT_EQ(r.MatePlies(), 1) << "depth " << depth;
    EXPECT_EQ(r.score, kMateScore - 1);
    EXPECT_NE(r.best_move, freeing);
    std::unique_ptr<GameState> after = s->Clone();
    after->Play(r.best_move);
    EXPECT_EQ(after->Result().termination, tavreli::kCheckmate)
        << s->MoveText(r.best_move);
  }
}

TEST(AlphaBetaTavreliTest, MateInTwo) {
  ExpectForcedWinIn("tavreli", kTavreliMateInTwo, 2);
  std::unique_ptr<GameState> s = StateOf("tavreli", kTavreliMateInTwo);
  const AlphaBetaResult r = SearchDepth(*s, 4);
  EXPECT_EQ(r.MatePlies(), 3);
  EXPECT_EQ(r.depth, 3);  // stops once the mate is proven within the width
  ASSERT_EQ(r.pv.size(), 3u);
  EXPECT_EQ(PlayPv(*s, r)->Result().termination, tavreli::kCheckmate);
  // Seen from the defender after the first move: mated in two plies.
  std::unique_ptr<GameState> defender = s->Clone();
  defender->Play(r.best_move);
  const AlphaBetaResult d = SearchDepth(*defender, 3);
  EXPECT_EQ(d.MatePlies(), -2);
}

TEST(AlphaBetaTavreliTest, TakesAnUndefendedStack) {
  // The black queen tops a black rook on d5; the knight takes both.
  std::unique_ptr<GameState> s =
      StateOf("tavreli", "6k1/8/8/3(rq)4/5N2/8/8/6K1 w - - 0 1");
  const int before = HeuristicFor(*s)->Evaluate(*s);
  EXPECT_LT(before, -900);  // Black has a queen and a rook against a knight
  const AlphaBetaResult r = SearchDepth(*s, 2);
  EXPECT_EQ(s->MoveText(r.best_move), "f4xd5");
  EXPECT_GT(r.score, before + 900);
  EXPECT_GT(r.score, 0);
}

TEST(AlphaBetaTavreliTest, KnightForkWinsTheQueen) {
  // Nc7+ forks the king on e8 and the queen on a8.
  std::unique_ptr<GameState> s =
      StateOf("tavreli", "q3k3/8/8/3N4/8/8/7K/8 w - - 0 1");
  const int before = HeuristicFor(*s)->Evaluate(*s);
  const AlphaBetaResult r = SearchDepth(*s, 3);
  EXPECT_EQ(s->MoveText(r.best_move), "d5-c7");
  EXPECT_GT(r.score, before + 700);
  EXPECT_GT(r.score, 0);
  ASSERT_GE(r.pv.size(), 3u);
  // After the king steps away the knight takes the queen: (qN) on a8.
  EXPECT_NE(PlayPv(*s, r, 3)->PositionText().find("(qN)"), std::string::npos);
}

TEST(AlphaBetaTavreliTest, QuiescenceRefusesAPoisonedPawn) {
  // Qxd5 takes a pawn that e6 defends: exd5 would bury the queen.
  std::unique_ptr<GameState> s =
      StateOf("tavreli", "4k3/8/4ph3/3pq4/8/8/8/3Q2K1 w - - 0 1");
  const Move poisoned = *s->ParseMove("d1xd5");
  // Without quiescence a depth-1 search only sees the pawn.
  EXPECT_EQ(SearchDepth(*s, 1, /*quiescence_plies=*/0).best_move, poisoned);
  for (int depth = 1; depth <= 3; ++depth) {
    const AlphaBetaResult r = SearchDepth(*s, depth);
    EXPECT_NE(r.best_move, poisoned) << "depth " << depth;
    EXPECT_GT(r.score, 500) << "White keeps a queen against pawns";
  }
}

TEST(AlphaBetaTavreliTest, PrisonersCountForTheirOwnSideOnly) {
  using tavreli::kPieceValue;
  // A black pawn buried under a white knight: Black keeps kPrisonerPercent
  // of the pawn, White gets nothing for holding it.
  std::unique_ptr<GameState> held =
      StateOf("tavreli", "4k3/8/8/3(pqN)4/8/8/8/4K3 w - - 0 1");
  tavreli::EvalTerms terms;
  tavreli::EvaluateForWhite(
      static_cast<const tavreli::TavreliState&>(*held).current(), &terms);
  EXPECT_EQ(terms.material[tavreli::kWhite], kPieceValue[tavreli::kKnight]);
  EXPECT_EQ(terms.material[tavreli::kBlack],
            kPieceValue[tavreli::kPawn] * tavreli::kPrisonerPercent / 100);
  // An own piece buried under an own top counts kReservePercent.
  std::unique_ptr<GameState> reserve =
      StateOf("tavreli", "4k3/8/8/3(RN)4/8/8/8/4K3 w - - 0 1");
  tavreli::EvaluateForWhite(
      static_cast<const tavreli::TavreliState&>(*reserve).current(), &terms);
  EXPECT_EQ(terms.material[tavreli::kWhite],
            kPieceValue[tavreli::kKnight] +
                kPieceValue[tavreli::kRook] * tavreli::kReservePercent / 100);
  EXPECT_EQ(terms.material[tavreli::kBlack], 0);
}

TEST(AlphaBetaTavreliTest, StartPositionIsRoughlyEven) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame("tavreli");
  std::unique_ptr<GameState> s = (*game)->NewInitialState();
  std::shared_ptr<const Heuristic> h = HeuristicFor(*s);
  EXPECT_LT(std::abs(h->Evaluate(*s)), 50);
  const AlphaBetaResult r = SearchDepth(*s, 3);
  MoveList legal;
  s->LegalMoves(&legal);
  EXPECT_TRUE(legal.contains(r.best_move));
  EXPECT_LT(std::abs(r.score), 200);
  EXPECT_EQ(r.depth, 3);
}

// ---- Tavlei ----

TEST(AlphaBetaTavleiTest, PrinceEscapesInOne) {
  std::unique_ptr<GameState> s =
      StateOf("tavlei9", "4t4/9/9/9/9/9/K8/9/4t4 d 0");
  const AlphaBetaResult r = SearchDepth(*s, 2);
  EXPECT_EQ(r.MatePlies(), 1);
  std::unique_ptr<GameState> after = s->Clone();
  after->Play(r.best_move);
  EXPECT_EQ(after->Result().termination, tavlei::kKingEscaped);
}

TEST(AlphaBetaTavleiTest, AttackersCaptureThePrinceInOne) {
  std::unique_ptr<GameState> s =
      StateOf("tavlei9", "9/9/tK1t5/9/9/9/9/9/4T4 a 0");
  const AlphaBetaResult r = SearchDepth(*s, 2);
  EXPECT_EQ(r.MatePlies(), 1);
  EXPECT_EQ(s->MoveText(r.best_move), "d7-c7xb7");
}

TEST(AlphaBetaTavleiTest, PrinceForksTwoExitsInTwo) {
  // The prince reaches a square with open lines to two exits.
  constexpr char kPosition[] = "4T4/9/3t5/3T5/7t1/6K2/8t/t4t3/9 d 0";
  ExpectForcedWinIn("tavlei9", kPosition, 2);
  std::unique_ptr<GameState> s = StateOf("tavlei9", kPosition);
  const AlphaBetaResult r = SearchDepth(*s, 3);
  EXPECT_EQ(r.MatePlies(), 3);
  EXPECT_EQ(PlayPv(*s, r)->Result().termination, tavlei::kKingEscaped);
}

TEST(AlphaBetaTavleiTest, AttackersCaptureThePrinceInTwo) {
  constexpr char kPosition[] = "9/1K2t4/2t6/tt7/9/7t1/4t4/8T/9 a 0";
  ExpectForcedWinIn("tavlei9", kPosition, 2);
  std::unique_ptr<GameState> s = StateOf("tavlei9", kPosition);
  const AlphaBetaResult r = SearchDepth(*s, 3);
  EXPECT_EQ(r.MatePlies(), 3);
  EXPECT_EQ(PlayPv(*s, r)->Result().termination, tavlei::kKingCaptured);
}

TEST(AlphaBetaTavleiTest, AttackersCloseTheOnlyOpenLine) {
  // The prince on a3 sees the exit a1 (a8 blocks a9); only c2-a2 closes
  // the line.
  std::unique_ptr<GameState> s =
      StateOf("tavlei9", "4t4/t3t4/9/9/9/9/K3t4/2t6/9 a 0");
  ASSERT_TRUE(
      WinsWithin(*StateOf("tavlei9", "4t4/t3t4/9/9/9/9/K3t4/2t6/9 d 0"), 1));
  const AlphaBetaResult r = SearchDepth(*s, 2);
  EXPECT_EQ(s->MoveText(r.best_move), "c2-a2");
  std::unique_ptr<GameState> after = s->Clone();
  after->Play(r.best_move);
  EXPECT_FALSE(WinsWithin(*after, 1));
}

TEST(AlphaBetaTavleiTest, AttackersTakeADefender) {
  // d2-d7 takes the defender on c7 against the attacker on b7.
  std::unique_ptr<GameState> s =
      StateOf("tavlei9", "9/9/1tT6/9/4K4/9/9/3t5/1t7 a 0");
  const AlphaBetaResult r = SearchDepth(*s, 2);
  EXPECT_EQ(s->MoveText(r.best_move), "d2-d7xc7");
}

TEST(AlphaBetaTavleiTest, EscapeRoutesAreCounted) {
  std::unique_ptr<GameState> s =
      StateOf("tavlei9", "4t4/9/9/9/9/9/K8/9/4t4 a 0");
  const auto& t = static_cast<const tavlei::TavleiState&>(*s);
  const tavlei::KingRoutes routes =
      tavlei::FindKingRoutes(t.rules(), t.position());
  EXPECT_EQ(routes.open_lines, 2);  // a1 and a9
  EXPECT_EQ(routes.moves, 1);
  // Next to the exit a9 nobody can close that line; b5 can close the other.
  std::unique_ptr<GameState> corner =
      StateOf("tavlei9", "9/K8/9/9/1t7/9/9/9/4t4 a 0");
  const auto& c = static_cast<const tavlei::TavleiState&>(*corner);
  const tavlei::KingRoutes near =
      tavlei::FindKingRoutes(c.rules(), c.position());
  EXPECT_EQ(near.open_lines, 2);
  EXPECT_EQ(near.unstoppable_lines, 1);
  std::unique_ptr<GameState> far = StateOf(
      "tavlei9", "3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3 a 0");
  const auto& f = static_cast<const tavlei::TavleiState&>(*far);
  EXPECT_EQ(tavlei::FindKingRoutes(f.rules(), f.position()).moves,
            tavlei::KingRoutes::kFar);
}

// ---- Limits, players ----

TEST(AlphaBetaTest, TimeAndNodeLimitsStillGiveALegalMove) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame("tavlei11");
  std::unique_ptr<GameState> s = (*game)->NewInitialState();
  std::shared_ptr<const Heuristic> h = HeuristicFor(*s);
  AlphaBetaSearch search(h.get(), AlphaBetaOptions{});
  MoveList legal;
  s->LegalMoves(&legal);
  AlphaBetaLimits by_nodes;
  by_nodes.nodes = 3000;
  AlphaBetaResult r = search.Search(*s, by_nodes);
  EXPECT_TRUE(legal.contains(r.best_move));
  EXPECT_GE(r.depth, 1);
  AlphaBetaLimits by_time;
  by_time.time_ms = 50;
  r = search.Search(*s, by_time);
  EXPECT_TRUE(legal.contains(r.best_move));
  EXPECT_GE(r.depth, 1);
}

TEST(PlayersTest, RandomPlayerOnlyPlaysLegalMoves) {
  for (std::string_view name : {"tavreli", "tavlei9", "tavlei11"}) {
    absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(name);
    ASSERT_TRUE(game.ok());
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      RandomPlayer player(seed);
      std::unique_ptr<GameState> s = (*game)->NewInitialState();
      std::set<uint32_t> distinct;
      while (!s->Result().IsOver() && s->PliesPlayed() < 300) {
        MoveList legal;
        s->LegalMoves(&legal);
        const Move m = player.ChooseMove(*s);
        ASSERT_TRUE(legal.contains(m)) << name << " seed " << seed;
        distinct.insert(m.Packed());
        s->Play(m);
      }
      EXPECT_GT(distinct.size(), 10u);
    }
    // The same seed plays the same game.
    RandomPlayer a(7), b(7);
    std::unique_ptr<GameState> s = (*game)->NewInitialState();
    for (int i = 0; i < 20 && !s->Result().IsOver(); ++i) {
      const Move m = a.ChooseMove(*s);
      EXPECT_EQ(b.ChooseMove(*s), m);
      s->Play(m);
    }
  }
}

TEST(PlayersTest, PolicyPlayerFollowsThePriors) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame("tavreli");
  std::unique_ptr<GameState> s = (*game)->NewInitialState();
  auto uniform = std::make_shared<nn::UniformEvaluator>();
  MoveList legal;
  s->LegalMoves(&legal);
  // Uniform priors, temperature 0: ties go to the first legal move.
  PolicyPlayer greedy(uniform, 0, 1, "policy");
  EXPECT_EQ(greedy.ChooseMove(*s), legal[0]);
  ASSERT_TRUE(greedy.LastEval().has_value());
  EXPECT_EQ(greedy.LastEval()->score_cp, 0);  // W = D = L
  // Temperature 1 samples among them.
  PolicyPlayer sampler(uniform, 1, 1, "policy");
  std::set<uint32_t> seen;
  for (int i = 0; i < 50; ++i) {
    const Move m = sampler.ChooseMove(*s);
    EXPECT_TRUE(legal.contains(m));
    seen.insert(m.Packed());
  }
  EXPECT_GT(seen.size(), 10u);
}

TEST(PlayersTest, EvaluationComments) {
  PlayerEval e;
  e.score_cp = 35;
  e.depth = 3;
  EXPECT_EQ(e.Comment(), "+0.35/3");
  e.score_cp = -1250;
  EXPECT_EQ(e.Comment(), "-12.50/3");
  e.mate_plies = 3;
  e.depth = 5;
  EXPECT_EQ(e.Comment(), "+M2/5");
  e.mate_plies = -4;
  EXPECT_EQ(e.Comment(), "-M2/5");
  PlayerEval v;
  v.score_cp = 12;
  v.nodes = 200;
  EXPECT_EQ(v.Comment(), "+0.12 200v");
  EXPECT_EQ(CentipawnsFromQ(0), 0);
  EXPECT_EQ(CentipawnsFromQ(0.5), 89);
  EXPECT_EQ(CentipawnsFromQ(-0.5), -89);
}

}  // namespace
}  // namespace volkhv::search
