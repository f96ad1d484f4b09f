// Targets from an alpha-beta search (`volkhv records relabel`): each
// training position of a game record gets, as its root_wdl, the score of an
// alpha-beta search of that position (engine/search/alphabeta.h with the
// game's Heuristic) mapped to W - L by tanh(score / scale), the same mapping
// the MCTS search uses for its leaves' quiescence. The trainer then blends
// root_wdl with the game's result by `search_value_weight`, so a net learns
// a denser, less noisy value than the result alone (as Stockfish's NNUE nets
// learn from search scores). The same search's best move can also take a
// share of the policy target, so the net's priors learn the alpha-beta's
// choice. Game-neutral; no LibTorch.
#ifndef VOLKHV_SELFPLAY_RELABEL_H_
#define VOLKHV_SELFPLAY_RELABEL_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/search/alphabeta.h"
#include "proto/game_record.pb.h"

namespace volkhv::selfplay {

struct RelabelOptions {
  int depth = 3;  // alpha-beta iterations per position, [1, 16]
  search::AlphaBetaOptions search;
  double scale = 300;  // centipawns that map to tanh(1) = 0.76 in W - L
  // Share of the new root_wdl taken from the alpha-beta score; the rest is
  // the recorded search's root_wdl, [0, 1] (0: the value is left as it is).
  double mix = 1;
  // Share of the new policy target given to the alpha-beta's best move; the
  // rest is the recorded target, [0, 1).
  double policy_mix = 0;

  // "alphabeta depth 3, scale 300, mix 1": GameRecord.value_relabel.
  std::string Summary() const;
  // "alphabeta depth 3, policy mix 0.5": GameRecord.policy_relabel.
  std::string PolicySummary() const;
  // An error naming the first field out of range, or saying that neither
  // mix changes anything.
  absl::Status Validate() const;
};

// W, D, L for the side to move of an alpha-beta result: W - L is
// tanh(score / scale), or +-1 for a proven result; the draw share is
// `recorded_draw` where that leaves W and L at or above 0, else as much of
// it as does. Thread-safe (pure).
std::array<float, 3> WdlFromScore(const search::AlphaBetaResult& result,
                                  double scale, float recorded_draw);

struct RelabelCounts {
  int64_t games = 0;
  int64_t positions = 0;  // plies relabelled (full searches)
  int64_t proven = 0;     // of them, scored as a proven win or loss
  uint64_t nodes = 0;
};

// Gives `best` the share `policy_mix` of the ply's policy target. A visit
// count target stays one: `best` gains visits in proportion (rounded), and
// is added to `visits` when the search did not list it; an improved policy
// target's probabilities are mixed directly. Leaves a ply without visits
// unchanged. Thread-safe (pure).
void MixPolicyTarget(Move best, double policy_mix, proto::PlyRecord* ply);

// Relabels games; keeps one alpha-beta search (and its table) per game
// name it meets. Not thread-safe: one per thread.
class Relabeller {
 public:
  explicit Relabeller(const RelabelOptions& options);
  ~Relabeller();
  Relabeller(const Relabeller&) = delete;
  Relabeller& operator=(const Relabeller&) = delete;

  // Replays `game` through the rules and sets root_wdl of every ply with
  // full_search (the positions the trainer learns from; cheap searches
  // keep theirs) and value_relabel when mix > 0, and mixes the alpha-beta's
  // move into those plies' policy targets and sets policy_relabel when
  // policy_mix > 0. The search is cleared first and keeps
  // its table between the game's plies, so the result depends only on the
  // game and the options. A game that does not replay legally, or whose
  // game has no static evaluation, is an error naming it; `game` is then
  // left unchanged.
  absl::Status Relabel(proto::GameRecord* game, RelabelCounts* counts);

 private:
  struct PerGame;
  absl::StatusOr<PerGame*> SearchFor(const GameState& state);

  RelabelOptions options_;
  std::map<std::string, std::unique_ptr<PerGame>> games_;
};

// Relabels every record file of `in` (a directory, not recursive, or one
// .vrec file) into the directory `out` (created), each written atomically
// under the input file's name. A file already present in `out` is skipped,
// so a stopped run continues where it stopped. `threads` files are
// relabelled at once. `progress` (may be empty) is called after each file
// with its name and counts, from the worker threads one at a time. The
// first error (an unreadable file, a game that does not replay) stops the
// run and names the file; files already written stay.
absl::StatusOr<RelabelCounts> RelabelRecords(
    const RelabelOptions& options, const std::string& in,
    const std::string& out, int threads,
    const std::function<void(const std::string& file,
                             const RelabelCounts& counts)>& progress);

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_RELABEL_H_
