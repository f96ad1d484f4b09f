// The Tavlei policy map: every legal move <-> one policy logit, (direction,
// distance, from square), for square boards of width 9 or 11.
#ifndef VOLKHV_ENGINE_TAVLEI_POLICY_MAP_H_
#define VOLKHV_ENGINE_TAVLEI_POLICY_MAP_H_

namespace volkhv::tavlei {

// index = channel * width * width + from, channel = direction * (width - 1)
// + (distance - 1), directions N (+width), E (+1), S (-width), W (-1) as in
// tavlei::Rules. No flipping: the two sides have different roles. Every
// legal move (a rook move) has its own index, so there are no collisions.
inline constexpr int kTavleiDirections = 4;
constexpr int TavleiPolicyChannels(int width) {
  return kTavleiDirections * (width - 1);
}
constexpr int TavleiPolicySize(int width) {
  return TavleiPolicyChannels(width) * width * width;
}

// The index of from -> to on a width x width board; -1 when the two squares
// share no rank or file (or are equal). Thread-safe.
int TavleiPolicyIndex(int from, int to, int width);

// Inverts TavleiPolicyIndex; false when the index is out of range or its
// move leaves the board. Thread-safe.
bool DecodeTavleiPolicyIndex(int index, int width, int* from, int* to);

}  // namespace volkhv::tavlei

#endif  // VOLKHV_ENGINE_TAVLEI_POLICY_MAP_H_
