// A move of any board game Volkhv plays, and a fixed-capacity move list.
// Squares are indices (rank * width + file); the game gives them meaning.
#ifndef VOLKHV_ENGINE_GAME_MOVE_H_
#define VOLKHV_ENGINE_GAME_MOVE_H_

#include <array>
#include <cassert>
#include <cstdint>

namespace volkhv {

// (from, to, count): count is how many pieces move (Tavreli: the top `count`
// pieces of the source stack; games with one piece per square use 1).
struct Move {
  uint8_t from = 0;
  uint8_t to = 0;
  uint8_t count = 0;  // 0 only in the null move.
  uint8_t reserved = 0;

  constexpr bool IsNull() const { return count == 0; }
  constexpr uint32_t Packed() const {
    return uint32_t{from} | uint32_t{to} << 8 | uint32_t{count} << 16;
  }
  friend constexpr bool operator==(Move a, Move b) {
    return a.Packed() == b.Packed();
  }
  friend constexpr bool operator!=(Move a, Move b) { return !(a == b); }
  friend constexpr bool operator<(Move a, Move b) {
    return a.Packed() < b.Packed();
  }
};
static_assert(sizeof(Move) == 4, "Move must stay one 32-bit word");

constexpr Move MakeMove(int from, int to, int count) {
  return Move{static_cast<uint8_t>(from), static_cast<uint8_t>(to),
              static_cast<uint8_t>(count), 0};
}

// Enough for any Tavreli position (at most 32 pieces, each moving with at most
// 35 destinations, plus castling) and any Tavlei position.
inline constexpr int kMaxMoves = 1152;

class MoveList {
 public:
  void push_back(Move m) {
    assert(size_ < kMaxMoves);
    moves_[size_++] = m;
  }
  void clear() { size_ = 0; }
  // Keeps the first `size` moves (size <= size()).
  void truncate(int size) {
    assert(size >= 0 && size <= size_);
    size_ = size;
  }
  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Move operator[](int i) const { return moves_[i]; }
  Move& operator[](int i) { return moves_[i]; }
  const Move* begin() const { return moves_.data(); }
  const Move* end() const { return moves_.data() + size_; }
  Move* begin() { return moves_.data(); }
  Move* end() { return moves_.data() + size_; }
  bool contains(Move m) const {
    for (Move x : *this) {
      if (x == m) return true;
    }
    return false;
  }

 private:
  int size_ = 0;
  std::array<Move, kMaxMoves> moves_;
};

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_GAME_MOVE_H_
