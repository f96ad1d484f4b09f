#include "engine/records/game_file_reader.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "engine/games/games.h"
#include "engine/util/files.h"
#include "engine/util/strings.h"

namespace volkhv {
namespace {

bool IsMoveNumber(std::string_view token) {
  size_t i = 0;
  while (i < token.size() &&
         std::isdigit(static_cast<unsigned char>(token[i]))) {
    ++i;
  }
  if (i == 0 || i == token.size()) return false;
  while (i < token.size() && token[i] == '.') ++i;
  return i == token.size();
}

// "12.e2-e4" -> "e2-e4".
std::string_view StripLeadingMoveNumber(std::string_view token) {
  size_t i = 0;
  while (i < token.size() &&
         std::isdigit(static_cast<unsigned char>(token[i]))) {
    ++i;
  }
  if (i == 0 || i >= token.size() || token[i] != '.') return token;
  while (i < token.size() && token[i] == '.') ++i;
  return token.substr(i);
}

bool IsResult(std::string_view token) {
  return token == "1-0" || token == "0-1" || token == "1/2-1/2" || token == "*";
}

bool IsCount(std::string_view token) {
  if (token.size() < 3 || token.front() != '(' || token.back() != ')') {
    return false;
  }
  for (size_t i = 1; i + 1 < token.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(token[i]))) return false;
  }
  return true;
}

bool ParseTagLine(std::string_view line, std::string* key, std::string* value) {
  if (line.size() < 2 || line.front() != '[' || line.back() != ']') {
    return false;
  }
  line = line.substr(1, line.size() - 2);
  const size_t space = line.find(' ');
  if (space == std::string_view::npos) return false;
  std::string_view v = Trim(line.substr(space + 1));
  if (v.size() < 2 || v.front() != '"' || v.back() != '"') return false;
  *key = std::string(line.substr(0, space));
  *value = std::string(v.substr(1, v.size() - 2));
  return true;
}

}  // namespace

std::string RecordedGame::Tag(std::string_view key) const {
  for (const auto& [k, v] : tags) {
    if (k == key) return v;
  }
  return "";
}

std::vector<std::string> SplitMoveText(std::string_view text) {
  std::string cleaned;
  int brace_depth = 0;
  bool line_comment = false;
  for (char c : text) {
    if (line_comment) {
      if (c == '\n') line_comment = false;
      continue;
    }
    if (c == '{') {
      ++brace_depth;
    } else if (c == '}' && brace_depth > 0) {
      --brace_depth;
      cleaned += ' ';
    } else if (brace_depth == 0) {
      if (c == ';') {
        line_comment = true;
      } else {
        cleaned += c;
      }
    }
  }
  std::vector<std::string> moves;
  bool glue_next = false;
  for (std::string_view token : Split(cleaned, " \t\r\n", true)) {
    if (IsMoveNumber(token) || IsResult(token)) continue;
    token = StripLeadingMoveNumber(token);
    const bool separator = token == "-" || token == "x";
    if (!moves.empty() && (glue_next || separator || IsCount(token))) {
      moves.back() += token;
      glue_next = separator;
      continue;
    }
    moves.emplace_back(token);
    glue_next = false;
  }
  return moves;
}

size_t UnclosedComment(std::string_view text) {
  int brace_depth = 0;
  bool line_comment = false;
  size_t opened = std::string_view::npos;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (line_comment) {
      if (c == '\n') line_comment = false;
    } else if (c == '{') {
      if (brace_depth++ == 0) opened = i;
    } else if (c == '}' && brace_depth > 0) {
      --brace_depth;
    } else if (c == ';' && brace_depth == 0) {
      line_comment = true;
    }
  }
  return brace_depth > 0 ? opened : std::string_view::npos;
}

