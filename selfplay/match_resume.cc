#include "selfplay/match_resume.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "engine/games/games.h"
#include "engine/records/game_file_reader.h"
#include "engine/records/game_file_writer.h"
#include "engine/util/files.h"
#include "engine/util/parse_number.h"
#include "engine/util/strings.h"

namespace volkhv::selfplay {
namespace {

constexpr int64_t kMaxGameFileBytes = int64_t{1} << 30;

// Byte offsets where games start: a tag line at the start of the file or
// after a blank line.
std::vector<size_t> GameStarts(const std::string& text) {
  std::vector<size_t> starts;
  size_t at = 0;
  bool after_blank = true;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + at, end - at);
    if (after_blank && !line.empty() && line.front() == '[') {
      starts.push_back(at);
    }
    after_blank = Trim(line).empty();
    at = end + 1;
  }
  return starts;
}

double ScoreOf(std::string_view result) {
  return result == "1-0" ? 1 : result == "0-1" ? 0 : 0.5;
}

// One game's text as a FinishedGame; "" in *cut when it is complete, else
// why not.
absl::StatusOr<FinishedGame> ReadOne(const Game& game, std::string_view text,
                                     std::string* cut) {
  cut->clear();
  absl::StatusOr<std::vector<RecordedGame>> parsed = ParseGameFileText(text);
  if (!parsed.ok() || parsed->size() != 1) {
    *cut = "it does not parse";
    return FinishedGame{};
  }
  const RecordedGame& g = (*parsed)[0];
  const std::string result = g.Tag("Result");
  const std::string_view trimmed = Trim(text);
  if (result != "1-0" && result != "0-1" && result != "1/2-1/2") {
    *cut = "it has no result";
    return FinishedGame{};
  }
  if (trimmed.size() < result.size() ||
      trimmed.substr(trimmed.size() - result.size()) != result) {
    *cut = "its move text does not end with the result";
    return FinishedGame{};
  }
  if (!g.Tag("Plies").empty() &&
      ToInt<int>(g.Tag("Plies")) != static_cast<int>(g.moves.size())) {
    *cut = "it has fewer moves than its [Plies]";
    return FinishedGame{};
  }
  FinishedGame f;
  absl::StatusOr<int> round =
      ParseInt<int>(g.Tag("Round"), "[Round]", 1, 1 << 30);
  if (!round.ok()) return round.status();
  f.round = *round;
  f.first_player = g.Tag(SideTitle(game.Info().first_player_name));
  f.second_player = g.Tag(SideTitle(game.Info().second_player_name));
  f.first_score = ScoreOf(result);
  f.termination = g.Tag("Termination");
  f.detail = g.Tag("TerminationDetails");
  f.start_position = g.Tag("TFEN");
  std::unique_ptr<GameState> state;
  if (f.start_position.empty()) {
    state = game.NewInitialState();
    f.start_position = state->PositionText();
  } else {
    absl::StatusOr<std::unique_ptr<GameState>> s =
        game.NewStateFromText(f.start_position);
    if (!s.ok()) return s.status();
    state = *std::move(s);
  }
  for (const std::string& text_move : g.moves) {
    absl::StatusOr<Move> m = state->ParseMove(text_move);
    if (!m.ok()) {
      return absl::InvalidArgumentError(
          Cat("move '", text_move, "': ", m.status().message()));
    }
    f.moves.push_back(*m);
    f.move_texts.push_back(text_move);
    state->Play(*m);
  }
  return f;
}

}  // namespace

absl::StatusOr<std::vector<FinishedGame>> ReadFinishedGames(
    const Game& game, const std::string& path, UnfinishedLastGame unfinished) {
  std::vector<FinishedGame> games;
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return games;
  absl::StatusOr<std::string> text =
      ReadBoundedFile(path, kMaxGameFileBytes, "game file");
  if (!text.ok()) return text.status();
  const std::vector<size_t> starts = GameStarts(*text);
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t end = i + 1 < starts.size() ? starts[i + 1] : text->size();
    const std::string_view chunk(text->data() + starts[i], end - starts[i]);
    std::string cut;
    absl::StatusOr<FinishedGame> f = ReadOne(game, chunk, &cut);
    const int line = static_cast<int>(
        std::count(text->begin(), text->begin() + starts[i], '\n') + 1);
    if (!f.ok()) {
      return absl::InvalidArgumentError(
          Cat(path, ":", line, ": ", f.status().message()));
    }
    if (!cut.empty()) {
      if (i + 1 < starts.size()) {
        return absl::InvalidArgumentError(Cat(path, ":", line,
                                              ": an unfinished game (", cut,
                                              ") before the last"));
      }
      if (unfinished == UnfinishedLastGame::kSkip) break;
      std::filesystem::resize_file(path, starts[i], error);
      if (error) {
        return absl::InvalidArgumentError(Cat(
            path, ": cannot cut the unfinished last game: ", error.message()));
      }
      break;
    }
    games.push_back(*std::move(f));
  }
  if (starts.empty() && !Trim(*text).empty()) {
    return absl::InvalidArgumentError(Cat(path, ": no games in it"));
  }
  return games;
}

void SetEndFromTermination(const std::string& game, GameOutcome* outcome) {
  const std::string& text = outcome->termination;
  using End = GameOutcome::End;
  auto starts = [&text](std::string_view prefix) {
    return text.rfind(prefix, 0) == 0;
  };
  if (text == TerminationName(game, Termination::kTimeForfeit)) {
    outcome->end = End::kTimeForfeit;
  } else if (text == TerminationName(game, Termination::kResignation)) {
    outcome->end = End::kResignation;
  } else if (text == TerminationName(game, Termination::kAdjudication)) {
    outcome->end = End::kDraw;
  } else if (starts("adjudication: ")) {
    outcome->end = text.size() > 6 && text.substr(text.size() - 6) == " plies"
                       ? End::kMaxPlies
                       : End::kScore;
  } else if (starts("illegal move by ")) {
    outcome->end = End::kIllegalMove;
  } else if (starts("forfeit by ")) {
    outcome->end = End::kForfeit;
  } else {
    outcome->end = End::kRules;
    for (int code = 1; code < 256; ++code) {
      const Termination t = static_cast<Termination>(code);
      if (FindTermination(game, t) != nullptr &&
          TerminationName(game, t) == text) {
        outcome->rules_termination = t;
        break;
      }
    }
  }
}

}  // namespace volkhv::selfplay
