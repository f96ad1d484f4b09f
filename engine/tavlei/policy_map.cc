#include "engine/tavlei/policy_map.h"

namespace volkhv::tavlei {
namespace {

constexpr int kDirs[kTavleiDirections][2] = {
    {0, 1}, {1, 0}, {0, -1}, {-1, 0}};  // (file, rank) steps: N E S W

}  // namespace

int TavleiPolicyIndex(int from, int to, int width) {
  const int df = to % width - from % width;
  const int dr = to / width - from / width;
  int dir, dist;
  if (df == 0 && dr > 0) {
    dir = 0, dist = dr;
  } else if (dr == 0 && df > 0) {
    dir = 1, dist = df;
  } else if (df == 0 && dr < 0) {
    dir = 2, dist = -dr;
  } else if (dr == 0 && df < 0) {
    dir = 3, dist = -df;
  } else {
    return -1;
  }
  return (dir * (width - 1) + dist - 1) * width * width + from;
}

bool DecodeTavleiPolicyIndex(int index, int width, int* from, int* to) {
  const int squares = width * width;
  if (index < 0 || index >= TavleiPolicySize(width)) return false;
  const int channel = index / squares;
  const int dir = channel / (width - 1);
  const int dist = channel % (width - 1) + 1;
  const int f = index % squares;
  const int file = f % width + kDirs[dir][0] * dist;
  const int rank = f / width + kDirs[dir][1] * dist;
  if (file < 0 || file >= width || rank < 0 || rank >= width) return false;
  *from = f;
  *to = rank * width + file;
  return true;
}

}  // namespace volkhv::tavlei
