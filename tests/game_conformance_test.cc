// The game-conformance suite: every registered game (the built-in ones and
// the tests' Nim) against the contracts of engine/game/game.h,
// engine/game/encoder.h and engine/game/game_module.h, on positions of
// seeded random playouts: clone, play/undo, hashes, position and move text
// round trips, perft(1), the terminations, the encoder's shape and policy
// indices, the symmetries, the evaluation's range, the prover's claims
// against brute force, the options and the bench positions.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/game/encoder.h"
#include "engine/game/game.h"
#include "engine/game/game_module.h"
#include "engine/game/prover.h"
#include "engine/game/result.h"
#include "engine/games/games.h"
#include "engine/records/game_file_reader.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "tests/game_fixtures.h"
#include "tests/nim/module.h"

namespace volkhv {
namespace {

const bool kNimRegistered = nim::RegisterNim();

constexpr int kPlayouts = 4;
constexpr int kMaxPlies = 60;

// Clones of the start and of every position of kPlayouts random playouts
// (seeded by the game's name) until the game ends or kMaxPlies.
std::vector<std::unique_ptr<GameState>> Positions(const Game& game) {
  std::vector<std::unique_ptr<GameState>> positions;
  uint64_t rng = std::hash<std::string>()(game.Info().name) | 1;
  auto next = [&rng](int n) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((rng >> 33) % static_cast<uint64_t>(n));
  };
  for (int playout = 0; playout < kPlayouts; ++playout) {
    std::unique_ptr<GameState> state = game.NewInitialState();
    if (playout == 0) positions.push_back(state->Clone());
    for (int ply = 0; ply < kMaxPlies && !state->Result().IsOver(); ++ply) {
      MoveList moves;
      state->LegalMoves(&moves);
      if (moves.empty()) break;
      state->Play(moves[next(moves.size())]);
      positions.push_back(state->Clone());
    }
  }
  return positions;
}

std::vector<Move> Legal(const GameState& state) {
  MoveList moves;
  state.LegalMoves(&moves);
  return std::vector<Move>(moves.begin(), moves.end());
}

class GameConformanceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(kNimRegistered);
    module_ = FindGame(GetParam());
    ASSERT_NE(module_, nullptr);
    absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(GetParam());
    ASSERT_TRUE(game.ok()) << game.status().message();
    game_ = *std::move(game);
    positions_ = Positions(*game_);
    ASSERT_GT(positions_.size(), 10u);
  }

  const GameModule* module_ = nullptr;
  std::unique_ptr<Game> game_;
  std::vector<std::unique_ptr<GameState>> positions_;
};

TEST_P(GameConformanceTest, InfoNamesTheGame) {
  EXPECT_EQ(game_->Info().name, GetParam());
  EXPECT_GT(game_->Info().board_width, 0);
  EXPECT_GT(game_->Info().board_height, 0);
  EXPECT_EQ(&game_->NewInitialState()->Info(), &game_->Info());
}

TEST_P(GameConformanceTest, CloneEqualsTheOriginal) {
  for (const auto& state : positions_) {
    const std::unique_ptr<GameState> clone = state->Clone();
    EXPECT_EQ(clone->PositionText(), state->PositionText());
    EXPECT_EQ(clone->Hash(), state->Hash());
    EXPECT_EQ(clone->SideToMove(), state->SideToMove());
    EXPECT_EQ(clone->PliesPlayed(), state->PliesPlayed());
    EXPECT_EQ(clone->Result(), state->Result());
    EXPECT_EQ(clone->Occurrences(), state->Occurrences());
    EXPECT_EQ(Legal(*clone), Legal(*state));
  }
}

