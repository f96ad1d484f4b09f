// A match's games as protobuf game records (proto/game_record.proto), for
// `volkhv match --records-out`: to look at with `volkhv records`, or, with
// the players' moves as targets, to train a net on (supervised learning
// from a teacher such as the alpha-beta baseline).
#ifndef VOLKHV_SELFPLAY_MATCH_RECORDS_H_
#define VOLKHV_SELFPLAY_MATCH_RECORDS_H_

#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "proto/game_record.pb.h"
#include "selfplay/match.h"

namespace volkhv::selfplay {

// What the plies of a match's records are as training data.
enum class MatchRecordTargets {
  // None: every ply is played, not trained on (full_search false).
  kNone,
  // Every move a player chose (not the opening's) is a training target: its
  // policy target is the move itself (one visit), its root WDL the mover's
  // evaluation when it gave one (PlayerEval: QFromCentipawns of its score,
  // +-1 for a proven result, as W = (1 + q) / 2, D = 0, L = (1 - q) / 2;
  // the trainer blends it with the result by search_value_weight). A
  // resumed game's plies stay untrained: its opening is not known.
  kPlayed,
};

// "none" or "played"; anything else is an error naming the value.
absl::StatusOr<MatchRecordTargets> ParseMatchRecordTargets(
    std::string_view text);

// One record per game of `report`, in its order. `game` is the game played
// and `options` the match's (its variant is the records' game options).
// Thread-compatible (pure).
std::vector<proto::GameRecord> MatchRecords(const MatchReport& report,
                                            const Game& game,
                                            const MatchOptions& options,
                                            MatchRecordTargets targets);

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_MATCH_RECORDS_H_
