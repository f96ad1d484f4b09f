// The Tavreli policy map: every legal move <-> one of 32768 policy logits,
// (move type, count bucket, from square), in the side to move's frame.
#ifndef VOLKHV_ENGINE_TAVRELI_POLICY_MAP_H_
#define VOLKHV_ENGINE_TAVRELI_POLICY_MAP_H_

namespace volkhv::tavreli {

// index = channel * 64 + from, channel = move_type * 8 + count_bucket, where
// squares are seen from the side to move (Black: rank r -> 7 - r, files
// unchanged), and
//   move_type 0..55: queen-like, direction d * 7 + (distance - 1), the
//     directions N, E, S, W, NE, SE, SW, NW of the flipped frame ("N" is
//     always towards the opponent); pawn steps, en passant and castling
//     (the king's two-square move) are queen-like moves too;
//   move_type 56..63: the knight leaps (+1,+2) (+2,+1) (+2,-1) (+1,-2)
//     (-1,-2) (-2,-1) (-2,+1) (-1,+2) as (file, rank) steps in that frame;
//   count_bucket, for `count` of a stack of `height`:
//     0 = the whole stack; 1, 2, 3 = the top 1, 2, 3 pieces of a taller
//     stack; 4, 5, 6 = all but 1, 2, 3 pieces (when count > 3);
//     7 = the rest (4 <= count <= height - 4).
// Two legal moves share an index only in bucket 7, from stacks of height
// >= 9; the search splits the prior between them and training adds their
// visits up. A first map with 4 buckets (whole, 1, 2, 3+) shared an index in
// 30-45 % of positions of capture-heavy random play; see docs/network.md.
inline constexpr int kTavreliMoveTypes = 64;
inline constexpr int kTavreliCountBuckets = 8;
inline constexpr int kTavreliPolicyChannels =
    kTavreliMoveTypes * kTavreliCountBuckets;                           // 512
inline constexpr int kTavreliPolicySize = kTavreliPolicyChannels * 64;  // 32768

// The count bucket of a move of `count` pieces from a stack of `height`.
int TavreliCountBucket(int count, int height);

// The policy index of a move from -> to (board squares, rank * 8 + file) of
// `count` pieces from a stack of `height`, `side` (0 White, 1 Black) to
// move; -1 when from -> to is neither a queen line of length 1..7 nor a
// knight leap (no legal move is). Thread-safe.
int TavreliPolicyIndex(int from, int to, int count, int height, int side);

// What a policy index stands for, in board squares.
struct TavreliPolicyMove {
  int from = 0;
  int to = 0;
  int bucket = 0;
};

// Inverts TavreliPolicyIndex for `side` to move; false when the index is
// out of range or its move would leave the board. Thread-safe.
bool DecodeTavreliPolicyIndex(int index, int side, TavreliPolicyMove* out);

}  // namespace volkhv::tavreli

#endif  // VOLKHV_ENGINE_TAVRELI_POLICY_MAP_H_
