#include "engine/search/centipawns.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "engine/game/heuristic.h"

namespace volkhv::search {

int CentipawnsFromQ(double q) {
  if (!std::isfinite(q)) return 0;
  q = std::clamp(q, -1.0, 1.0);
  const double cp = 90.0 * std::tan(1.5637541897 * q);
  const double cap = kMaxHeuristicScore - 1;
  return static_cast<int>(std::lround(std::clamp(cp, -cap, cap)));
}

double QFromCentipawns(int cp) {
  if (std::abs(cp) >= kMaxHeuristicScore) return cp > 0 ? 1.0 : -1.0;
  return std::atan(cp / 90.0) / 1.5637541897;
}

}  // namespace volkhv::search
