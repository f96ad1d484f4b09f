// Input encoders and policy maps (engine/game/encoder.h): hand-built positions
// against their exact planes, the Black-to-move flip, the policy maps over
// random games (round trip, collisions), and the measurements behind the
// defaults (DISABLED_ tests, run with --gtest_also_run_disabled_tests).
#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
#include "engine/game/move.h"
#include "engine/games/games.h"
#include "engine/tavlei/encoder.h"
#include "engine/tavlei/policy_map.h"
#include "engine/tavreli/encoder.h"
#include "engine/tavreli/policy_map.h"
#include "engine/tavreli/position.h"
#include "engine/tavreli/tavreli_game.h"
#include "engine/util/strings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace volkhv::nn {
namespace {

using tavlei::DecodeTavleiPolicyIndex;
using tavlei::TavleiEncoder;
using tavlei::TavleiPolicyIndex;
using tavlei::TavleiPolicySize;
using tavreli::DecodeTavreliPolicyIndex;
using tavreli::kTavreliCountBuckets;
using tavreli::kTavreliPolicySize;
using tavreli::TavreliCountBucket;
using tavreli::TavreliEncoder;
using tavreli::TavreliPolicyIndex;
using tavreli::TavreliPolicyMove;
using ::testing::HasSubstr;

// Identities of the Tavreli layer planes, as documented in
// engine/tavreli/encoder.h.
// clang-format off
enum Id {
  kK, kQ, kR, kB, kN,
  kPR, kPN, kPB, kPQ, kPH,
  kPromR, kPromN, kPromB, kPromQ, kPromH,
};
// clang-format on

constexpr std::string_view kTavreliStart =
    "rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/RNBQKBNR w KQkq - 0 1";

std::unique_ptr<Game> NewGame(std::string_view name) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(name);
  if (!game.ok()) {
    ADD_FAILURE() << game.status();
    std::abort();
  }
  return *std::move(game);
}

std::unique_ptr<GameState> FromText(const Game& game, std::string_view text) {
  absl::StatusOr<std::unique_ptr<GameState>> state =
      game.NewStateFromText(text);
  if (!state.ok()) {
    ADD_FAILURE() << text << ": " << state.status();
    std::abort();
  }
  return *std::move(state);
}

std::unique_ptr<Encoder> NewEncoder(const Game& game, int stack_layers = 4) {
  EncoderOptions options;
  options.stack_layers = stack_layers;
  absl::StatusOr<std::unique_ptr<Encoder>> encoder =
      MakeEncoder(game.Info(), options);
  if (!encoder.ok()) {
    ADD_FAILURE() << encoder.status();
    std::abort();
  }
  return *std::move(encoder);
}

// The planes of one encoding, read by (plane, row, file).
class Planes {
 public:
  Planes(const Encoder& encoder, const GameState& state)
      : shape_(encoder.Shape()), data_(shape_.Size(), -7.0f) {
    encoder.Encode(state, data_.data());  // over garbage: must overwrite
  }
  float At(int plane, int row, int file) const {
    return data_[(plane * shape_.height + row) * shape_.width + file];
  }
  int NonZero(int plane) const {
    int n = 0;
    for (int i = 0; i < PlaneSize(); ++i) n += Plane(plane)[i] != 0;
    return n;
  }
  float Sum(int plane) const {
    float sum = 0;
    for (int i = 0; i < PlaneSize(); ++i) sum += Plane(plane)[i];
    return sum;
  }
  bool Constant(int plane, float value) const {
    for (int i = 0; i < PlaneSize(); ++i) {
      if (Plane(plane)[i] != value) return false;
    }
    return true;
  }
  const std::vector<float>& data() const { return data_; }

 private:
  int PlaneSize() const { return shape_.height * shape_.width; }
  const float* Plane(int plane) const { return &data_[plane * PlaneSize()]; }

  InputShape shape_;
  std::vector<float> data_;
};

// The same Tavreli position with ranks mirrored and colours swapped.
std::string MirrorTfen(std::string_view tfen) {
  const std::vector<std::string_view> fields = Split(tfen, " ", true);
  EXPECT_EQ(fields.size(), 6u) << tfen;
  auto swap_case = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) {
      if (std::isupper(static_cast<unsigned char>(c))) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      } else if (std::islower(static_cast<unsigned char>(c))) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      }
    }
    return out;
  };
  std::vector<std::string_view> ranks = Split(fields[0], "/", false);
  std::reverse(ranks.begin(), ranks.end());
  std::string board;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i) board += '/';
    board += swap_case(ranks[i]);
  }
  std::string castling = fields[2] == "-" ? "-" : swap_case(fields[2]);
  std::string ep(fields[3]);
  if (ep != "-") ep[1] = ep[1] == '3' ? '6' : '3';
  return Cat(board, " ", fields[1] == "w" ? "b" : "w", " ", castling, " ", ep,
             " ", fields[4], " ", fields[5]);
}

const tavreli::Position& TavreliPosition(const GameState& state) {
  return dynamic_cast<const tavreli::TavreliState&>(state).current();
}

// ---- Random games ----

// How the random player picks a Tavreli move: uniformly, or with probability
// `bias` among the moves onto an occupied square (capture or own tower)
// when there are any, which is how real play builds towers.
struct RandomPlayer {
  double stacking_bias = 0;
  bool captures_only = false;  // bias towards enemy-topped squares only
};

// Plays a game from the start position for at most max_plies plies, calling
// visit(state, legal_moves) at every position where the game goes on.
void PlayRandomGame(
    const Game& game, uint64_t seed, int max_plies, const RandomPlayer& player,
    const std::function<void(const GameState&, const MoveList&)>& visit) {
  std::mt19937_64 rng(seed);
  std::unique_ptr<GameState> state = game.NewInitialState();
  const bool tavreli = game.Info().name == "tavreli";
  MoveList moves;
  std::vector<Move> stacking;
  for (int ply = 0; ply < max_plies; ++ply) {
    if (state->Result().IsOver()) return;
    state->LegalMoves(&moves);
    if (moves.empty()) return;
    visit(*state, moves);
    Move chosen =
        moves[std::uniform_int_distribution<int>(0, moves.size() - 1)(rng)];
    if (tavreli && player.stacking_bias > 0) {
      const tavreli::Position& pos = TavreliPosition(*state);
      stacking.clear();
      for (Move m : moves) {
        if (pos.Empty(m.to)) continue;
        if (player.captures_only &&
            tavreli::ColorOf(pos.Top(m.to)) == pos.SideToMove()) {
          continue;
        }
        stacking.push_back(m);
      }
      if (!stacking.empty() && std::uniform_real_distribution<double>(
                                   0, 1)(rng) < player.stacking_bias) {
        chosen = stacking[std::uniform_int_distribution<size_t>(
            0, stacking.size() - 1)(rng)];
      }
    }
    state->Play(chosen);
  }
}

