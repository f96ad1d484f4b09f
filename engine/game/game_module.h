// Everything the rest of Volkhv may ask of one game variant, in one value: a
// game's folder (engine/tavreli, engine/tavlei, ...) fills a GameModule and
// the registry (engine/games/games.h) holds one per variant. Search,
// self-play, training, the protocols and the CLI reach a game only through
// the registry, never by its name.
#ifndef VOLKHV_ENGINE_GAME_GAME_MODULE_H_
#define VOLKHV_ENGINE_GAME_GAME_MODULE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/encoder.h"
#include "engine/game/game.h"
#include "engine/game/heuristic.h"
#include "engine/game/prover.h"
#include "engine/game/result.h"

namespace volkhv {

// One integer option a variant accepts in its GameOptions.
struct GameOptionInfo {
  std::string name;  // the GameOptions key, e.g. "prince_max_steps"
  int min = 0;
  int max = 0;
  int default_value = 0;  // what the game plays when the option is not given
  std::string help;       // one line for --help and the UCI option
};

// A position the movegen benchmark times, and its perft depth.
struct BenchPosition {
  std::string name;
  std::string text;  // in the game's notation; empty: the start position
  int depth = 1;
};

// A board symmetry under which the rules and the encoder are invariant (for
// data augmentation): squares[sq] is where it sends square sq, policy[i] the
// policy index of the moved move of index i (-1 where i is no move).
struct BoardSymmetry {
  std::vector<int> squares;
  std::vector<int> policy;
};

// Immutable once registered; its functions are thread-safe.
struct GameModule {
  std::string name;  // the variant's name: "tavreli", "tavlei9", ...
  // Makes the game; errors name an unknown or out-of-range option.
  std::function<absl::StatusOr<std::unique_ptr<Game>>(const GameOptions&)>
      make_game;
  // The options make_game accepts (the registry validates nothing itself).
  std::vector<GameOptionInfo> options;
  // The network's view of the game; errors name what does not fit.
  std::function<absl::StatusOr<std::unique_ptr<Encoder>>(const GameInfo&,
                                                         const EncoderOptions&)>
      make_encoder;
  // The alpha-beta baseline's evaluation; empty when the game has none.
  std::function<std::unique_ptr<Heuristic>(const GameInfo&)> make_heuristic;
  // The symmetries other than the identity, for `encoder` (made by
  // make_encoder); empty (or not set) when the game has none.
  std::function<absl::StatusOr<std::vector<BoardSymmetry>>(const GameInfo&,
                                                           const Encoder&)>
      symmetries;
  // The search's tactics prover (engine/game/prover.h); null when the game
  // has none. Lives for the program's life; thread-safe.
  const Prover* prover = nullptr;
  // `volkhv bench movegen`'s default positions.
  std::vector<BenchPosition> bench_positions;
  // The reasons the game's own rules end it for (its GameResults'
  // terminations beyond the generic ones of engine/game/result.h), each
  // with a code that is not generic (IsGenericTermination) and not another
  // of its own: the registry refuses the module otherwise. Records store the
  // codes, so a code once used keeps its meaning.
  std::vector<TerminationInfo> terminations;
};

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_GAME_GAME_MODULE_H_
