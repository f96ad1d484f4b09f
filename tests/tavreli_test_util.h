// Helpers shared by the Tavreli test files.
#ifndef VOLKHV_TESTS_TAVRELI_TEST_UTIL_H_
#define VOLKHV_TESTS_TAVRELI_TEST_UTIL_H_

#include <string>
#include <string_view>

#include "engine/tavreli/notation.h"
#include "engine/tavreli/position.h"
#include "engine/tavreli/tfen.h"
#include "gtest/gtest.h"

namespace volkhv::tavreli {

inline Position PositionOf(std::string_view tfen) {
  absl::StatusOr<Position> pos = ParseTfen(tfen);
  EXPECT_TRUE(pos.ok()) << tfen << ": " << pos.status().message();
  return pos.ok() ? *pos : *ParseTfen(kStartTfen);
}

// Plays moves in notation from a TFEN; returns the resulting TFEN.
inline std::string PlayMoves(std::string_view tfen,
                             std::initializer_list<std::string_view> moves) {
  Position pos = PositionOf(tfen);
  for (std::string_view text : moves) {
    absl::StatusOr<Move> move = ParseMove(pos, text);
    EXPECT_TRUE(move.ok()) << text << ": " << move.status().message();
    if (!move.ok()) return "";
    pos.Apply(*move);
  }
  return ToTfen(pos);
}

}  // namespace volkhv::tavreli

#endif  // VOLKHV_TESTS_TAVRELI_TEST_UTIL_H_
