#include "engine/game/square.h"

namespace volkhv {

std::string SquareName(int square, int width) {
  std::string name(1, static_cast<char>('a' + square % width));
  name += std::to_string(square / width + 1);
  return name;
}

std::optional<int> ParseSquarePrefix(std::string_view text, int width,
                                     int height, int* consumed) {
  if (text.size() < 2) return std::nullopt;
  const int file = text[0] - 'a';
  if (file < 0 || file >= width) return std::nullopt;
  size_t i = 1;
  int rank = 0;
  while (i < text.size() && i < 3 && text[i] >= '0' && text[i] <= '9') {
    rank = rank * 10 + (text[i] - '0');
    ++i;
  }
  if (i == 1 || text[1] == '0' || rank < 1 || rank > height) {
    return std::nullopt;
  }
  *consumed = static_cast<int>(i);
  return (rank - 1) * width + file;
}

std::optional<int> ParseSquare(std::string_view text, int width, int height) {
  int consumed = 0;
  std::optional<int> square = ParseSquarePrefix(text, width, height, &consumed);
  if (!square || consumed != static_cast<int>(text.size())) {
    return std::nullopt;
  }
  return square;
}

}  // namespace volkhv
