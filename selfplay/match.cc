#include "selfplay/match.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/str_format.h"
#include "engine/games/games.h"
#include "engine/util/files.h"
#include "engine/util/random.h"
#include "engine/util/strings.h"
#include "selfplay/match_game.h"
#include "selfplay/match_resume.h"

namespace volkhv::selfplay {
namespace {

// One game to play: pairing, pair index within it, which side moves first.
struct Job {
  int pairing;
  int pair;
  bool swapped;  // the pairing's b moves first
  int round;
};

// "+0.0" for anything that rounds to zero, never "-0.0".
std::string PlusMinus(double x) {
  const double tenths = std::round(x * 10) / 10;
  return absl::StrFormat("%+.1f", tenths == 0 ? 0.0 : tenths);
}

// "45s", "3m12s", "1h02m".
std::string Duration(double seconds) {
  const int64_t s = static_cast<int64_t>(std::llround(std::max(seconds, 0.0)));
  if (s < 60) return absl::StrFormat("%ds", s);
  if (s < 3600) return absl::StrFormat("%dm%02ds", s / 60, s % 60);
  return absl::StrFormat("%dh%02dm", s / 3600, s % 3600 / 60);
}

}  // namespace

void PairingStats::CountGame(double a_score, double first_score) {
  if (a_score > 0.75) {
    ++counts.wins;
  } else if (a_score < 0.25) {
    ++counts.losses;
  } else {
    ++counts.draws;
  }
  ++games;
  first_mover_points2 += static_cast<int>(std::lround(2 * first_score));
}

EloEstimate PairingStats::Elo(bool pentanomial) const {
  int pairs_done = 0;
  for (int x : pairs) pairs_done += x;
  if (pentanomial && pairs_done > 0) return EstimateElo(pairs);
  return EstimateElo(counts);
}

std::string MatchReport::ProgressLine() const {
  std::string line = absl::StrFormat("[%d/%d]", static_cast<int>(games.size()),
                                     games_scheduled);
  if (pairings.size() == 1) {
    const PairingStats& p = pairings[0];
    const EloEstimate e = p.Elo(pentanomial);
    Append(&line,
           absl::StrFormat(" %s vs %s: +%d =%d -%d, score %.3f, ", players[p.a],
                           players[p.b], p.counts.wins, p.counts.draws,
                           p.counts.losses, p.counts.Score()));
    if (e.perfect != 0) {
      Append(&line, absl::StrFormat(
                        "Elo %s %s", e.perfect > 0 ? ">" : "<",
                        PlusMinus(e.perfect > 0 ? e.elo_low : e.elo_high)));
    } else {
      Append(&line,
             absl::StrFormat("Elo %s +/- %.1f", PlusMinus(e.elo), e.elo_error));
    }
    Append(&line, absl::StrFormat(", LOS %.1f %%", 100 * e.los));
    if (sprt) {
      Append(&line, absl::StrFormat(", LLR %.2f (%.2f, %.2f)", sprt->llr,
                                    sprt->lower, sprt->upper));
    }
  } else {
    std::vector<double> points(players.size(), 0);
    for (const PairingStats& p : pairings) {
      points[p.a] += p.counts.wins + 0.5 * p.counts.draws;
      points[p.b] += p.counts.losses + 0.5 * p.counts.draws;
    }
    for (size_t i = 0; i < players.size(); ++i) {
      Append(&line, absl::StrFormat(" %s %.1f", players[i], points[i]));
    }
  }
  const int played = static_cast<int>(games.size()) - games_resumed;
  const int left = games_scheduled - static_cast<int>(games.size());
  if (played > 0 && left > 0) {
    Append(&line, ", ETA ", Duration(seconds / played * left));
  }
  return line;
}

std::string MatchReport::Summary() const {
  std::string out;
  for (const PairingStats& p : pairings) {
    const EloEstimate e = p.Elo(pentanomial);
    int pairs_done = 0;
    for (int x : p.pairs) pairs_done += x;
    Append(&out, absl::StrFormat("%s vs %s: %d games\n", players[p.a],
                                 players[p.b], p.counts.games()));
    Append(&out, absl::StrFormat("  W/D/L %d/%d/%d for %s, score %.3f\n",
                                 p.counts.wins, p.counts.draws, p.counts.losses,
                                 players[p.a], p.counts.Score()));
    const bool by_pairs = pentanomial && pairs_done > 0;
    const char* model = by_pairs ? "pentanomial" : "trinomial";
    const int samples = by_pairs ? pairs_done : p.counts.games();
    const char* sample_name = by_pairs ? "pairs" : "games";
    if (e.perfect != 0) {
      Append(&out, absl::StrFormat(
                       "  Elo %s %s: a perfect score (97.5 %% one-sided bound "
                       "over %d %s), LOS %.2f %%\n",
                       e.perfect > 0 ? ">" : "<",
                       PlusMinus(e.perfect > 0 ? e.elo_low : e.elo_high),
                       samples, sample_name, 100 * e.los));
    } else if (e.single_outcome) {
      Append(&out,
             absl::StrFormat(
                 "  Elo %s (95 %%: %s .. %s): %s scored %s (exact bound), "
                 "LOS %.2f %%\n",
                 PlusMinus(e.elo), PlusMinus(e.elo_low), PlusMinus(e.elo_high),
                 samples == 1 ? Cat("the one ", by_pairs ? "pair" : "game")
                              : absl::StrFormat("every one of the %d %s",
                                                samples, sample_name),
                 absl::StrFormat("%g", by_pairs ? 2 * e.score : e.score),
                 100 * e.los));
    } else {
      Append(&out, absl::StrFormat(
                       "  Elo %s +/- %.1f (95 %%: %s .. %s), LOS %.2f "
                       "%%, nElo %s +/- %.1f (%s)\n",
                       PlusMinus(e.elo), e.elo_error, PlusMinus(e.elo_low),
                       PlusMinus(e.elo_high), 100 * e.los, PlusMinus(e.nelo),
                       e.nelo_error, model));
    }
    if (pairs_done > 0) {
      Append(&out,
             absl::StrFormat("  pairs LL/LD/(DD+WL)/WD/WW: %d/%d/%d/%d/%d\n",
                             p.pairs[0], p.pairs[1], p.pairs[2], p.pairs[3],
                             p.pairs[4]));
    }
    if (p.games > 0) {
      Append(&out, absl::StrFormat("  the player moving first scored %.3f\n",
                                   p.first_mover_points2 / 2.0 / p.games));
    }
  }
  int forfeits[4] = {0, 0, 0, 0};  // time, failure, draw, resignation
  for (const GameOutcome& g : games) {
    switch (g.end) {
      case GameOutcome::End::kTimeForfeit:
        ++forfeits[0];
        break;
      case GameOutcome::End::kForfeit:
        ++forfeits[1];
        break;
      case GameOutcome::End::kDraw:
        ++forfeits[2];
        break;
      case GameOutcome::End::kResignation:
        ++forfeits[3];
        break;
      default:
        break;
    }
  }
  if (forfeits[0] + forfeits[1] + forfeits[2] + forfeits[3] > 0) {
    Append(&out,
           absl::StrFormat("Ended by the match: %d on time, %d by an engine's "
                           "failure, %d adjudicated drawn, %d resigned\n",
                           forfeits[0], forfeits[1], forfeits[2], forfeits[3]));
  }
  if (pairings.size() > 1) {
    out += "Pairings:\n";
    for (const PairingStats& p : pairings) {
      const EloEstimate e = p.Elo(pentanomial);
      Append(&out,
             absl::StrFormat(
                 "  %-24s vs %-24s %4d games  W/D/L %d/%d/%d  score "
                 "%.3f  Elo %s\n",
                 players[p.a], players[p.b], p.counts.games(), p.counts.wins,
                 p.counts.draws, p.counts.losses, p.counts.Score(),
                 e.perfect != 0
                     ? Cat(e.perfect > 0 ? ">" : "<",
                           PlusMinus(e.perfect > 0 ? e.elo_low : e.elo_high))
                     : absl::StrFormat("%s +/- %.1f", PlusMinus(e.elo),
                                       e.elo_error)));
    }
    std::vector<std::pair<double, int>> standings;
    std::vector<int> played(players.size(), 0);
    std::vector<double> points(players.size(), 0);
    for (const PairingStats& p : pairings) {
      points[p.a] += p.counts.wins + 0.5 * p.counts.draws;
      points[p.b] += p.counts.losses + 0.5 * p.counts.draws;
      played[p.a] += p.counts.games();
      played[p.b] += p.counts.games();
    }
    for (size_t i = 0; i < players.size(); ++i) {
      standings.emplace_back(points[i], static_cast<int>(i));
    }
    std::stable_sort(
        standings.begin(), standings.end(),
        [](const auto& x, const auto& y) { return x.first > y.first; });
    out += "Standings:\n";
    int rank = 1;
    for (const auto& [pts, i] : standings) {
      const double score = played[i] ? pts / played[i] : 0.5;
      Append(&out, absl::StrFormat(
                       "  %d. %-32s %6.1f / %-4d  %5.1f %%  Elo vs field %s\n",
                       rank++, players[i], pts, played[i], 100 * score,
                       PlusMinus(EloFromScore(score))));
    }
  }
  if (sprt && sprt_params) {
    Append(&out,
           absl::StrFormat("SPRT (%s): LLR %.2f, bounds (%.2f, %.2f): "
                           "%s%s\n",
                           sprt_params->Describe(), sprt->llr, sprt->lower,
                           sprt->upper, SprtVerdictName(sprt->verdict),
                           stopped_early ? ", stopped early" : ""));
  }
  if (interrupted) {
    Append(&out,
           absl::StrFormat("interrupted after %d of %d games\n",
                           static_cast<int>(games.size()), games_scheduled));
  }
  if (tally) {
    Append(&out, absl::StrFormat("%d games read from game files\n",
                                 static_cast<int>(games.size())));
  } else if (games_resumed > 0) {
    Append(&out, absl::StrFormat(
                     "%d games (%d read back from the game file) in "
                     "%.1f s\n",
                     static_cast<int>(games.size()), games_resumed, seconds));
  } else {
    Append(&out, absl::StrFormat("%d games in %.1f s\n",
                                 static_cast<int>(games.size()), seconds));
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> ReadOpeningsFile(
    const Game& game, const std::string& path) {
  absl::StatusOr<std::string> content =
      ReadBoundedFile(path, kMaxTextFileBytes, "file of openings");
  if (!content.ok()) {
    if (absl::IsNotFound(content.status())) {
      return absl::NotFoundError(Cat("cannot open '", path, "'"));
    }
    return content.status();
  }
  std::vector<std::string> positions;
  int number = 0;
  for (std::string_view line : Split(*content, "\n", false)) {
    ++number;
    const std::string_view text = Trim(line);
    if (text.empty() || text.front() == '#') continue;
    absl::StatusOr<std::unique_ptr<GameState>> state =
        game.NewStateFromText(text);
    if (!state.ok()) {
      return absl::InvalidArgumentError(
          Cat(path, ":", number, ": ", state.status().message()));
    }
    if ((*state)->Result().IsOver()) {
      return absl::InvalidArgumentError(
          Cat(path, ":", number, ": the game is already over there"));
    }
    positions.emplace_back(text);
  }
  if (positions.empty()) {
    return absl::InvalidArgumentError(Cat(path, ": no positions"));
  }
  return positions;
}

absl::StatusOr<Opening> MakeOpening(const Game& game,
                                    const MatchOptions& options, int index) {
  Opening opening;
  if (!options.opening_positions.empty()) {
    const size_t n = options.opening_positions.size();
    opening.position = options.opening_positions[index % n];
    opening.description = Cat("position ", index % n + 1, " of ", n);
    absl::StatusOr<std::unique_ptr<GameState>> state =
        StartState(game, opening);
    if (!state.ok()) return state.status();
    return opening;
  }
  if (options.random_plies <= 0) {
    opening.description = "start position";
    return opening;
  }
  constexpr int kAttempts = 1000;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    std::mt19937_64 rng(
        SplitMix64(options.seed ^ SplitMix64(index * 1000003ULL + attempt)));
    std::unique_ptr<GameState> state = game.NewInitialState();
    opening.moves.clear();
    MoveList moves;
    bool ok = true;
    for (int ply = 0; ply < options.random_plies; ++ply) {
      if (state->Result().IsOver()) {
        ok = false;
        break;
      }
      moves.clear();
      state->LegalMoves(&moves);
      const Move m =
          moves[static_cast<int>(rng() % static_cast<uint64_t>(moves.size()))];
      opening.moves.push_back(state->MoveText(m));
      state->Play(m);
    }
    if (ok && !state->Result().IsOver()) {
      opening.description = Cat(options.random_plies, " random plies");
      return opening;
    }
  }
  return absl::InvalidArgumentError(Cat("no opening of ", options.random_plies,
                                        " random plies leaves the game going"));
}

absl::StatusOr<MatchReport> RunMatch(
    const Game& game,
    const std::vector<std::shared_ptr<PlayerFactory>>& players,
    const MatchOptions& options, const MatchCallback& on_game) {
  const auto start = std::chrono::steady_clock::now();
  if (players.size() < 2) {
    return absl::InvalidArgumentError("a match needs at least two players");
  }
  if (options.sprt && players.size() != 2) {
    return absl::InvalidArgumentError("SPRT needs exactly two players");
  }
  if (options.games < 1) {
    return absl::InvalidArgumentError("a match needs at least one game");
  }
  if (options.resume && options.pgn_path.empty()) {
    return absl::InvalidArgumentError(
        "resuming needs the match's game file (--pgn-out)");
  }
  MatchReport report;
  for (const auto& p : players) report.players.push_back(p->Name());
  const int n = static_cast<int>(players.size());
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (options.tournament == Tournament::kGauntlet && a > 0) break;
      PairingStats stats;
      stats.a = a;
      stats.b = b;
      report.pairings.push_back(stats);
    }
  }
  report.pentanomial = options.pentanomial;
  report.sprt_params = options.sprt;