// ---- MakeEncoder ----

TEST(MakeEncoderTest, ShapesAndSizes) {
  struct Case {
    std::string_view game;
    int planes, size, policy, channels;
  };
  for (const Case& c :
       {Case{"tavreli", 134, 8, 32768, 512}, Case{"tavlei9", 7, 9, 2592, 32},
        Case{"tavlei11", 7, 11, 4840, 40}}) {
    SCOPED_TRACE(c.game);
    std::unique_ptr<Game> game = NewGame(c.game);
    std::unique_ptr<Encoder> encoder = NewEncoder(*game);
    EXPECT_EQ(encoder->FormatVersion(), 1);
    EXPECT_EQ(encoder->Shape().planes, c.planes);
    EXPECT_EQ(encoder->Shape().height, c.size);
    EXPECT_EQ(encoder->Shape().width, c.size);
    EXPECT_EQ(encoder->PolicySize(), c.policy);
    EXPECT_EQ(encoder->PolicyChannels(), c.channels);
    EXPECT_EQ(encoder->PolicyChannels() * c.size * c.size, c.policy);
  }
  std::unique_ptr<Game> tavreli = NewGame("tavreli");
  EXPECT_EQ(NewEncoder(*tavreli, 1)->Shape().planes, 30 + 14);
  EXPECT_EQ(NewEncoder(*tavreli, 8)->Shape().planes, 240 + 14);
  EXPECT_EQ(NewEncoder(*tavreli, 32)->Shape().planes, 960 + 14);
}

TEST(MakeEncoderTest, Errors) {
  GameInfo chess{"chess", 8, 8, 1, "white", "black"};
  absl::StatusOr<std::unique_ptr<Encoder>> unknown =
      MakeEncoder(chess, EncoderOptions());
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("'chess'"));

  std::unique_ptr<Game> tavreli = NewGame("tavreli");
  for (int layers : {0, -1, 33}) {
    EncoderOptions options;
    options.stack_layers = layers;
    absl::StatusOr<std::unique_ptr<Encoder>> bad =
        MakeEncoder(tavreli->Info(), options);
    ASSERT_FALSE(bad.ok()) << layers;
    EXPECT_THAT(std::string(bad.status().message()), HasSubstr("stack_layers"));
    EXPECT_THAT(std::string(bad.status().message()),
                HasSubstr(std::to_string(layers)));
  }
}

// ---- Tavreli planes ----

TEST(TavreliEncoderTest, StartPosition) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  std::unique_ptr<GameState> state = game->NewInitialState();
  TavreliEncoder encoder(4);
  const Planes p(encoder, *state);

  // Layer 0: both armies, own on rows 0-1, enemy on rows 6-7.
  const Id back[8] = {kR, kN, kB, kQ, kK, kB, kN, kR};
  const Id pawns[8] = {kPR, kPN, kPB, kPQ, kPH, kPB, kPN, kPR};
  for (int file = 0; file < 8; ++file) {
    EXPECT_EQ(p.At(TavreliEncoder::LayerPlane(0, true, back[file]), 0, file),
              1);
    EXPECT_EQ(p.At(TavreliEncoder::LayerPlane(0, true, pawns[file]), 1, file),
              1);
    EXPECT_EQ(p.At(TavreliEncoder::LayerPlane(0, false, back[file]), 7, file),
              1);
    EXPECT_EQ(p.At(TavreliEncoder::LayerPlane(0, false, pawns[file]), 6, file),
              1);
  }
  int layer_cells = 0;
  for (int plane = 0; plane < 4 * 30; ++plane) layer_cells += p.NonZero(plane);
  EXPECT_EQ(layer_cells, 32);
  EXPECT_EQ(p.NonZero(TavreliEncoder::LayerPlane(0, true, kR)), 2);
  EXPECT_EQ(p.NonZero(TavreliEncoder::LayerPlane(0, false, kPB)), 2);
  EXPECT_EQ(p.NonZero(TavreliEncoder::LayerPlane(0, false, kPH)), 1);

  EXPECT_EQ(p.NonZero(encoder.Plane(TavreliEncoder::kOwnBuried)), 0);
  EXPECT_EQ(p.NonZero(encoder.Plane(TavreliEncoder::kEnemyBuried)), 0);
  EXPECT_EQ(p.NonZero(encoder.Plane(TavreliEncoder::kHeight)), 32);
  EXPECT_EQ(p.Sum(encoder.Plane(TavreliEncoder::kHeight)), 32 / 8.0f);
  EXPECT_TRUE(p.Constant(encoder.Plane(TavreliEncoder::kSideToMove), 0));
  for (auto plane :
       {TavreliEncoder::kOwnKingside, TavreliEncoder::kOwnQueenside,
        TavreliEncoder::kEnemyKingside, TavreliEncoder::kEnemyQueenside}) {
    EXPECT_TRUE(p.Constant(encoder.Plane(plane), 1)) << plane;
  }
  EXPECT_EQ(p.NonZero(encoder.Plane(TavreliEncoder::kEnPassant)), 0);
  const int own_double = encoder.Plane(TavreliEncoder::kOwnDoubleStep);
  const int enemy_double = encoder.Plane(TavreliEncoder::kEnemyDoubleStep);
  EXPECT_EQ(p.NonZero(own_double), 8);
  EXPECT_EQ(p.NonZero(enemy_double), 8);
  for (int file = 0; file < 8; ++file) {
    EXPECT_EQ(p.At(own_double, 1, file), 1);
    EXPECT_EQ(p.At(enemy_double, 6, file), 1);
  }
  EXPECT_TRUE(p.Constant(encoder.Plane(TavreliEncoder::kRepetition), 0));
  EXPECT_TRUE(p.Constant(encoder.Plane(TavreliEncoder::kFiftyMove), 0));
  EXPECT_TRUE(p.Constant(encoder.Plane(TavreliEncoder::kOnes), 1));
}

