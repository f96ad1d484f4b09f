// Player specifications as `volkhv match --player` takes them
// ("alphabeta:depth=3", "mcts:net=gen7.net,visits=200") and the factories
// that make a fresh player per game from them.
#ifndef VOLKHV_SELFPLAY_PLAYER_SPEC_H_
#define VOLKHV_SELFPLAY_PLAYER_SPEC_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/search/alphabeta.h"
#include "engine/search/players.h"
#include "nn/evaluator.h"
#include "selfplay/game_clock.h"
#include "selfplay/uci_player.h"

namespace volkhv::selfplay {

// Makes players of one kind, one per game. Thread-safe; players it makes
// share its evaluator (if any) and heuristic.
class PlayerFactory {
 public:
  virtual ~PlayerFactory() = default;
  // The label in result tables and game files: the spec as given, or its
  // name=... value.
  virtual const std::string& Name() const = 0;
  // A fresh player for one game; `seed` differs from game to game.
  virtual std::unique_ptr<search::Player> Make(uint64_t seed) const = 0;
  // The spec's own time control (tc=), which beats the match's. Set once,
  // before the factory is shared.
  const std::optional<ClockSpec>& clock() const { return clock_; }
  void set_clock(const std::optional<ClockSpec>& clock) { clock_ = clock; }

 private:
  std::optional<ClockSpec> clock_;
};

// What specs may need from the match that plays them.
struct PlayerContext {
  // The match has a clock (--tc): a player needs no limit of its own.
  bool match_clock = false;
  UciContext uci;  // for uci: players
};

// The help text of the spec syntax (one line per kind, indented).
std::string PlayerSpecHelp();

// The settings of an `alphabeta:KEY=VALUE,...` spec (depth, movetime,
// nodes, hash, qdepth, name), as MakePlayerFactory reads them; `volkhv
// engine --player` plays it. Errors name the key or value at fault.
struct AlphaBetaSpec {
  std::string name;  // the spec as given, or its name= value
  search::AlphaBetaLimits limits;
  search::AlphaBetaOptions options;
};
absl::StatusOr<AlphaBetaSpec> ParseAlphaBetaSpec(std::string_view spec);

// Parses `KIND[:KEY=VALUE,...]`; errors name the key or value at fault.
// net=random needs no factory (uniform priors, even value); any other net
// (a file, or "auto", the default) is `evaluators`(net, game), which
// players sharing a net may want to load once (nn::CachingEvaluatorFactory).
// Without `evaluators` such a spec is an error. Any kind takes tc=CLOCK
// (ParseClockSpec) and name=LABEL. A `uci:` factory keeps a pointer to
// `game`, which must outlive it.
absl::StatusOr<std::shared_ptr<PlayerFactory>> MakePlayerFactory(
    std::string_view spec, const Game& game,
    const nn::EvaluatorFactory& evaluators, const PlayerContext& context = {});

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_PLAYER_SPEC_H_
