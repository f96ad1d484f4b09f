// The one mapping of a search value to a centipawn-like score, used wherever
// a score is shown in centipawns: UCI `score cp`, `volkhv analyze`, match
// game-file comments and resignation thresholds.
#ifndef VOLKHV_ENGINE_SEARCH_CENTIPAWNS_H_
#define VOLKHV_ENGINE_SEARCH_CENTIPAWNS_H_

namespace volkhv::search {

// The centipawn-like score of an expected result q = W - L in [-1, 1], by
// lc0's current `centipawn` score type, 90 * tan(1.5637541897 * q) (older
// lc0 versions used 111.714640912 * tan(1.5620688421 * q)), rounded and
// clamped to +-(kMaxHeuristicScore - 1) = +-9999, below the scores of
// proven results. Odd and monotonic; 0 for q = 0 and for a non-finite q; q
// outside [-1, 1] counts as -1 or 1. Thread-safe (pure).
int CentipawnsFromQ(double q);

// The inverse of CentipawnsFromQ: the expected result q in (-1, 1) of a
// centipawn-like score, atan(cp / 90) / 1.5637541897, so that
// CentipawnsFromQ(QFromCentipawns(cp)) == cp for |cp| <= 9999; scores
// beyond that (proven results) give +-1. Thread-safe (pure).
double QFromCentipawns(int cp);

}  // namespace volkhv::search

#endif  // VOLKHV_ENGINE_SEARCH_CENTIPAWNS_H_
