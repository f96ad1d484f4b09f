// Games, positions and encoders for the tests: a game by name, its prover,
// positions sampled from random games, and the default encoder of a game.
#ifndef VOLKHV_TESTS_GAME_FIXTURES_H_
#define VOLKHV_TESTS_GAME_FIXTURES_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/game/encoder.h"
#include "engine/game/game.h"
#include "engine/games/games.h"
#include "gtest/gtest.h"

namespace volkhv::testing {

// The game called `name`, with default options (a test failure if unknown).
inline std::unique_ptr<Game> NewGame(const std::string& name) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(name);
  EXPECT_TRUE(game.ok()) << game.status();
  return game.ok() ? *std::move(game) : nullptr;
}

// The registry's prover for the game of `state` (engine/games/games.h:
// GameProver; null for Tavreli), as every search caller passes it.
inline const Prover* ProverOf(const GameState& state) {
  std::unique_ptr<Game> game = NewGame(state.Info().name);
  return game != nullptr ? GameProver(*game) : nullptr;
}

// `count` positions of random games of `game`, each with a legal move and not
// over: uniformly random moves from the start, a game that passes
// `max_plies` plies starts again, and each position reached is kept with
// probability 1 / `keep_one_in`. The same seed gives the same positions.
inline std::vector<std::unique_ptr<GameState>> RandomPositions(
    const Game& game, int count, uint64_t seed, int keep_one_in = 3,
    int max_plies = 150) {
  std::mt19937 rng(seed);
  std::vector<std::unique_ptr<GameState>> states;
  std::unique_ptr<GameState> state = game.NewInitialState();
  while (static_cast<int>(states.size()) < count) {
    MoveList moves;
    state->LegalMoves(&moves);
    if (moves.empty() || state->Result().IsOver() ||
        state->PliesPlayed() > max_plies) {
      state = game.NewInitialState();
      continue;
    }
    if (rng() % keep_one_in == 0) states.push_back(state->Clone());
    state->Play(moves[rng() % moves.size()]);
  }
  return states;
}

// The encoder of `game` with the default options.
inline std::unique_ptr<Encoder> EncoderFor(const Game& game) {
  absl::StatusOr<std::unique_ptr<Encoder>> encoder =
      MakeEncoder(game.Info(), EncoderOptions{});
  EXPECT_TRUE(encoder.ok()) << encoder.status();
  return *std::move(encoder);
}

inline std::unique_ptr<Encoder> EncoderFor(const std::string& game_name) {
  return EncoderFor(*NewGame(game_name));
}

}  // namespace volkhv::testing

#endif  // VOLKHV_TESTS_GAME_FIXTURES_H_
