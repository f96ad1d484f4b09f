// Tavlei variant geometry and rule switches (tavlei9, tavlei11), built once
// per Game and shared read-only by all its states.
#ifndef VOLKHV_ENGINE_TAVLEI_RULES_H_
#define VOLKHV_ENGINE_TAVLEI_RULES_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/game/game.h"

namespace volkhv::tavlei {

inline constexpr int kMaxWidth = 11;
inline constexpr int kMaxSquares = kMaxWidth * kMaxWidth;
inline constexpr int kMaxRay = kMaxWidth - 1;
// Directions: 0 north (+width), 1 east (+1), 2 south (-width), 3 west (-1).
inline constexpr int kNumDirections = 4;
inline constexpr int kOffBoard = -1;

// The GameOptions key limiting how far the prince/king moves.
inline constexpr char kPrinceMaxSteps[] = "prince_max_steps";

enum class Variant { kTavlei9, kTavlei11 };

// Everything about a variant that does not change during a game. Immutable
// after MakeRules(), so safe to read from any number of threads.
struct Rules {
  Variant variant = Variant::kTavlei9;
  GameInfo info;
  int width = 0;  // == height
  int num_squares = 0;
  int throne = 0;
  // Squares the king may travel in one move (the board width if unlimited).
  int king_max_steps = 0;
  // tavlei11: every piece may pass over the empty throne; tavlei9: only the
  // prince may.
  bool others_pass_empty_throne = false;
  const char* king_noun = "";    // "prince" or "king"
  const char* corner_noun = "";  // "exit" or "refuge"
  const char* start_text = "";   // the start position in position notation
  std::array<bool, kMaxSquares> is_corner{};  // exits / refuges
  // Squares with a straight line to an exit/refuge (the board's edges).
  std::array<bool, kMaxSquares> on_corner_line{};
  std::array<bool, kMaxSquares> next_to_throne{};
  // neighbor[sq][dir]: the adjacent square, or kOffBoard.
  std::array<std::array<int8_t, kNumDirections>, kMaxSquares> neighbor{};
  // ray[sq][dir][0 .. ray_length[sq][dir]): squares from sq to the edge.
  std::array<std::array<uint8_t, kNumDirections>, kMaxSquares> ray_length{};
  std::array<std::array<std::array<uint8_t, kMaxRay>, kNumDirections>,
             kMaxSquares>
      ray{};
};

// Builds the rules of "tavlei9" or "tavlei11". The only option known is
// prince_max_steps (0 = unlimited, N > 0 = at most N squares). Errors name
// the unknown variant, the unknown option key or the bad value.
// Thread-safe.
absl::StatusOr<std::shared_ptr<const Rules>> MakeRules(
    std::string_view name, const GameOptions& options);

}  // namespace volkhv::tavlei

#endif  // VOLKHV_ENGINE_TAVLEI_RULES_H_
