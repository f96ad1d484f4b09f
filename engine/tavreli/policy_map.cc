#include "engine/tavreli/policy_map.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace volkhv::tavreli {
namespace {

// (file, rank) steps, in move-type order.
constexpr int kQueenDirs[8][2] = {{0, 1}, {1, 0},  {0, -1},  {-1, 0},
                                  {1, 1}, {1, -1}, {-1, -1}, {-1, 1}};
constexpr int kKnightLeaps[8][2] = {{1, 2},   {2, 1},   {2, -1}, {1, -2},
                                    {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};

// The (file, rank) step of a move type, distance included.
void Step(int move_type, int* df, int* dr) {
  if (move_type < 56) {
    const int dir = move_type / 7;
    const int dist = move_type % 7 + 1;
    *df = kQueenDirs[dir][0] * dist;
    *dr = kQueenDirs[dir][1] * dist;
  } else {
    *df = kKnightLeaps[move_type - 56][0];
    *dr = kKnightLeaps[move_type - 56][1];
  }
}

// move type of (from, to) in the side to move's frame, or -1.
using MoveTypeTable = std::array<std::array<int8_t, 64>, 64>;

const MoveTypeTable& MoveTypes() {
  static const MoveTypeTable table = [] {
    MoveTypeTable t;
    for (auto& row : t) row.fill(-1);
    for (int from = 0; from < 64; ++from) {
      for (int type = 0; type < kTavreliMoveTypes; ++type) {
        int df, dr;
        Step(type, &df, &dr);
        const int file = from % 8 + df;
        const int rank = from / 8 + dr;
        if (file < 0 || file > 7 || rank < 0 || rank > 7) continue;
        t[from][rank * 8 + file] = static_cast<int8_t>(type);
      }
    }
    return t;
  }();
  return table;
}

}  // namespace

int TavreliCountBucket(int count, int height) {
  if (count >= height) return 0;
  if (count <= 3) return count;
  const int left = height - count;
  return left <= 3 ? 3 + left : 7;
}

int TavreliPolicyIndex(int from, int to, int count, int height, int side) {
  const int flip = side == 0 ? 0 : 56;
  const int rel_from = from ^ flip;
  const int type = MoveTypes()[rel_from][to ^ flip];
  if (type < 0) return -1;
  const int channel =
      type * kTavreliCountBuckets + TavreliCountBucket(count, height);
  return channel * 64 + rel_from;
}

bool DecodeTavreliPolicyIndex(int index, int side, TavreliPolicyMove* out) {
  if (index < 0 || index >= kTavreliPolicySize) return false;
  const int flip = side == 0 ? 0 : 56;
  const int rel_from = index % 64;
  const int channel = index / 64;
  int df, dr;
  Step(channel / kTavreliCountBuckets, &df, &dr);
  const int file = rel_from % 8 + df;
  const int rank = rel_from / 8 + dr;
  if (file < 0 || file > 7 || rank < 0 || rank > 7) return false;
  out->from = rel_from ^ flip;
  out->to = (rank * 8 + file) ^ flip;
  out->bucket = channel % kTavreliCountBuckets;
  return true;
}

}  // namespace volkhv::tavreli