  const int num_pairs = (options.games + 1) / 2;
  std::vector<Opening> openings;
  for (int k = 0; k < num_pairs; ++k) {
    absl::StatusOr<Opening> opening = MakeOpening(game, options, k);
    if (!opening.ok()) return opening.status();
    openings.push_back(*std::move(opening));
  }
  std::vector<Job> jobs;
  for (int k = 0; k < num_pairs; ++k) {
    for (int p = 0; p < static_cast<int>(report.pairings.size()); ++p) {
      for (bool swapped : {false, true}) {
        jobs.push_back({p, k, swapped, static_cast<int>(jobs.size()) + 1});
      }
    }
  }
  report.games_scheduled = static_cast<int>(jobs.size());
  auto evaluate_sprt = [&] {
    if (!options.sprt) return;
    report.sprt = options.pentanomial
                      ? EvaluateSprt(*options.sprt, report.pairings[0].pairs)
                      : EvaluateSprt(*options.sprt, report.pairings[0].counts);
  };
  evaluate_sprt();

  std::map<std::pair<int, int>, double> half_pairs;  // (pairing, pair) -> a's
  // Counts a finished game of `job` (its outcome's first_score set).
  auto count = [&](const Job& job, GameOutcome outcome) {
    const PairingStats& pairing = report.pairings[job.pairing];
    outcome.round = job.round;
    outcome.pair = job.pair;
    outcome.pairing = job.pairing;
    outcome.first = job.swapped ? pairing.b : pairing.a;
    outcome.second = job.swapped ? pairing.a : pairing.b;
    PairingStats& stats = report.pairings[job.pairing];
    const double a_score =
        job.swapped ? 1 - outcome.first_score : outcome.first_score;
    stats.CountGame(a_score, outcome.first_score);
    const auto key = std::make_pair(job.pairing, job.pair);
    if (auto it = half_pairs.find(key); it != half_pairs.end()) {
      ++stats.pairs[PairIndex(it->second, a_score)];
      half_pairs.erase(it);
    } else {
      half_pairs[key] = a_score;
    }
    report.games.push_back(std::move(outcome));
  };