TEST_P(GameConformanceTest, PlayThenUndoRestoresThePosition) {
  for (const auto& original : positions_) {
    const std::unique_ptr<GameState> state = original->Clone();
    const std::vector<Move> moves = Legal(*state);
    for (Move move : moves) {
      state->Play(move);
      EXPECT_EQ(state->PliesPlayed(), original->PliesPlayed() + 1);
      EXPECT_NE(state->Hash(), original->Hash())
          << original->PositionText() << " " << original->MoveText(move);
      state->Undo();
      ASSERT_EQ(state->PositionText(), original->PositionText())
          << original->MoveText(move);
      ASSERT_EQ(state->Hash(), original->Hash()) << original->MoveText(move);
      ASSERT_EQ(state->Result(), original->Result());
    }
    EXPECT_EQ(Legal(*state), moves);
  }
}

// Positions still being played: a decided one need not be a valid start
// (a Tavlei board without its prince is refused).
TEST_P(GameConformanceTest, PositionTextRoundTripsWithTheSameHash) {
  for (const auto& state : positions_) {
    if (state->Result().IsOver()) continue;
    const std::string text = state->PositionText();
    absl::StatusOr<std::unique_ptr<GameState>> parsed =
        game_->NewStateFromText(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().message();
    EXPECT_EQ((*parsed)->PositionText(), text);
    EXPECT_EQ((*parsed)->Hash(), state->Hash()) << text;
    EXPECT_EQ((*parsed)->SideToMove(), state->SideToMove()) << text;
    EXPECT_EQ(Legal(**parsed), Legal(*state)) << text;
  }
}

TEST_P(GameConformanceTest, EqualPositionsHashEquallyAndOthersDiffer) {
  std::map<std::string, uint64_t> hash_of;
  std::map<uint64_t, std::string> text_of;
  for (const auto& state : positions_) {
    const std::string text = state->PositionText();
    // Move counters are part of the text but not of the position.
    const auto [it, fresh] = hash_of.emplace(text, state->Hash());
    if (!fresh) EXPECT_EQ(it->second, state->Hash()) << text;
    text_of.emplace(state->Hash(), text);
  }
  // Distinct texts with one hash would be a collision among a few hundred
  // positions: far too unlikely for a 64-bit hash unless it ignores a field
  // (or only counters differ).
  EXPECT_GE(text_of.size() * 10, hash_of.size() * 9);
}

TEST_P(GameConformanceTest, MoveTextRoundTripsForEveryLegalMove) {
  for (const auto& state : positions_) {
    for (Move move : Legal(*state)) {
      const std::string text = state->MoveText(move);
      absl::StatusOr<Move> parsed = state->ParseMove(text);
      ASSERT_TRUE(parsed.ok()) << state->PositionText() << " " << text << ": "
                               << parsed.status().message();
      EXPECT_EQ(*parsed, move) << state->PositionText() << " " << text;
    }
  }
}

TEST_P(GameConformanceTest, PerftOneCountsTheLegalMoves) {
  for (const auto& state : positions_) {
    EXPECT_EQ(state->Perft(1), Legal(*state).size()) << state->PositionText();
    EXPECT_EQ(state->Perft(0), 1u);
  }
}

TEST_P(GameConformanceTest, DecidedPositionsHaveAnOutcomeAndAReason) {
  for (const auto& state : positions_) {
    const GameResult result = state->Result();
    EXPECT_EQ(result.IsOver(), result.termination != Termination::kNone)
        << state->PositionText();
  }
}

// The module's own terminations pass the registry's check and are found by
// their codes; every game played to its end ends for a reason that the
// module or the generic table names.
TEST_P(GameConformanceTest, EveryEndingIsNamedByTheModuleOrGeneric) {
  EXPECT_TRUE(CheckGameModule(*module_).ok()) << CheckGameModule(*module_);
  for (const TerminationInfo& t : module_->terminations) {
    EXPECT_FALSE(IsGenericTermination(TerminationCode(t.termination)));
    EXPECT_EQ(FindTermination(GetParam(), t.termination), &t);
    EXPECT_EQ(TerminationName(GetParam(), t.termination), t.name);
  }
  std::mt19937 rng(7);
  std::set<std::string> endings;
  for (int game = 0; game < 6; ++game) {
    std::unique_ptr<GameState> state = game_->NewInitialState();
    MoveList moves;
    while (!state->Result().IsOver() && state->PliesPlayed() < 1000) {
      state->LegalMoves(&moves);
      ASSERT_FALSE(moves.empty()) << state->PositionText();
      state->Play(moves[rng() % moves.size()]);
    }
    if (!state->Result().IsOver()) continue;
    const Termination t = state->Result().termination;
    ASSERT_NE(FindTermination(GetParam(), t), nullptr)
        << "termination " << TerminationCode(t);
    endings.insert(TerminationName(GetParam(), t));
  }
  EXPECT_FALSE(endings.empty()) << "no random game ended";
}

TEST_P(GameConformanceTest, EncoderWritesItsShapeAndIndexesEveryLegalMove) {
  ASSERT_TRUE(module_->make_encoder) << "every game needs an encoder";
  absl::StatusOr<std::unique_ptr<Encoder>> encoder =
      MakeEncoder(game_->Info(), EncoderOptions{});
  ASSERT_TRUE(encoder.ok()) << encoder.status().message();
  const InputShape shape = (*encoder)->Shape();
  EXPECT_EQ(shape.height, game_->Info().board_height);
  EXPECT_EQ(shape.width, game_->Info().board_width);
  EXPECT_GT(shape.planes, 0);
  EXPECT_EQ((*encoder)->PolicySize(),
            (*encoder)->PolicyChannels() * shape.height * shape.width);
  constexpr float kGuard = 12345.0f;
  std::vector<float> planes(shape.Size() + 16, kGuard);
  for (const auto& state : positions_) {
    std::fill(planes.begin(), planes.end(), kGuard);
    (*encoder)->Encode(*state, planes.data());
    for (int i = 0; i < shape.Size(); ++i) {
      ASSERT_TRUE(std::isfinite(planes[i]) && planes[i] != kGuard)
          << "plane value " << i << " of " << state->PositionText();
    }
    for (int i = shape.Size(); i < static_cast<int>(planes.size()); ++i) {
      ASSERT_EQ(planes[i], kGuard) << "written past the shape";
    }
    EXPECT_EQ((*encoder)->CacheKey(*state->Clone()),
              (*encoder)->CacheKey(*state));

    // A bijection between the legal moves and their indices; a policy map
    // may merge moves that differ only in how many pieces move (documented
    // where it does), never moves between different squares.
    std::map<int, Move> move_of;
    for (Move move : Legal(*state)) {
      const int index = (*encoder)->PolicyIndex(*state, move);
      ASSERT_GE(index, 0) << state->MoveText(move);
      ASSERT_LT(index, (*encoder)->PolicySize()) << state->MoveText(move);
      const auto [it, fresh] = move_of.emplace(index, move);
      if (!fresh) {
        EXPECT_TRUE(it->second.from == move.from && it->second.to == move.to)
            << state->PositionText() << ": " << state->MoveText(it->second)
            << " and " << state->MoveText(move) << " share index " << index;
      }
    }
  }
}

TEST_P(GameConformanceTest, SymmetriesMapLegalMovesToLegalMoves) {
  absl::StatusOr<std::unique_ptr<Encoder>> encoder =
      MakeEncoder(game_->Info(), EncoderOptions{});
  ASSERT_TRUE(encoder.ok()) << encoder.status().message();
  absl::StatusOr<std::vector<BoardSymmetry>> symmetries =
      GameSymmetries(game_->Info(), **encoder);
  ASSERT_TRUE(symmetries.ok()) << symmetries.status().message();
  if (symmetries->empty()) GTEST_SKIP() << "no symmetries but the identity";
  const InputShape shape = (*encoder)->Shape();
  const int squares = shape.height * shape.width;
  std::vector<float> planes(shape.Size()), moved(shape.Size());
  int self_symmetric = 0;
  for (const BoardSymmetry& symmetry : *symmetries) {
    ASSERT_EQ(static_cast<int>(symmetry.squares.size()), squares);
    ASSERT_EQ(static_cast<int>(symmetry.policy.size()),
              (*encoder)->PolicySize());
    // A permutation of the squares, and of the policy indices that stand for
    // moves.
    EXPECT_EQ(
        std::set<int>(symmetry.squares.begin(), symmetry.squares.end()).size(),
        static_cast<size_t>(squares));
    std::set<int> images;
    for (int index : symmetry.policy) {
      if (index < 0) continue;
      ASSERT_LT(index, (*encoder)->PolicySize());
      EXPECT_TRUE(images.insert(index).second)
          << "two indices map to " << index;
    }
    for (const auto& state : positions_) {
      std::set<int> legal, mapped;
      for (Move move : Legal(*state)) {
        const int index = (*encoder)->PolicyIndex(*state, move);
        legal.insert(index);
        ASSERT_GE(symmetry.policy[index], 0) << state->MoveText(move);
        mapped.insert(symmetry.policy[index]);
      }
      EXPECT_EQ(mapped.size(), legal.size());
      // A position the symmetry sends onto itself (as the network sees it)
      // keeps its set of legal moves.
      (*encoder)->Encode(*state, planes.data());
      for (int p = 0; p < shape.planes; ++p) {
        for (int sq = 0; sq < squares; ++sq) {
          moved[p * squares + symmetry.squares[sq]] = planes[p * squares + sq];
        }
      }
      if (moved == planes) {
        ++self_symmetric;
        EXPECT_EQ(mapped, legal) << state->PositionText();
      }
    }
  }
  EXPECT_GT(self_symmetric, 0) << "no position tested the move mapping";
}

TEST_P(GameConformanceTest, EvaluationStaysInsideTheHeuristicRange) {
  if (!module_->make_heuristic) GTEST_SKIP() << "no alpha-beta evaluation";
  absl::StatusOr<std::unique_ptr<Heuristic>> heuristic =
      MakeHeuristic(game_->Info());
  ASSERT_TRUE(heuristic.ok()) << heuristic.status().message();
  EXPECT_EQ((*heuristic)->GameName(), GetParam());
  for (const auto& state : positions_) {
    if (state->Result().IsOver()) continue;
    const int score = (*heuristic)->Evaluate(*state);
    EXPECT_GT(score, -kMaxHeuristicScore) << state->PositionText();
    EXPECT_LT(score, kMaxHeuristicScore) << state->PositionText();
  }
}

// The prover's answers (engine/game/prover.h) against brute force
// (tests/game_fixtures.h: MoveWinsWithin) on positions of random games:
// every move it names is legal and wins, by exhaustive search, within the
// plies it claims (1, 3, 5); MovesAllowingQuickWin marks exactly the moves
// after which its own ImmediateWin (1) or UnstoppableThreat (3) answers,
// the only completeness the contract asks, each such answer confirmed by
// brute force too (or marks none, for a prover that does not look:
// Prover::Kinds); a decided position, and every other game's positions,
// get no answer.
TEST_P(GameConformanceTest, ProverClaimsHoldUnderBruteForce) {
  const Prover* prover = module_->prover;
  if (prover == nullptr) GTEST_SKIP() << "no prover";
  const Prover::Kinds kinds = prover->LooksFor();
  // Brute force tries the prover's own move first: it is the likely win.
  const ::volkhv::testing::FirstTry first = [prover](const GameState& s) {
    const Move win = prover->ImmediateWin(s);
    return win.IsNull() ? prover->UnstoppableThreat(s) : win;
  };
  using ::volkhv::testing::MoveWinsWithin;
  const uint64_t seed = std::hash<std::string>()(GetParam());
  int checked[6] = {0, 0, 0, 0, 0, 0};  // answers brute-forced, by plies
  int marked[4] = {0, 0, 0, 0};  // MovesAllowingQuickWin's marks (threats)
  for (const std::unique_ptr<GameState>& position :
       ::volkhv::testing::RandomPositions(*game_, 400, seed)) {
    GameState& s = *position;
    const std::string text = s.PositionText();
    MoveList legal;
    s.LegalMoves(&legal);
    Move claim = prover->ImmediateWin(s);
    int plies = 1;
    if (claim.IsNull()) {
      claim = prover->UnstoppableThreat(s);
      plies = 3;
    }
    if (claim.IsNull()) {
      claim = prover->WinInFive(s);
      plies = 5;
    }
    if (!claim.IsNull()) {
      ASSERT_TRUE(legal.contains(claim)) << text;
      ASSERT_TRUE(MoveWinsWithin(s, claim, plies, first))
          << text << " " << s.MoveText(claim) << " does not win in " << plies;
      ++checked[plies];
    }
    for (const bool threats : {false, true}) {
      std::vector<uint8_t> win_plies;
      const int count =
          prover->MovesAllowingQuickWin(s, legal, threats, &win_plies);
      int expected_count = 0;
      for (int i = 0; i < legal.size(); ++i) {
        s.Play(legal[i]);
        int expected = 0;
        Move answer;
        if (!s.Result().IsOver()) {
          answer = prover->ImmediateWin(s);
          if (!answer.IsNull()) {
            expected = 1;
          } else if (threats) {
            answer = prover->UnstoppableThreat(s);
            if (!answer.IsNull()) expected = 3;
          }
        }
        // Every immediate win, the first threats (3 plies cost more).
        if (threats && (expected == 1 || (expected == 3 && marked[3] < 40))) {
          EXPECT_TRUE(MoveWinsWithin(s, answer, expected, first))
              << text << " " << s.MoveText(answer);
          ++checked[expected];
        }
        s.Undo();
        if (!kinds.moves_allowing_wins) expected = 0;
        if (count > 0) {
          ASSERT_EQ(win_plies.size(), static_cast<size_t>(legal.size()));
          ASSERT_EQ(win_plies[i], expected)
              << text << " " << s.MoveText(legal[i]) << " threats " << threats;
        }
        expected_count += expected != 0;
        if (threats) ++marked[expected];
      }
      ASSERT_EQ(count, expected_count) << text << " threats " << threats;
    }
  }
  // Each kind of answer the prover looks for came up, or the test proved
  // little; the others never did.
  const auto came_up = [](bool looked_for, int answers) {
    return looked_for ? answers > 10 : answers == 0;
  };
  EXPECT_TRUE(came_up(kinds.immediate_wins, checked[1])) << checked[1];
  EXPECT_TRUE(came_up(kinds.threats, checked[3])) << checked[3];
  EXPECT_TRUE(came_up(kinds.moves_allowing_wins, marked[1])) << marked[1];
  EXPECT_TRUE(came_up(kinds.moves_allowing_wins && kinds.threats, marked[3]))
      << marked[3];

  for (const std::unique_ptr<GameState>& state : positions_) {
    if (state->Result().IsOver()) {
      EXPECT_TRUE(prover->ImmediateWin(*state).IsNull())
          << state->PositionText();
    }
  }
  for (std::string_view other : GameNames()) {
    if (FindGame(other)->prover == prover) continue;
    const std::unique_ptr<Game> game =
        ::volkhv::testing::NewGame(std::string(other));
    for (const auto& state : ::volkhv::testing::RandomPositions(*game, 5, 1)) {
      MoveList legal;
      state->LegalMoves(&legal);
      std::vector<uint8_t> win_plies;
      EXPECT_TRUE(prover->ImmediateWin(*state).IsNull()) << other;
      EXPECT_TRUE(prover->UnstoppableThreat(*state).IsNull()) << other;
      EXPECT_TRUE(prover->WinInFive(*state).IsNull()) << other;
      EXPECT_EQ(prover->MovesAllowingQuickWin(*state, legal, true, &win_plies),
                0)
          << other;
    }
  }
}

TEST_P(GameConformanceTest, OptionsAtTheirBoundsMakeTheGame) {
  for (const GameOptionInfo& option : module_->options) {
    SCOPED_TRACE(option.name);
    EXPECT_LE(option.min, option.default_value);
    EXPECT_LE(option.default_value, option.max);
    for (int value : {option.min, option.default_value, option.max}) {
      absl::StatusOr<std::unique_ptr<Game>> game =
          MakeGame(GetParam(), {{option.name, value}});
      EXPECT_TRUE(game.ok()) << value << ": " << game.status().message();
    }
  }
  const absl::StatusOr<std::unique_ptr<Game>> unknown =
      MakeGame(GetParam(), {{"no_such_option", 1}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(std::string(unknown.status().message()).find("no_such_option"),
            std::string::npos);
}

TEST_P(GameConformanceTest, BenchPositionsAreValid) {
  for (const BenchPosition& p : GameBenchPositions(GetParam())) {
    SCOPED_TRACE(p.name);
    EXPECT_GT(p.depth, 0);
    if (p.text.empty()) continue;
    absl::StatusOr<std::unique_ptr<GameState>> state =
        game_->NewStateFromText(p.text);
    ASSERT_TRUE(state.ok()) << state.status().message();
    EXPECT_GT((*state)->Perft(1), 0u);
  }
}

std::vector<std::string> RegisteredGames() {
  std::vector<std::string> names;
  for (std::string_view name : GameNames()) names.emplace_back(name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllGames, GameConformanceTest,
                         ::testing::ValuesIn(RegisteredGames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(GameRegistryTest, ListsTheBuiltInGamesFirstAndTheRegisteredOnes) {
  const std::vector<std::string> names = RegisteredGames();
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names.front(), DefaultGameName());
  EXPECT_EQ(names.back(), "nim");
  EXPECT_EQ(FindGame("no-such-game"), nullptr);
  const absl::StatusOr<std::unique_ptr<Game>> unknown =
      MakeGame("no-such-game");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(std::string(unknown.status().message()).find(GameNameList()),
            std::string::npos);
}

TEST(GameRegistryTest, GameOptionsTextRoundTrips) {
  const GameOptions options = {{"a_b", 3}, {"c", -1}};
  EXPECT_EQ(GameOptionsText(options), "a_b=3,c=-1");
  EXPECT_EQ(GameOptionsText({}), "");
  absl::StatusOr<GameOptions> parsed = ParseGameOptionsText("a_b=3,c=-1");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, options);
  EXPECT_FALSE(ParseGameOptionsText("a_b").ok());
  EXPECT_FALSE(ParseGameOptionsText("=3").ok());
  EXPECT_FALSE(ParseGameOptionsText("a=x").ok());
}

// The registry refuses a module whose own termination codes are generic
// (or reserved for generic reasons), repeat one another, or lack a name.
TEST(GameRegistryTest, RefusesTerminationsThatCollide) {
  GameModule module = nim::Module();
  module.name = "nim-variant";
  EXPECT_TRUE(CheckGameModule(module).ok());
  const TerminationInfo own = module.terminations.front();

  for (const int code : {0, 3, 8, 9, 10, 11, 12, 31}) {
    module.terminations = {own,
                           {static_cast<Termination>(code), "x", "", "", ""}};
    const absl::Status status = CheckGameModule(module);
    ASSERT_FALSE(status.ok()) << code;
    EXPECT_NE(std::string(status.message()).find("generic"), std::string::npos)
        << status;
  }
  module.terminations = {own, own};
  absl::Status status = CheckGameModule(module);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("twice"), std::string::npos)
      << status;
  module.terminations = {{static_cast<Termination>(33), "", "", "", ""}};
  status = CheckGameModule(module);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("no name"), std::string::npos)
      << status;

  module.terminations = {own, {Termination::kRepetition, "x", "", "", ""}};
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(RegisterGame(module), "nim-variant.*generic");
  EXPECT_EQ(FindGame("nim-variant"), nullptr);
}

// The names every front end printed before terminations moved into the game
// modules, by the codes records store: game files, JSON and `show` print the
// name, `records show` and `records stats` the record name.
TEST(GameRegistryTest, BuiltInTerminationsKeepTheirCodesAndNames) {
  struct Case {
    std::string game;
    int code;
    std::string name, record_name, status;
  };
  const std::vector<Case> cases = {
      {"tavreli", 0, "none", "none", ""},
      {"tavreli", 1, "checkmate", "checkmate", "checkmate"},
      {"tavreli", 2, "stalemate", "stalemate", "stalemate"},
      {"tavreli", 3, "repetition", "repetition", "draw (repetition)"},
      {"tavreli", 4, "fifty-move rule", "fifty moves",
       "draw (fifty-move rule)"},
      {"tavlei9", 3, "repetition", "repetition", "draw (repetition)"},
      {"tavlei9", 5, "no legal move", "no legal move",
       "decided (no legal move)"},
      {"tavlei11", 6, "king captured", "king captured",
       "decided (king captured)"},
      {"tavlei9", 7, "king escaped", "king escaped", "decided (king escaped)"},
      {"tavlei9", 8, "maximum length", "maximum length",
       "draw (maximum length)"},
      {"tavreli", 9, "resignation", "resignation", "decided (resignation)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.game + " " + std::to_string(c.code));
    const auto t = static_cast<Termination>(c.code);
    ASSERT_NE(FindTermination(c.game, t), nullptr);
    EXPECT_EQ(TerminationName(c.game, t), c.name);
    EXPECT_EQ(RecordTerminationName(c.game, t), c.record_name);
    // StatusWord's: the module's status, else "draw (NAME)" / "decided
    // (NAME)".
    const std::string& status = FindTermination(c.game, t)->status;
    if (c.status.empty()) continue;
    const std::string outcome = c.status.substr(0, c.status.find(' '));
    EXPECT_EQ(status.empty() ? Cat(outcome, " (", c.name, ")") : status,
              c.status);
  }
  // A code is the game's own: Tavlei's are not Tavreli's.
  EXPECT_EQ(FindTermination("tavreli", static_cast<Termination>(6)), nullptr);
  EXPECT_EQ(TerminationName("tavreli", static_cast<Termination>(6)),
            "termination 6");
  EXPECT_EQ(TerminationName("no-such-game", Termination::kResignation),
            "resignation");
}

// Nim ends for its own reason, declared in its folder alone, and every front
// end's printer finds it through the registry.
TEST(GameRegistryTest, NimEndsForItsOwnReason) {
  ASSERT_TRUE(kNimRegistered);
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame("nim");
  ASSERT_TRUE(game.ok());
  absl::StatusOr<std::unique_ptr<GameState>> state =
      (*game)->NewStateFromText("2 0");
  ASSERT_TRUE(state.ok());
  (*state)->Play(*(*state)->ParseMove("2"));
  const GameResult result = (*state)->Result();
  EXPECT_EQ(result, (GameResult{Outcome::kLoss, nim::kLastStoneTaken}));
  EXPECT_EQ(TerminationName("nim", result.termination), "last stone taken");
  EXPECT_EQ(RecordTerminationName("nim", result.termination),
            "last stone taken");
  EXPECT_EQ(StatusWord(**state), "decided (last stone taken)");
  EXPECT_EQ(FindTermination("nim", result.termination)->description,
            "{winner} took the last stone and wins");
}

TEST(GameRegistryTest, OptionsForKeepsOnlyTheGamesOwn) {
  const GameOptions all = {{"stones", 7}, {"not_nims", 1}};
  EXPECT_EQ(OptionsFor("nim", all), (GameOptions{{"stones", 7}}));
  EXPECT_TRUE(OptionsFor("no-such-game", all).empty());
}

}  // namespace
}  // namespace volkhv
