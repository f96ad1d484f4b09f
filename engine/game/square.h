// Square names ("a1" .. "k11") for boards up to 26 files and 99 ranks.
#ifndef VOLKHV_ENGINE_GAME_SQUARE_H_
#define VOLKHV_ENGINE_GAME_SQUARE_H_

#include <optional>
#include <string>
#include <string_view>

namespace volkhv {

// Square index = rank * width + file (rank and file from 0).
std::string SquareName(int square, int width);

// Parses a square name at the start of `text` for a width x height board.
// On success returns the square and sets *consumed to the characters used.
// Accepts lower-case files only (upper case is not a square: it is a piece).
std::optional<int> ParseSquarePrefix(std::string_view text, int width,
                                     int height, int* consumed);

// Parses a whole string as one square name.
std::optional<int> ParseSquare(std::string_view text, int width, int height);

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_GAME_SQUARE_H_