absl::StatusOr<std::vector<RecordedGame>> ParseGameFileText(
    std::string_view text) {
  std::vector<RecordedGame> games;
  bool in_moves = false;  // the current game's move text has started
  std::string move_text;
  std::vector<int> move_lines;  // the file line of each line of move_text
  int line_number = 0;
  auto finish = [&]() -> absl::Status {
    if (const size_t open = UnclosedComment(move_text);
        open != std::string_view::npos) {
      const size_t line = static_cast<size_t>(
          std::count(move_text.begin(), move_text.begin() + open, '\n'));
      return absl::InvalidArgumentError(
          Cat("line ", move_lines[line],
              ": a '{' comment is never closed (it would hide the rest of "
              "the game)"));
    }
    if (!games.empty()) games.back().moves = SplitMoveText(move_text);
    move_text.clear();
    move_lines.clear();
    return absl::OkStatus();
  };
  for (std::string_view line : Split(text, "\n", false)) {
    ++line_number;
    line = Trim(line);
    if (line.empty()) continue;
    if (line.front() == '[') {
      std::string key, value;
      if (!ParseTagLine(line, &key, &value)) {
        return absl::InvalidArgumentError(
            Cat("line ", line_number,
                ": malformed tag (expected [Key \"value\"])"));
      }
      // A tag after move text, or a tag the game already has, starts a game.
      if (games.empty() || in_moves || !games.back().Tag(key).empty()) {
        if (absl::Status s = finish(); !s.ok()) return s;
        games.emplace_back();
        games.back().first_line = line_number;
        in_moves = false;
      }
      games.back().tags.emplace_back(std::move(key), std::move(value));
      continue;
    }
    if (games.empty()) {
      games.emplace_back();
      games.back().first_line = line_number;
    }
    in_moves = true;
    Append(&move_text, line, "\n");
    move_lines.push_back(line_number);
  }
  if (absl::Status s = finish(); !s.ok()) return s;
  return games;
}

absl::StatusOr<std::vector<RecordedGame>> ReadGameFile(
    const std::string& path) {
  absl::StatusOr<std::string> text =
      ReadBoundedFile(path, kMaxTextFileBytes, "game file");
  if (!text.ok()) {
    if (absl::IsNotFound(text.status())) {
      return absl::NotFoundError(Cat("cannot open '", path, "'"));
    }
    return text.status();
  }
  absl::StatusOr<std::vector<RecordedGame>> games = ParseGameFileText(*text);
  if (!games.ok()) {
    return absl::InvalidArgumentError(
        Cat(path, ": ", games.status().message()));
  }
  return games;
}

std::string StatusWord(const GameState& state) {
  const GameResult result = state.Result();
  if (result.IsOver()) {
    const TerminationInfo* termination =
        FindTermination(state.Info().name, result.termination);
    if (termination != nullptr && !termination->status.empty()) {
      return termination->status;
    }
    return Cat(result.outcome == Outcome::kDraw ? "draw" : "decided", " (",
               TerminationName(state.Info().name, result.termination), ")");
  }
  return state.InCheck() ? "check" : "ongoing";
}

ReplayReport ReplayGame(const Game& game, const RecordedGame& record) {
  ReplayReport report;
  std::string start = record.Tag("TFEN");
  if (start.empty()) start = record.Tag("Position");
  std::unique_ptr<GameState> state;
  if (start.empty()) {
    state = game.NewInitialState();
  } else {
    absl::StatusOr<std::unique_ptr<GameState>> parsed =
        game.NewStateFromText(start);
    if (!parsed.ok()) {
      report.error = Cat("start position: ", parsed.status().message());
      return report;
    }
    state = *std::move(parsed);
  }
  for (const std::string& text : record.moves) {
    const int ply = report.plies + 1;
    if (state->Result().IsOver()) {
      report.error =
          Cat("ply ", ply, " (", text, "): the game was already over (",
              StatusWord(*state), ")");
      return report;
    }
    absl::StatusOr<Move> move = state->ParseMove(text);
    if (!move.ok()) {
      report.error =
          Cat("ply ", ply, " (", text, "): ", move.status().message());
      return report;
    }
    state->Play(*move);
    report.plies = ply;
  }
  const std::string plies_tag = record.Tag("Plies");
  if (!plies_tag.empty() && plies_tag != std::to_string(report.plies)) {
    report.error = Cat("the Plies tag says ", plies_tag, " but ", report.plies,
                       " moves were read");
    return report;
  }
  report.ok = true;
  report.status = StatusWord(*state);
  report.final_position = state->PositionText();
  return report;
}

}  // namespace volkhv
