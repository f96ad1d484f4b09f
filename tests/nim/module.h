// A toy game for the tests: one-pile Nim. A pile of stones (the option
// "stones", 1..20, default 10); a move takes 1, 2 or 3 stones; whoever
// cannot move (the pile is empty) loses. The player to move wins exactly
// when the pile is not a multiple of 4, by leaving a multiple of 4.
//
// It is a whole game module in one folder, registered by the tests alone
// (RegisterGame(nim::Module()) in the test binaries that use it), so that it
// never shows in the CLI. It provides no alpha-beta evaluation and no
// symmetries; it names its own termination (kLastStoneTaken), as any game
// may, without an edit outside this folder.
//
// Squares are pile sizes 0..stones on a 1 x (stones + 1) board; the move
// taking k stones from a pile of p is (p, p - k, 1) and reads "k". The
// position text is "<pile> <side to move, 0 or 1>", e.g. "10 0".
#ifndef VOLKHV_TESTS_NIM_MODULE_H_
#define VOLKHV_TESTS_NIM_MODULE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/game/game_module.h"
#include "engine/game/result.h"

namespace volkhv::nim {

inline constexpr int kMaxTake = 3;

// The pile is empty: the side to move, who cannot move, has lost.
inline constexpr Termination kLastStoneTaken{kFirstFreeGameTermination};

// "nim". Thread-safe.
GameModule Module();

// Registers Module() with the game registry the first time it is called and
// returns true; later calls only return true. For the tests' static
// initializers: several files of one test binary may each call it.
bool RegisterNim();

// The game with `options` ("stones"); errors name a bad option.
absl::StatusOr<std::unique_ptr<Game>> MakeNimGame(const GameOptions& options);

}  // namespace volkhv::nim

#endif  // VOLKHV_TESTS_NIM_MODULE_H_