// a5: PR n B q N r Q (bottom to top, height 7); d4: PR n +H; h4: +r;
// c3: B b; g2: PN n (the white pawn never moved); e7: ph (never moved).
constexpr std::string_view kStacks =
    "4k3/4ph3/8/(PRnBqNrQ)7/3(PRn+H)3+r/2(Bb)5/6(PNn)1/4K3 w - - 0 1";

TEST(TavreliEncoderTest, StackLayersAndBuriedCounts) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  std::unique_ptr<GameState> state = FromText(*game, kStacks);
  TavreliEncoder encoder(4);
  const Planes p(encoder, *state);
  auto layer = [&](int l, bool own, Id id, int row, int file) {
    return p.At(TavreliEncoder::LayerPlane(l, own, id), row, file);
  };
  // a5 = row 4, file 0.
  EXPECT_EQ(layer(0, true, kQ, 4, 0), 1);
  EXPECT_EQ(layer(1, false, kR, 4, 0), 1);
  EXPECT_EQ(layer(2, true, kN, 4, 0), 1);
  EXPECT_EQ(layer(3, false, kQ, 4, 0), 1);
  // d4: +H on n on PR.
  EXPECT_EQ(layer(0, true, kPromH, 3, 3), 1);
  EXPECT_EQ(layer(1, false, kN, 3, 3), 1);
  EXPECT_EQ(layer(2, true, kPR, 3, 3), 1);
  // h4: a black promoted rook pawn.
  EXPECT_EQ(layer(0, false, kPromR, 3, 7), 1);
  // c3: b on B.
  EXPECT_EQ(layer(0, false, kB, 2, 2), 1);
  EXPECT_EQ(layer(1, true, kB, 2, 2), 1);
  // g2: n on PN.
  EXPECT_EQ(layer(0, false, kN, 1, 6), 1);
  EXPECT_EQ(layer(1, true, kPN, 1, 6), 1);
  EXPECT_EQ(layer(0, false, kPH, 6, 4), 1);
  EXPECT_EQ(layer(0, true, kK, 0, 4), 1);
  EXPECT_EQ(layer(0, false, kK, 7, 4), 1);
  int layer_cells = 0;
  for (int plane = 0; plane < 4 * 30; ++plane) layer_cells += p.NonZero(plane);
  EXPECT_EQ(layer_cells, 4 + 3 + 1 + 2 + 2 + 1 + 2);

  // Below layer 4 on a5: B (own), n (enemy), PR (own).
  const int own_buried = encoder.Plane(TavreliEncoder::kOwnBuried);
  const int enemy_buried = encoder.Plane(TavreliEncoder::kEnemyBuried);
  EXPECT_EQ(p.At(own_buried, 4, 0), 2 / 8.0f);
  EXPECT_EQ(p.At(enemy_buried, 4, 0), 1 / 8.0f);
  EXPECT_EQ(p.NonZero(own_buried), 1);
  EXPECT_EQ(p.NonZero(enemy_buried), 1);

  const int height = encoder.Plane(TavreliEncoder::kHeight);
  EXPECT_EQ(p.At(height, 4, 0), 7 / 8.0f);
  EXPECT_EQ(p.At(height, 3, 3), 3 / 8.0f);
  EXPECT_EQ(p.At(height, 3, 7), 1 / 8.0f);
  EXPECT_EQ(p.At(height, 2, 2), 2 / 8.0f);
  EXPECT_EQ(p.At(height, 1, 6), 2 / 8.0f);
  EXPECT_EQ(p.NonZero(height), 8);
  EXPECT_EQ(p.Sum(height), 18 / 8.0f);

  // Double step: the covered never-moved PN on g2, the ph on e7. The PR
  // pawns in the a5 and d4 stacks are off their second rank: moved.
  const int own_double = encoder.Plane(TavreliEncoder::kOwnDoubleStep);
  const int enemy_double = encoder.Plane(TavreliEncoder::kEnemyDoubleStep);
  EXPECT_EQ(p.At(own_double, 1, 6), 1);
  EXPECT_EQ(p.NonZero(own_double), 1);
  EXPECT_EQ(p.At(enemy_double, 6, 4), 1);
  EXPECT_EQ(p.NonZero(enemy_double), 1);
  for (auto plane :
       {TavreliEncoder::kOwnKingside, TavreliEncoder::kOwnQueenside,
        TavreliEncoder::kEnemyKingside, TavreliEncoder::kEnemyQueenside,
        TavreliEncoder::kEnPassant, TavreliEncoder::kSideToMove,
        TavreliEncoder::kRepetition, TavreliEncoder::kFiftyMove}) {
    EXPECT_EQ(p.NonZero(encoder.Plane(plane)), 0) << plane;
  }
}

