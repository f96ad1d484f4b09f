// The game-neutral interface: everything the search, self-play, training and
// the CLI may know about a game. Tavreli and Tavlei implement it; a third game
// plugs in by implementing it and registering in engine/games. Tactics a
// game can find cheaply are not part of it: see engine/game/prover.h.
#ifndef VOLKHV_ENGINE_GAME_GAME_H_
#define VOLKHV_ENGINE_GAME_GAME_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/move.h"
#include "engine/game/result.h"

namespace volkhv {

// Named integer options of a game variant (e.g. Tavlei's prince_max_steps).
// Each game rejects keys it does not know.
using GameOptions = std::map<std::string, int, std::less<>>;

// Static facts about a game variant.
struct GameInfo {
  std::string name;                // "tavreli", "tavlei9", "tavlei11"
  int board_width = 0;             // files
  int board_height = 0;            // ranks; square index = rank * width + file
  int max_stack_height = 1;        // 1 for games with one piece per square
  std::string first_player_name;   // "white", "attackers"
  std::string second_player_name;  // "black", "defenders"
};

// A game in progress: a position plus the history needed for repetition and
// Undo. While one thread plays or undoes moves on a GameState no other may
// use it; its const methods may run on several threads at once (an
// implementation keeps no mutable state: the search's leaf search clones a
// leaf while the network encodes it). Clone() to hand a copy to another
// thread.
class GameState {
 public:
  virtual ~GameState() = default;

  virtual const GameInfo& Info() const = 0;
  virtual std::unique_ptr<GameState> Clone() const = 0;

  // 0 = the first player (Tavreli White, Tavlei attackers), 1 = the second.
  virtual int SideToMove() const = 0;
  // Plies played since this GameState was created from its start position.
  virtual int PliesPlayed() const = 0;

  // Legal moves of the side to move (empty when the game is decided by the
  // board itself, e.g. a Tavlei king captured). Order is deterministic.
  virtual void LegalMoves(MoveList* moves) const = 0;
  // Plays a move that LegalMoves() returned. Anything else is undefined.
  virtual void Play(Move move) = 0;
  // Takes back the last Play(). Requires PliesPlayed() > 0.
  virtual void Undo() = 0;

  // The state of the game including history rules (repetition, fifty moves).
  virtual GameResult Result() const = 0;
  // Whether the side to move is in check (always false for games without).
  virtual bool InCheck() const = 0;
  // How often the current position has occurred in this game (since the
  // state's start position), this time included: 1 the first time, 3 ends
  // the game by repetition.
  virtual int Occurrences() const = 0;
  // Hash of everything that defines position identity for repetition.
  virtual uint64_t Hash() const = 0;

  // The position in the game's one-line notation (TFEN for Tavreli).
  virtual std::string PositionText() const = 0;
  // A legal move of the current position in canonical notation.
  virtual std::string MoveText(Move move) const = 0;
  // Parses a move (lenient forms accepted) and checks it is legal here.
  virtual absl::StatusOr<Move> ParseMove(std::string_view text) const = 0;
  // A multi-line human-readable drawing of the board.
  virtual std::string BoardDiagram() const = 0;
  // How many pieces stand on a square (a stack's height; 0 or 1 in games
  // with one piece per square).
  virtual int PiecesOn(int square) const = 0;

  // Leaf count of the legal-move tree of the given depth from the current
  // position (history rules not applied), with the game's fastest generator.
  virtual uint64_t Perft(int depth) const = 0;
};

// A game variant: makes positions. Thread-safe (immutable after creation).
class Game {
 public:
  virtual ~Game() = default;
  virtual const GameInfo& Info() const = 0;
  virtual std::unique_ptr<GameState> NewInitialState() const = 0;
  // Parses a position in the game's notation; errors name the field.
  virtual absl::StatusOr<std::unique_ptr<GameState>> NewStateFromText(
      std::string_view text) const = 0;
};

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_GAME_GAME_H_
