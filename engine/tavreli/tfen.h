// TFEN: the one-line Tavreli position notation (rules page §10).
#ifndef VOLKHV_ENGINE_TAVRELI_TFEN_H_
#define VOLKHV_ENGINE_TAVRELI_TFEN_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/tavreli/position.h"

namespace volkhv::tavreli {

inline constexpr std::string_view kStartTfen =
    "rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/RNBQKBNR w KQkq - 0 1";

// Parses and validates a TFEN. Errors name the field (and rank/file) and the
// problem; invalid positions are rejected, never repaired.
absl::StatusOr<Position> ParseTfen(std::string_view tfen);

// The canonical TFEN of a position.
std::string ToTfen(const Position& pos);

// The TFEN token of one piece ("K", "PR~", "+h"); `moved` matters for pawns on
// their own second rank only.
std::string PieceToken(Piece piece, bool moved_pawn_on_second_rank);

}  // namespace volkhv::tavreli

#endif  // VOLKHV_ENGINE_TAVRELI_TFEN_H_