TEST(TavreliEncoderTest, OtherLayerCounts) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  std::unique_ptr<GameState> state = FromText(*game, kStacks);
  // a5 from the top: Q r N q B n PR.
  {
    TavreliEncoder encoder(2);
    const Planes p(encoder, *state);
    EXPECT_EQ(p.At(TavreliEncoder::LayerPlane(0, true, kQ), 4, 0), 1);
    EXPECT_EQ(p.At(TavreliEncoder::LayerPlane(1, false, kR), 4, 0), 1);
    const int own_buried = encoder.Plane(TavreliEncoder::kOwnBuried);
    const int enemy_buried = encoder.Plane(TavreliEncoder::kEnemyBuried);
    EXPECT_EQ(own_buried, 60);
    EXPECT_EQ(p.At(own_buried, 4, 0), 3 / 8.0f);
    EXPECT_EQ(p.At(enemy_buried, 4, 0), 2 / 8.0f);
    EXPECT_EQ(p.At(own_buried, 3, 3), 1 / 8.0f);  // d4's PR
    EXPECT_EQ(p.NonZero(own_buried), 2);
    EXPECT_EQ(p.NonZero(enemy_buried), 1);
  }
  {
    TavreliEncoder encoder(1);
    const Planes p(encoder, *state);
    const int own_buried = encoder.Plane(TavreliEncoder::kOwnBuried);
    const int enemy_buried = encoder.Plane(TavreliEncoder::kEnemyBuried);
    EXPECT_EQ(p.At(own_buried, 4, 0), 3 / 8.0f);
    EXPECT_EQ(p.At(enemy_buried, 4, 0), 3 / 8.0f);
    EXPECT_EQ(p.At(own_buried, 3, 3), 1 / 8.0f);
    EXPECT_EQ(p.At(enemy_buried, 3, 3), 1 / 8.0f);
    EXPECT_EQ(p.At(own_buried, 2, 2), 1 / 8.0f);
    EXPECT_EQ(p.At(own_buried, 1, 6), 1 / 8.0f);
    EXPECT_EQ(p.NonZero(own_buried), 4);
    EXPECT_EQ(p.NonZero(enemy_buried), 2);
    int layer_cells = 0;
    for (int plane = 0; plane < 30; ++plane) layer_cells += p.NonZero(plane);
    EXPECT_EQ(layer_cells, 8);  // one per stack
  }
  {
    TavreliEncoder encoder(8);
    const Planes p(encoder, *state);
    EXPECT_EQ(p.At(TavreliEncoder::LayerPlane(4, true, kB), 4, 0), 1);
    EXPECT_EQ(p.At(TavreliEncoder::LayerPlane(5, false, kN), 4, 0), 1);
    EXPECT_EQ(p.At(TavreliEncoder::LayerPlane(6, true, kPR), 4, 0), 1);
    EXPECT_EQ(p.NonZero(TavreliEncoder::LayerPlane(7, true, kPR)), 0);
    int layer_cells = 0;
    for (int plane = 0; plane < 8 * 30; ++plane) {
      layer_cells += p.NonZero(plane);
    }
    EXPECT_EQ(layer_cells, 18);  // every piece on the board
    EXPECT_EQ(p.NonZero(encoder.Plane(TavreliEncoder::kOwnBuried)), 0);
    EXPECT_EQ(p.NonZero(encoder.Plane(TavreliEncoder::kEnemyBuried)), 0);
  }
}

TEST(TavreliEncoderTest, EnPassantAndCastling) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  TavreliEncoder encoder(4);
  const int ep = encoder.Plane(TavreliEncoder::kEnPassant);
  {
    // Black just played e7-e5; d5 may take en passant on e6.
    std::unique_ptr<GameState> state =
        FromText(*game, "4k3/8/8/3PQpb3/8/8/8/4K3 w - e6 0 1");
    const Planes p(encoder, *state);
    EXPECT_EQ(p.At(ep, 5, 4), 1);
    EXPECT_EQ(p.NonZero(ep), 1);
  }
  {
    // White just played e2-e4: e3 is row 5 from Black's side.
    std::unique_ptr<GameState> state =
        FromText(*game, "4k3/8/8/8/3pqPH3/8/8/4K3 b - e3 0 1");
    const Planes p(encoder, *state);
    EXPECT_EQ(p.At(ep, 5, 4), 1);
    EXPECT_EQ(p.NonZero(ep), 1);
    EXPECT_TRUE(p.Constant(encoder.Plane(TavreliEncoder::kSideToMove), 1));
  }
  const int own_k = encoder.Plane(TavreliEncoder::kOwnKingside);
  const int own_q = encoder.Plane(TavreliEncoder::kOwnQueenside);
  const int enemy_k = encoder.Plane(TavreliEncoder::kEnemyKingside);
  const int enemy_q = encoder.Plane(TavreliEncoder::kEnemyQueenside);
  {
    std::unique_ptr<GameState> state =
        FromText(*game, "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1");
    const Planes p(encoder, *state);
    EXPECT_TRUE(p.Constant(own_k, 1));
    EXPECT_TRUE(p.Constant(own_q, 0));
    EXPECT_TRUE(p.Constant(enemy_k, 0));
    EXPECT_TRUE(p.Constant(enemy_q, 1));
  }
  {
    std::unique_ptr<GameState> state =
        FromText(*game, "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1");
    const Planes p(encoder, *state);
    EXPECT_TRUE(p.Constant(own_k, 0));
    EXPECT_TRUE(p.Constant(own_q, 1));
    EXPECT_TRUE(p.Constant(enemy_k, 1));
    EXPECT_TRUE(p.Constant(enemy_q, 0));
  }
}

TEST(TavreliEncoderTest, ClocksAndRepetition) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  TavreliEncoder encoder(4);
  const int fifty = encoder.Plane(TavreliEncoder::kFiftyMove);
  const int repetition = encoder.Plane(TavreliEncoder::kRepetition);
  {
    std::unique_ptr<GameState> state =
        FromText(*game, "4k3/8/8/8/8/8/8/4K3 w - - 37 60");
    const Planes p(encoder, *state);
    EXPECT_TRUE(p.Constant(fifty, 0.37f));
    EXPECT_TRUE(p.Constant(repetition, 0));
  }
  // Knights out and back: the start position again, now the second time.
  std::unique_ptr<GameState> state = game->NewInitialState();
  for (std::string_view text : {"g1-f3", "g8-f6", "f3-g1", "f6-g8"}) {
    absl::StatusOr<Move> move = state->ParseMove(text);
    ASSERT_TRUE(move.ok()) << move.status();
    state->Play(*move);
  }
  ASSERT_EQ(dynamic_cast<const tavreli::TavreliState&>(*state).Occurrences(),
            2);
  const Planes twice(encoder, *state);
  EXPECT_TRUE(twice.Constant(repetition, 0.5f));
  EXPECT_TRUE(twice.Constant(fifty, 0.04f));
  // The same position (clock 4) met for the first time differs only there.
  std::unique_ptr<GameState> fresh = FromText(*game, state->PositionText());
  const Planes once(encoder, *fresh);
  EXPECT_TRUE(once.Constant(repetition, 0));
  for (int plane = 0; plane < encoder.Shape().planes; ++plane) {
    if (plane == repetition) continue;
    for (int sq = 0; sq < 64; ++sq) {
      ASSERT_EQ(once.At(plane, sq / 8, sq % 8), twice.At(plane, sq / 8, sq % 8))
          << plane;
    }
  }
  EXPECT_EQ(state->Hash(), fresh->Hash());
  EXPECT_NE(encoder.CacheKey(*state), encoder.CacheKey(*fresh));
  // Equal positions with equal history features share a key.
  EXPECT_EQ(encoder.CacheKey(*fresh),
            encoder.CacheKey(*FromText(*game, state->PositionText())));
}