  const GameInfo& info = game.Info();
  // The games of an earlier run, in the order of the schedule.
  std::vector<bool> done(jobs.size(), false);
  if (options.resume) {
    absl::StatusOr<std::vector<FinishedGame>> finished =
        ReadFinishedGames(game, options.pgn_path, UnfinishedLastGame::kCut);
    if (!finished.ok()) return finished.status();
    std::sort(finished->begin(), finished->end(),
              [](const FinishedGame& x, const FinishedGame& y) {
                return x.round < y.round;
              });
    for (FinishedGame& f : *finished) {
      const std::string where =
          Cat(options.pgn_path, ": the game of round ", f.round);
      if (f.round > static_cast<int>(jobs.size())) {
        return absl::InvalidArgumentError(
            Cat(where, " is past this match's ", jobs.size(), " games"));
      }
      const Job& job = jobs[f.round - 1];
      if (done[f.round - 1]) {
        return absl::InvalidArgumentError(Cat(where, " is there twice"));
      }
      const PairingStats& pairing = report.pairings[job.pairing];
      const int first = job.swapped ? pairing.b : pairing.a;
      const int second = job.swapped ? pairing.a : pairing.b;
      if (f.first_player != report.players[first] ||
          f.second_player != report.players[second]) {
        return absl::InvalidArgumentError(
            Cat(where, " is ", f.first_player, " vs ", f.second_player,
                "; this match plays ", report.players[first], " vs ",
                report.players[second], " there (not the same match)"));
      }
      GameOutcome outcome;
      outcome.first_score = f.first_score;
      outcome.plies = static_cast<int>(f.moves.size());
      outcome.termination = f.termination;
      outcome.detail = f.detail;
      outcome.resumed = true;
      SetEndFromTermination(info.name, &outcome);
      outcome.start_position = f.start_position;
      outcome.moves = std::move(f.moves);
      outcome.move_texts = std::move(f.move_texts);
      done[f.round - 1] = true;
      count(job, std::move(outcome));
    }
    report.games_resumed = static_cast<int>(report.games.size());
    evaluate_sprt();
  }
  std::vector<int> pending;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!done[i]) pending.push_back(static_cast<int>(i));
  }
  std::atomic<bool> stop{false};
  if (report.sprt && report.sprt->verdict != SprtVerdict::kContinue) {
    pending.clear();
    report.stopped_early =
        !report.games.empty() &&
        static_cast<int>(report.games.size()) < report.games_scheduled;
  }

  GameFileWriter writer;
  if (!options.pgn_path.empty()) {
    if (absl::Status s = writer.Open(options.pgn_path, options.resume);
        !s.ok()) {
      return s;
    }
  }
  const std::string date = TodayDate();

  std::mutex mutex;  // guards report, half_pairs, write_error, on_game
  absl::Status write_error;
  std::atomic<int> next_job{0};
  auto halted = [&] {
    return stop.load() ||
           (options.interrupt != nullptr && options.interrupt->load());
  };

  auto worker = [&] {
    while (!halted()) {
      const int index = next_job.fetch_add(1);
      if (index >= static_cast<int>(pending.size())) break;
      const Job& job = jobs[pending[index]];
      const PairingStats& pairing_ref = report.pairings[job.pairing];
      const int first = job.swapped ? pairing_ref.b : pairing_ref.a;
      const int second = job.swapped ? pairing_ref.a : pairing_ref.b;
      const uint64_t seed = SplitMix64(options.seed + 0x1000 * job.round);
      std::unique_ptr<search::Player> first_player =
          players[first]->Make(SplitMix64(seed + 1));
      std::unique_ptr<search::Player> second_player =
          players[second]->Make(SplitMix64(seed + 2));
      const std::optional<ClockSpec> clocks[2] = {
          players[first]->clock() ? players[first]->clock() : options.clock,
          players[second]->clock() ? players[second]->clock() : options.clock};
      PlayedGame played =
          PlayGame(game, openings[job.pair], first_player.get(),
                   second_player.get(), clocks, options, halted);
      // The engines end with the game (outside engines are asked to quit).
      first_player.reset();
      second_player.reset();
      if (played.aborted) break;

      std::lock_guard<std::mutex> lock(mutex);
      if (report.stopped_early) break;
      count(job, played.outcome);
      evaluate_sprt();
      if (report.sprt && report.sprt->verdict != SprtVerdict::kContinue) {
        report.stopped_early =
            static_cast<int>(report.games.size()) < report.games_scheduled;
        stop.store(true);
      }
      if (!options.pgn_path.empty() && write_error.ok()) {
        GameFileRecord& record = played.record;
        record.event = options.event;
        record.date = date;
        record.round = job.round;
        record.game = info.name;
        record.variant = options.variant;
        record.first_title = SideTitle(info.first_player_name);
        record.second_title = SideTitle(info.second_player_name);
        record.first_player = players[first]->Name();
        record.second_player = players[second]->Name();
        record.extra_tags.emplace_back("Opening",
                                       openings[job.pair].description);
        write_error = writer.Append(record);
      }
      report.seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      if (on_game) on_game(report);
    }
  };
  const int threads = std::clamp(options.concurrency, 1,
                                 std::max(1, static_cast<int>(pending.size())));
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error&) {
      break;  // fewer threads (this one at least) play every game
    }
  }
  worker();
  for (std::thread& t : pool) t.join();

  if (!write_error.ok()) return write_error;
  report.interrupted =
      options.interrupt != nullptr && options.interrupt->load() &&
      static_cast<int>(report.games.size()) < report.games_scheduled &&
      !report.stopped_early;
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return report;
}

}  // namespace volkhv::selfplay
