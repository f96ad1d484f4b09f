// Games, positions and encoders for the tests: a game by name, its prover,
// positions sampled from random games, the default encoder of a game, and
// brute-force search for forced wins.
#ifndef VOLKHV_TESTS_GAME_FIXTURES_H_
#define VOLKHV_TESTS_GAME_FIXTURES_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
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

// A state of the game called `game_name`: its start, or the position
// `text` in the game's notation (a test failure if either is unknown).
inline std::unique_ptr<GameState> StateOf(std::string_view game_name,
                                          std::string_view text = "") {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(game_name);
  EXPECT_TRUE(game.ok()) << game.status();
  if (!game.ok()) return nullptr;
  if (text.empty()) return (*game)->NewInitialState();
  absl::StatusOr<std::unique_ptr<GameState>> state =
      (*game)->NewStateFromText(text);
  EXPECT_TRUE(state.ok()) << text << ": " << state.status();
  return state.ok() ? *std::move(state) : nullptr;
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

// A move for brute force to try first at the winner's turns (ignored when it
// is not legal there): it orders the search and never changes its answer.
using FirstTry = std::function<Move(const GameState&)>;

bool WinsWithin(GameState& state, int plies, const FirstTry& first = nullptr);

// Whether `move` (legal in `state`) wins for the side to move within `plies`
// plies (odd) whatever the opponent does, by trying everything: it ends the
// game in the mover's favour, or (plies >= 3) it leaves the game going and
// after every reply the game is over in the mover's favour or the mover
// WinsWithin(plies - 2). `state` is as it was afterwards.
inline bool MoveWinsWithin(GameState& state, Move move, int plies,
                           const FirstTry& first = nullptr) {
  state.Play(move);
  const GameResult result = state.Result();
  bool win = false;
  if (result.IsOver()) {
    win = result.outcome == Outcome::kLoss;  // for the side now to move
  } else if (plies >= 3) {
    MoveList replies;
    state.LegalMoves(&replies);
    win = true;
    for (int i = 0; i < replies.size() && win; ++i) {
      state.Play(replies[i]);
      const GameResult after = state.Result();
      win = after.IsOver() ? after.outcome == Outcome::kWin
                           : WinsWithin(state, plies - 2, first);
      state.Undo();
    }
  }
  state.Undo();
  return win;
}

// Whether the side to move can force a win within `plies` plies (odd): some
// legal move MoveWinsWithin(plies), `first`'s move tried first.
inline bool WinsWithin(GameState& state, int plies, const FirstTry& first) {
  MoveList moves;
  state.LegalMoves(&moves);
  const Move hint = first ? first(state) : Move{};
  if (moves.contains(hint) && MoveWinsWithin(state, hint, plies, first)) {
    return true;
  }
  for (Move move : moves) {
    if (move != hint && MoveWinsWithin(state, move, plies, first)) return true;
  }
  return false;
}

}  // namespace volkhv::testing

#endif  // VOLKHV_TESTS_GAME_FIXTURES_H_