TEST(TavreliEncoderTest, CacheKeySeesEverythingThePlanesShow) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  TavreliEncoder encoder(4);
  // No pawn can take on e6: Hash() ignores the square, the planes do not.
  std::unique_ptr<GameState> with_ep =
      FromText(*game, "4k3/8/8/4pb3/8/8/8/4K3 w - e6 0 1");
  std::unique_ptr<GameState> without_ep =
      FromText(*game, "4k3/8/8/4pb3/8/8/8/4K3 w - - 0 1");
  EXPECT_EQ(with_ep->Hash(), without_ep->Hash());
  EXPECT_NE(encoder.CacheKey(*with_ep), encoder.CacheKey(*without_ep));
  // The halfmove clock.
  EXPECT_NE(
      encoder.CacheKey(*FromText(*game, "4k3/8/8/4pb3/8/8/8/4K3 w - - 0 1")),
      encoder.CacheKey(*FromText(*game, "4k3/8/8/4pb3/8/8/8/4K3 w - - 1 1")));
  // Not the fullmove number, which the planes do not show.
  EXPECT_EQ(
      encoder.CacheKey(*FromText(*game, "4k3/8/8/4pb3/8/8/8/4K3 w - - 1 1")),
      encoder.CacheKey(*FromText(*game, "4k3/8/8/4pb3/8/8/8/4K3 w - - 1 9")));
}

TEST(TavreliEncoderTest, WritesExactlyShapeSize) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  std::unique_ptr<GameState> state = FromText(*game, kStacks);
  TavreliEncoder encoder(4);
  const int size = encoder.Shape().Size();
  std::vector<float> clean(size + 64, 0.0f);
  std::vector<float> dirty(size + 64, 42.0f);
  encoder.Encode(*state, clean.data());
  encoder.Encode(*state, dirty.data());
  for (int i = 0; i < size; ++i) ASSERT_EQ(clean[i], dirty[i]) << i;
  for (int i = size; i < size + 64; ++i) ASSERT_EQ(dirty[i], 42.0f) << i;
}

// The strongest check of the point of view: a position and its mirror image
// (ranks reversed, colours swapped, Black to move) encode identically except
// for the side-to-move plane, and their moves get the same policy indices.
void ExpectMirrorEquivalent(const Game& game, const Encoder& encoder,
                            std::string_view tfen) {
  SCOPED_TRACE(tfen);
  const std::string mirrored = MirrorTfen(tfen);
  std::unique_ptr<GameState> a = FromText(game, tfen);
  std::unique_ptr<GameState> b = FromText(game, mirrored);
  ASSERT_NE(a->SideToMove(), b->SideToMove());
  const Planes pa(encoder, *a);
  const Planes pb(encoder, *b);
  const int side_plane =
      encoder.Shape().planes - 14 + TavreliEncoder::kSideToMove;
  for (int plane = 0; plane < encoder.Shape().planes; ++plane) {
    for (int sq = 0; sq < 64; ++sq) {
      const float va = pa.At(plane, sq / 8, sq % 8);
      const float vb = pb.At(plane, sq / 8, sq % 8);
      if (plane == side_plane) {
        ASSERT_EQ(va, a->SideToMove());
        ASSERT_EQ(vb, b->SideToMove());
      } else {
        ASSERT_EQ(va, vb) << "plane " << plane << " square " << sq;
      }
    }
  }
  MoveList ma, mb;
  a->LegalMoves(&ma);
  b->LegalMoves(&mb);
  ASSERT_EQ(ma.size(), mb.size());
  for (Move m : ma) {
    const Move mirror = MakeMove(m.from ^ 56, m.to ^ 56, m.count);
    ASSERT_TRUE(mb.contains(mirror));
    ASSERT_EQ(encoder.PolicyIndex(*a, m), encoder.PolicyIndex(*b, mirror));
  }
}

TEST(TavreliEncoderTest, BlackToMoveIsTheMirrorImage) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  TavreliEncoder encoder(4);
  for (std::string_view tfen :
       {kTavreliStart, kStacks,
        std::string_view("4k3/8/8/3PQpb3/8/8/8/4K3 w - e6 0 1"),
        std::string_view("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 17 30")}) {
    ExpectMirrorEquivalent(*game, encoder, tfen);
    ExpectMirrorEquivalent(*game, encoder, MirrorTfen(tfen));
  }
  // Positions from random games, with towers of all heights.
  int checked = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    PlayRandomGame(*game, seed, 240, RandomPlayer{0.5, false},
                   [&](const GameState& state, const MoveList&) {
                     if (state.PliesPlayed() % 7 != 3) return;
                     ExpectMirrorEquivalent(*game, encoder,
                                            state.PositionText());
                     ++checked;
                   });
  }
  EXPECT_GT(checked, 100);
}

TEST(TavreliEncoderTest, EqualCacheKeysMeanEqualPlanes) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  std::unique_ptr<Encoder> encoder = NewEncoder(*game);
  std::map<uint64_t, std::vector<float>> seen;
  int repeated = 0;
  for (uint64_t seed = 100; seed < 140; ++seed) {
    PlayRandomGame(*game, seed, 200, RandomPlayer{0.3, false},
                   [&](const GameState& state, const MoveList&) {
                     const Planes p(*encoder, state);
                     auto [it, inserted] =
                         seen.emplace(encoder->CacheKey(state), p.data());
                     if (!inserted) {
                       ++repeated;
                       ASSERT_EQ(it->second, p.data());
                     }
                   });
  }
  EXPECT_GT(repeated, 0);  // random play repeats positions
}

// ---- Tavlei planes ----

