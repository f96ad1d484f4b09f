#include "selfplay/match.h"

#include <algorithm>
#include <atomic>
#include <chrono>
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

namespace volkhv::selfplay {
namespace {

// One game to play: pairing, pair index within it, which side moves first.
struct Job {
  int pairing;
  int pair;
  bool swapped;  // the pairing's b moves first
  int round;
};

struct PlayedGame {
  GameOutcome outcome;
  GameFileRecord record;
  bool aborted = false;
};

absl::StatusOr<std::unique_ptr<GameState>> StartState(const Game& game,
                                                      const Opening& opening) {
  std::unique_ptr<GameState> state;
  if (opening.position.empty()) {
    state = game.NewInitialState();
  } else {
    absl::StatusOr<std::unique_ptr<GameState>> parsed =
        game.NewStateFromText(opening.position);
    if (!parsed.ok()) return parsed.status();
    state = *std::move(parsed);
  }
  return state;
}

// Plays one game; the opening is known to be valid (MakeOpening checked it).
PlayedGame PlayGame(const Game& game, const Opening& opening,
                    search::Player* first, search::Player* second,
                    const MatchOptions& options,
                    const std::atomic<bool>& stop) {
  PlayedGame played;
  GameFileRecord& record = played.record;
  std::unique_ptr<GameState> state = *StartState(game, opening);
  record.start_position = state->PositionText();
  record.second_to_move = state->SideToMove() == 1;
  GameOutcome& outcome = played.outcome;
  outcome.start_position = record.start_position;
  for (const std::string& text : opening.moves) {
    const Move m = *state->ParseMove(text);
    record.moves.push_back(state->MoveText(m));
    record.comments.emplace_back();
    outcome.moves.push_back(m);
    state->Play(m);
  }
  first->NewGame();
  second->NewGame();

  const Adjudication& adj = options.adjudication;
  const bool resign_on = adj.resign_score > 0 && adj.resign_evals > 0;
  int streak_side = -1;
  int streak = 0;
  double first_score = 0.5;
  std::string termination;
  MoveList legal;
  while (true) {
    const GameResult result = state->Result();
    if (result.IsOver()) {
      const int mover = state->SideToMove();
      if (result.outcome == Outcome::kWin) {
        first_score = mover == 0 ? 1 : 0;
      } else if (result.outcome == Outcome::kLoss) {
        first_score = mover == 0 ? 0 : 1;
      }
      termination = TerminationName(state->Info().name, result.termination);
      outcome.rules_termination = result.termination;
      break;
    }
    if (adj.max_plies > 0 && state->PliesPlayed() >= adj.max_plies) {
      termination = Cat("adjudication: ", adj.max_plies, " plies");
      outcome.end = GameOutcome::End::kMaxPlies;
      break;
    }
    if (stop.load()) {
      played.aborted = true;
      return played;
    }
    const int mover = state->SideToMove();
    search::Player* player = mover == 0 ? first : second;
    const Move m = player->ChooseMove(*state);
    legal.clear();
    state->LegalMoves(&legal);
    if (!legal.contains(m)) {
      first_score = mover == 0 ? 0 : 1;
      termination = Cat("illegal move by ", player->Name());
      outcome.end = GameOutcome::End::kIllegalMove;
      break;
    }
    const std::optional<search::PlayerEval> eval = player->LastEval();
    record.moves.push_back(state->MoveText(m));
    record.comments.push_back(options.comments && eval ? eval->Comment()
                                                       : std::string());
    outcome.moves.push_back(m);
    state->Play(m);
    if (resign_on && eval) {
      int ahead = -1;
      if (eval->score_cp >= adj.resign_score) {
        ahead = mover;
      } else if (eval->score_cp <= -adj.resign_score) {
        ahead = 1 - mover;
      }
      if (ahead < 0) {
        streak_side = -1;
        streak = 0;
      } else if (ahead == streak_side) {
        ++streak;
      } else {
        streak_side = ahead;
        streak = 1;
      }
      if (streak >= adj.resign_evals) {
        first_score = streak_side == 0 ? 1 : 0;
        termination = Cat("adjudication: ", adj.resign_evals,
                          " evaluations beyond ", adj.resign_score);
        outcome.end = GameOutcome::End::kScore;
        break;
      }
    }
  }
  record.result = ResultText(first_score);
  record.termination = termination;
  outcome.first_score = first_score;
  outcome.plies = static_cast<int>(record.moves.size());
  outcome.termination = termination;
  outcome.move_texts = record.moves;
  return played;
}

std::string PlusMinus(double x) { return absl::StrFormat("%+.1f", x); }

}  // namespace

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
    const char* model =
        pentanomial && pairs_done > 0 ? "pentanomial" : "trinomial";
    if (e.perfect != 0) {
      Append(
          &out,
          absl::StrFormat(
              "  Elo %s %s: a perfect score (97.5 %% one-sided bound "
              "over %d %s), LOS %.2f %%\n",
              e.perfect > 0 ? ">" : "<",
              PlusMinus(e.perfect > 0 ? e.elo_low : e.elo_high),
              pentanomial && pairs_done > 0 ? pairs_done : p.counts.games(),
              pentanomial && pairs_done > 0 ? "pairs" : "games", 100 * e.los));
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
  if (pairings.size() > 1) {
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
  Append(&out, absl::StrFormat("%d games in %.1f s\n",
                               static_cast<int>(games.size()), seconds));
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
  MatchReport report;
  for (const auto& p : players) report.players.push_back(p->Name());
  for (int a = 0; a < static_cast<int>(players.size()); ++a) {
    for (int b = a + 1; b < static_cast<int>(players.size()); ++b) {
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
  if (options.sprt) {
    report.sprt = options.pentanomial
                      ? EvaluateSprt(*options.sprt, report.pairings[0].pairs)
                      : EvaluateSprt(*options.sprt, report.pairings[0].counts);
  }

  GameFileWriter writer;
  if (!options.pgn_path.empty()) {
    if (absl::Status s = writer.Open(options.pgn_path); !s.ok()) return s;
  }
  const GameInfo& info = game.Info();
  const std::string date = TodayDate();

  std::mutex mutex;  // guards report, half_pairs, write_error, on_game
  std::map<std::pair<int, int>, double> half_pairs;  // (pairing, pair) -> a's
  absl::Status write_error;
  std::atomic<int> next_job{0};
  std::atomic<bool> stop{false};

  auto worker = [&] {
    while (!stop.load()) {
      const int index = next_job.fetch_add(1);
      if (index >= static_cast<int>(jobs.size())) break;
      const Job& job = jobs[index];
      PairingStats& pairing_ref = report.pairings[job.pairing];
      const int first = job.swapped ? pairing_ref.b : pairing_ref.a;
      const int second = job.swapped ? pairing_ref.a : pairing_ref.b;
      const uint64_t seed = SplitMix64(options.seed + 0x1000 * job.round);
      std::unique_ptr<search::Player> first_player =
          players[first]->Make(SplitMix64(seed + 1));
      std::unique_ptr<search::Player> second_player =
          players[second]->Make(SplitMix64(seed + 2));
      PlayedGame played = PlayGame(game, openings[job.pair], first_player.get(),
                                   second_player.get(), options, stop);
      if (played.aborted) break;

      std::lock_guard<std::mutex> lock(mutex);
      if (report.stopped_early) break;
      GameOutcome& outcome = played.outcome;
      outcome.round = job.round;
      outcome.pair = job.pair;
      outcome.pairing = job.pairing;
      outcome.first = first;
      outcome.second = second;
      PairingStats& stats = report.pairings[job.pairing];
      const double a_score =
          job.swapped ? 1 - outcome.first_score : outcome.first_score;
      if (a_score > 0.75) {
        ++stats.counts.wins;
      } else if (a_score < 0.25) {
        ++stats.counts.losses;
      } else {
        ++stats.counts.draws;
      }
      ++stats.games;
      stats.first_mover_points2 +=
          static_cast<int>(std::lround(2 * outcome.first_score));
      const auto key = std::make_pair(job.pairing, job.pair);
      if (auto it = half_pairs.find(key); it != half_pairs.end()) {
        ++stats.pairs[PairIndex(it->second, a_score)];
        half_pairs.erase(it);
      } else {
        half_pairs[key] = a_score;
      }
      report.games.push_back(std::move(outcome));
      if (options.sprt) {
        report.sprt =
            options.pentanomial
                ? EvaluateSprt(*options.sprt, report.pairings[0].pairs)
                : EvaluateSprt(*options.sprt, report.pairings[0].counts);
        if (report.sprt->verdict != SprtVerdict::kContinue) {
          report.stopped_early =
              static_cast<int>(report.games.size()) < report.games_scheduled;
          stop.store(true);
        }
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
  const int threads =
      std::clamp(options.concurrency, 1, static_cast<int>(jobs.size()));
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
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return report;
}

}  // namespace volkhv::selfplay