TEST(TavleiEncoderTest, StartPositions) {
  struct Case {
    std::string_view game;
    int width, attackers, defenders, king;
  };
  for (const Case& c : {Case{"tavlei9", 9, 16, 8, 4 * 9 + 4},
                        Case{"tavlei11", 11, 24, 12, 5 * 11 + 5}}) {
    SCOPED_TRACE(c.game);
    std::unique_ptr<Game> game = NewGame(c.game);
    std::unique_ptr<Encoder> encoder = NewEncoder(*game);
    std::unique_ptr<GameState> state = game->NewInitialState();
    const int w = c.width;
    {
      const Planes p(*encoder, *state);
      EXPECT_EQ(p.NonZero(TavleiEncoder::kAttackers), c.attackers);
      EXPECT_EQ(p.NonZero(TavleiEncoder::kDefenders), c.defenders);
      EXPECT_EQ(p.NonZero(TavleiEncoder::kKing), 1);
      EXPECT_EQ(p.At(TavleiEncoder::kKing, c.king / w, c.king % w), 1);
      EXPECT_EQ(p.NonZero(TavleiEncoder::kThrone), 1);
      EXPECT_EQ(p.At(TavleiEncoder::kThrone, w / 2, w / 2), 1);
      EXPECT_EQ(p.NonZero(TavleiEncoder::kCorners), 4);
      for (int row : {0, w - 1}) {
        for (int file : {0, w - 1}) {
          EXPECT_EQ(p.At(TavleiEncoder::kCorners, row, file), 1);
        }
      }
      EXPECT_TRUE(p.Constant(TavleiEncoder::kSideToMove, 0));
      EXPECT_TRUE(p.Constant(TavleiEncoder::kOnes, 1));
      // Attackers stand on the middle of each edge, e.g. the first rank.
      EXPECT_EQ(p.At(TavleiEncoder::kAttackers, 0, w / 2), 1);
      EXPECT_EQ(p.At(TavleiEncoder::kDefenders, w / 2, w / 2), 0);
      // Exactly 7 planes were written (the pre-fill is gone).
      for (float v : p.data()) ASSERT_TRUE(v == 0 || v == 1) << v;
    }
    MoveList moves;
    state->LegalMoves(&moves);
    state->Play(moves[0]);
    const Planes p(*encoder, *state);
    EXPECT_TRUE(p.Constant(TavleiEncoder::kSideToMove, 1));
    EXPECT_EQ(p.NonZero(TavleiEncoder::kAttackers), c.attackers);
    EXPECT_EQ(
        p.At(TavleiEncoder::kAttackers, moves[0].from / w, moves[0].from % w),
        0);
    EXPECT_EQ(p.At(TavleiEncoder::kAttackers, moves[0].to / w, moves[0].to % w),
              1);
    EXPECT_EQ(encoder->CacheKey(*state), state->Hash());
  }
}

// ---- Policy maps ----

TEST(TavreliPolicyMapTest, KnownIndices) {
  // e1-g1 (castling) and e8-g8: east, distance 2 (type 8), whole stack.
  EXPECT_EQ(TavreliPolicyIndex(4, 6, 1, 1, 0), (8 * 8 + 0) * 64 + 4);
  EXPECT_EQ(TavreliPolicyIndex(60, 62, 1, 1, 1), (8 * 8 + 0) * 64 + 4);
  // e2-e4 and e7-e5: north, distance 2 (type 1).
  EXPECT_EQ(TavreliPolicyIndex(12, 28, 1, 1, 0), (1 * 8) * 64 + 12);
  EXPECT_EQ(TavreliPolicyIndex(52, 36, 1, 1, 1), (1 * 8) * 64 + 12);
  // b1-c3: knight leap (+1, +2) = type 56; top piece of a stack of 3.
  EXPECT_EQ(TavreliPolicyIndex(1, 18, 1, 3, 0), (56 * 8 + 1) * 64 + 1);
  // a1-h8, NE distance 7 (type 34), with counts of several stacks.
  EXPECT_EQ(TavreliPolicyIndex(0, 63, 2, 2, 0), (34 * 8 + 0) * 64);
  EXPECT_EQ(TavreliPolicyIndex(0, 63, 2, 3, 0), (34 * 8 + 2) * 64);
  EXPECT_EQ(TavreliPolicyIndex(0, 63, 3, 4, 0), (34 * 8 + 3) * 64);
  EXPECT_EQ(TavreliPolicyIndex(0, 63, 7, 8, 0), (34 * 8 + 4) * 64);
  EXPECT_EQ(TavreliPolicyIndex(0, 63, 6, 8, 0), (34 * 8 + 5) * 64);
  EXPECT_EQ(TavreliPolicyIndex(0, 63, 4, 9, 0), (34 * 8 + 7) * 64);
  // Not a queen line or a knight leap.
  EXPECT_EQ(TavreliPolicyIndex(0, 17 + 8, 1, 1, 0), -1);
  EXPECT_EQ(TavreliPolicyIndex(5, 5, 1, 1, 0), -1);
  EXPECT_EQ(TavreliCountBucket(1, 1), 0);
  EXPECT_EQ(TavreliCountBucket(5, 5), 0);
  EXPECT_EQ(TavreliCountBucket(1, 5), 1);
  EXPECT_EQ(TavreliCountBucket(2, 3), 2);
  EXPECT_EQ(TavreliCountBucket(3, 4), 3);
  EXPECT_EQ(TavreliCountBucket(4, 5), 4);  // all but one
  EXPECT_EQ(TavreliCountBucket(31, 32), 4);
  EXPECT_EQ(TavreliCountBucket(30, 32), 5);
  EXPECT_EQ(TavreliCountBucket(5, 8), 6);  // all but three
  EXPECT_EQ(TavreliCountBucket(4, 8), 7);
  EXPECT_EQ(TavreliCountBucket(16, 32), 7);
  // Every count of a stack of up to 8 has its own bucket.
  for (int height = 1; height <= 8; ++height) {
    std::set<int> buckets;
    for (int count = 1; count <= height; ++count) {
      buckets.insert(TavreliCountBucket(count, height));
    }
    EXPECT_EQ(static_cast<int>(buckets.size()), height);
  }
}

TEST(TavreliPolicyMapTest, EveryIndexDecodesAndEncodesBack) {
  for (int side = 0; side < 2; ++side) {
    int valid = 0;
    for (int index = 0; index < kTavreliPolicySize; ++index) {
      TavreliPolicyMove m;
      if (!DecodeTavreliPolicyIndex(index, side, &m)) continue;
      ++valid;
      const int height = 10;
      const int count = m.bucket == 0   ? height
                        : m.bucket <= 3 ? m.bucket
                        : m.bucket <= 6 ? height - (m.bucket - 3)
                                        : 5;
      ASSERT_EQ(TavreliPolicyIndex(m.from, m.to, count, height, side), index);
    }
    // Queen moves from every square: 1456; knight leaps: 336; 8 buckets.
    EXPECT_EQ(valid, (1456 + 336) * 8);
    TavreliPolicyMove m;
    EXPECT_FALSE(DecodeTavreliPolicyIndex(-1, side, &m));
    EXPECT_FALSE(DecodeTavreliPolicyIndex(kTavreliPolicySize, side, &m));
  }
}

struct CollisionStats {
  int64_t positions = 0;
  int64_t moves = 0;
  int64_t positions_with_collision = 0;
  int64_t moves_in_collision = 0;
  int64_t positions_with_tall_stack = 0;  // height >= 9 on own top
};

// Checks every legal move of every position visited: its index is valid,
// decodes back to the move, and shares its index with another legal move
// only in bucket 7 from a stack of height >= 9.
void CheckTavreliPolicy(const Encoder& encoder, const GameState& state,
                        const MoveList& moves, CollisionStats* stats) {
  const tavreli::Position& pos = TavreliPosition(state);
  std::map<int, int> uses;
  for (Move m : moves) {
    const int index = encoder.PolicyIndex(state, m);
    ASSERT_GE(index, 0);
    ASSERT_LT(index, encoder.PolicySize());
    TavreliPolicyMove decoded;
    ASSERT_TRUE(DecodeTavreliPolicyIndex(index, state.SideToMove(), &decoded));
    ASSERT_EQ(decoded.from, m.from);
    ASSERT_EQ(decoded.to, m.to);
    ASSERT_EQ(decoded.bucket, TavreliCountBucket(m.count, pos.Height(m.from)));
    ++uses[index];
  }
  bool collision = false;
  for (Move m : moves) {
    if (uses[encoder.PolicyIndex(state, m)] < 2) continue;
    collision = true;
    ++stats->moves_in_collision;
    ASSERT_GE(pos.Height(m.from), 9) << state.PositionText();
    ASSERT_GE(m.count, 4);
    ASSERT_LE(m.count, pos.Height(m.from) - 4);
  }
  bool tall = false;
  for (tavreli::Bitboard own = pos.Tops().color[pos.SideToMove()]; own;) {
    tall |= pos.Height(tavreli::PopLsb(own)) >= 9;
  }
  ++stats->positions;
  stats->moves += moves.size();
  stats->positions_with_collision += collision;
  stats->positions_with_tall_stack += tall;
}

// For the measurement: the legal moves that would share an index if the
// count buckets were 0 = whole stack, 1 .. b-2 = exactly k, b-1 = k >= b-1
// (the measurement that led to the real map's 8 buckets).
int MovesCollidingWithBuckets(const Encoder& encoder, const GameState& state,
                              const MoveList& moves, int b) {
  const tavreli::Position& pos = TavreliPosition(state);
  std::map<int, int> uses;
  std::vector<int> keys;
  for (Move m : moves) {
    const int index = encoder.PolicyIndex(state, m);
    const int type = index / 64 / kTavreliCountBuckets;
    const int h = pos.Height(m.from);
    const int bucket = m.count == h ? 0 : std::min<int>(m.count, b - 1);
    keys.push_back((type * b + bucket) * 64 + index % 64);
    ++uses[keys.back()];
  }
  int colliding = 0;
  for (int key : keys) colliding += uses[key] > 1;
  return colliding;
}

TEST(TavreliPolicyMapTest, RandomGamesMapEveryLegalMove) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  std::unique_ptr<Encoder> encoder = NewEncoder(*game);
  CollisionStats stats;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    // Half the games build towers eagerly, so that deep stacks occur.
    const RandomPlayer player{seed % 2 ? 0.0 : 0.7, false};
    PlayRandomGame(*game, seed, 300, player,
                   [&](const GameState& state, const MoveList& moves) {
                     CheckTavreliPolicy(*encoder, state, moves, &stats);
                   });
    if (HasFatalFailure()) return;
  }
  std::printf(
      "tavreli policy map: %lld positions, %lld legal moves; %lld positions "
      "(%.3f%%) have a collision, %lld moves (%.4f%%) share an index; "
      "%lld positions have an own stack of height >= 9\n",
      static_cast<long long>(stats.positions),
      static_cast<long long>(stats.moves),
      static_cast<long long>(stats.positions_with_collision),
      100.0 * stats.positions_with_collision / stats.positions,
      static_cast<long long>(stats.moves_in_collision),
      100.0 * stats.moves_in_collision / stats.moves,
      static_cast<long long>(stats.positions_with_tall_stack));
  EXPECT_GT(stats.positions, 5000);
  // The games reach stacks deep enough for bucket 7 to be shared.
  EXPECT_GT(stats.positions_with_collision, 0);
}

TEST(TavleiPolicyMapTest, RandomGamesMapEveryLegalMoveUniquely) {
  for (std::string_view name : {"tavlei9", "tavlei11"}) {
    SCOPED_TRACE(name);
    std::unique_ptr<Game> game = NewGame(name);
    std::unique_ptr<Encoder> encoder = NewEncoder(*game);
    const int w = game->Info().board_width;
    int64_t positions = 0;
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      PlayRandomGame(
          *game, seed, 300, RandomPlayer{},
          [&](const GameState& state, const MoveList& moves) {
            ++positions;
            std::vector<int> indices;
            for (Move m : moves) {
              const int index = encoder->PolicyIndex(state, m);
              ASSERT_GE(index, 0);
              ASSERT_LT(index, encoder->PolicySize());
              int from, to;
              ASSERT_TRUE(DecodeTavleiPolicyIndex(index, w, &from, &to));
              ASSERT_EQ(from, m.from);
              ASSERT_EQ(to, m.to);
              indices.push_back(index);
            }
            std::sort(indices.begin(), indices.end());
            ASSERT_TRUE(std::adjacent_find(indices.begin(), indices.end()) ==
                        indices.end())
                << state.PositionText();
          });
      if (HasFatalFailure()) return;
    }
    EXPECT_GT(positions, 1000);
  }
}

TEST(TavleiPolicyMapTest, EveryIndexDecodesAndEncodesBack) {
  for (int w : {9, 11}) {
    int valid = 0;
    for (int index = 0; index < TavleiPolicySize(w); ++index) {
      int from, to;
      if (!DecodeTavleiPolicyIndex(index, w, &from, &to)) continue;
      ++valid;
      ASSERT_EQ(TavleiPolicyIndex(from, to, w), index);
    }
    // Each square reaches 2 * (w - 1) squares along its rank and file.
    EXPECT_EQ(valid, w * w * 2 * (w - 1));
  }
  // a1-a9 on 9x9: north, distance 8 = channel 7.
  EXPECT_EQ(TavleiPolicyIndex(0, 72, 9), 7 * 81);
  // k11-a11 on 11x11: west (3), distance 10: channel 39.
  EXPECT_EQ(TavleiPolicyIndex(120, 110, 11), 39 * 121 + 120);
  EXPECT_EQ(TavleiPolicyIndex(0, 10, 9), -1);
}

// ---- Measurements (run with --gtest_also_run_disabled_tests) ----

// The stack-height distribution of random play, behind the default number of
// stack layers: the share of stacks taller than L, and of pieces lying at
// depth >= L (which the layer planes only count), over every position; and
// how often policy indices collide under each way of playing.
TEST(TavreliMeasurements, DISABLED_StackHeightsAndCollisions) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  std::unique_ptr<Encoder> encoder = NewEncoder(*game);
  struct Policy {
    const char* name;
    RandomPlayer player;
    int max_plies;
  };
  const Policy policies[] = {
      {"uniform random", RandomPlayer{0.0, false}, 300},
      {"captures p=0.5", RandomPlayer{0.5, true}, 300},
      {"captures p=0.5, first 120 plies", RandomPlayer{0.5, true}, 120},
      {"onto any occupied p=0.5", RandomPlayer{0.5, false}, 300},
      {"onto any occupied p=0.8", RandomPlayer{0.8, false}, 300},
  };
  constexpr int kGames = 1000;
  std::printf("%d games per row, every position counted\n", kGames);
  for (const Policy& policy : policies) {
    std::array<int64_t, 33> stacks_by_height{};
    int64_t max_height = 0;
    CollisionStats collisions;
    constexpr int kAltBuckets[] = {6, 8, 12};
    int64_t alt_moves[3] = {}, alt_positions[3] = {};
    for (int g = 0; g < kGames; ++g) {
      PlayRandomGame(*game, 5000 + g, policy.max_plies, policy.player,
                     [&](const GameState& state, const MoveList& moves) {
                       CheckTavreliPolicy(*encoder, state, moves, &collisions);
                       for (int i = 0; i < 3; ++i) {
                         const int n = MovesCollidingWithBuckets(
                             *encoder, state, moves, kAltBuckets[i]);
                         alt_moves[i] += n;
                         alt_positions[i] += n > 0;
                       }
                       const tavreli::Position& pos = TavreliPosition(state);
                       for (int s = 0; s < 64; ++s) {
                         const int h = pos.Height(s);
                         if (h == 0) continue;
                         ++stacks_by_height[h];
                         max_height = std::max<int64_t>(max_height, h);
                       }
                     });
    }
    int64_t stacks = 0, pieces = 0;
    for (int h = 1; h <= 32; ++h) {
      stacks += stacks_by_height[h];
      pieces += stacks_by_height[h] * h;
    }
    std::printf(
        "\n%s: %lld positions (%.1f plies/game), max height %lld, mean "
        "height %.2f\n",
        policy.name, static_cast<long long>(collisions.positions),
        static_cast<double>(collisions.positions) / kGames,
        static_cast<long long>(max_height),
        static_cast<double>(pieces) / stacks);
    std::printf("  L  stacks taller than L   pieces at depth >= L\n");
    for (int l = 1; l <= 8; ++l) {
      int64_t taller = 0, deep = 0;
      for (int h = l + 1; h <= 32; ++h) {
        taller += stacks_by_height[h];
        deep += stacks_by_height[h] * (h - l);
      }
      std::printf("  %d  %8.3f%%             %8.3f%%\n", l,
                  100.0 * taller / stacks, 100.0 * deep / pieces);
    }
    std::printf(
        "  policy collisions: %.3f%% of positions, %.4f%% of legal moves "
        "(%lld moves); own stack of height >= 9 in %.3f%% of positions\n",
        100.0 * collisions.positions_with_collision / collisions.positions,
        100.0 * collisions.moves_in_collision / collisions.moves,
        static_cast<long long>(collisions.moves),
        100.0 * collisions.positions_with_tall_stack / collisions.positions);
    for (int i = 0; i < 3; ++i) {
      std::printf(
          "  with %d count buckets: %.3f%% of positions, %.4f%% of moves\n",
          kAltBuckets[i], 100.0 * alt_positions[i] / collisions.positions,
          100.0 * alt_moves[i] / collisions.moves);
    }
  }
}

// Encode and CacheKey time per position, over positions of random games.
TEST(TavreliMeasurements, DISABLED_EncodeSpeed) {
  for (std::string_view name : {"tavreli", "tavlei9", "tavlei11"}) {
    std::unique_ptr<Game> game = NewGame(name);
    std::unique_ptr<Encoder> encoder = NewEncoder(*game);
    std::vector<std::unique_ptr<GameState>> states;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      PlayRandomGame(*game, seed, 200, RandomPlayer{0.5, false},
                     [&](const GameState& state, const MoveList&) {
                       if (state.PliesPlayed() % 5 == 0) {
                         states.push_back(state.Clone());
                       }
                     });
    }
    std::vector<float> buffer(encoder->Shape().Size());
    uint64_t sink = 0;
    auto time = [&](auto&& body) {
      const int rounds = 20;
      const auto start = std::chrono::steady_clock::now();
      for (int r = 0; r < rounds; ++r) {
        for (const auto& s : states) body(*s);
      }
      const std::chrono::duration<double, std::nano> elapsed =
          std::chrono::steady_clock::now() - start;
      return elapsed.count() / (rounds * states.size());
    };
    const double encode_ns = time([&](const GameState& s) {
      encoder->Encode(s, buffer.data());
      sink += static_cast<uint64_t>(buffer[sink % buffer.size()]);
    });
    const double key_ns =
        time([&](const GameState& s) { sink += encoder->CacheKey(s); });
    MoveList moves;
    int64_t move_count = 0;
    for (const auto& s : states) {
      s->LegalMoves(&moves);
      move_count += moves.size();
    }
    const double index_ns = time([&](const GameState& s) {
      s.LegalMoves(&moves);
      for (Move m : moves) sink += encoder->PolicyIndex(s, m);
    });
    std::printf(
        "%s: %zu positions, %d floats: Encode %.0f ns, CacheKey %.0f ns, "
        "movegen + PolicyIndex of all %.1f moves %.0f ns (%llu)\n",
        std::string(name).c_str(), states.size(), encoder->Shape().Size(),
        encode_ns, key_ns, static_cast<double>(move_count) / states.size(),
        index_ns, static_cast<unsigned long long>(sink % 2));
  }
}

}  // namespace
}  // namespace volkhv::nn
