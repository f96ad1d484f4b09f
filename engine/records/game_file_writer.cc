#include "engine/records/game_file_writer.h"

#include <cctype>
#include <ctime>

#include "absl/strings/str_format.h"
#include "engine/util/strings.h"

namespace volkhv {
namespace {

// Tag values are written between double quotes, which the reader does not
// escape: a quote inside becomes an apostrophe.
std::string TagValue(std::string value) {
  for (char& c : value) {
    if (c == '"') c = '\'';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return value;
}

// Braces would end or nest the comment.
std::string CommentText(std::string text) {
  for (char& c : text) {
    if (c == '{') c = '(';
    if (c == '}') c = ')';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

std::string SideTitle(const std::string& player_name) {
  std::string title = player_name;
  if (!title.empty()) {
    title[0] =
        static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
  }
  return title;
}

std::string ResultText(double first_player_score) {
  if (first_player_score > 0.75) return "1-0";
  if (first_player_score < 0.25) return "0-1";
  return "1/2-1/2";
}

std::string TodayDate() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  return absl::StrFormat("%04d.%02d.%02d", local.tm_year + 1900,
                         local.tm_mon + 1, local.tm_mday);
}

std::string FormatGameFile(const GameFileRecord& r) {
  std::string out;
  auto tag = [&out](std::string_view key, const std::string& value) {
    Append(&out, "[", key, " \"", TagValue(value), "\"]\n");
  };
  if (!r.event.empty()) tag("Event", r.event);
  if (!r.date.empty()) tag("Date", r.date);
  if (r.round > 0) tag("Round", std::to_string(r.round));
  tag("Game", r.game);
  if (!r.variant.empty()) tag("Variant", r.variant);
  tag(r.first_title, r.first_player);
  tag(r.second_title, r.second_player);
  tag("Result", r.result);
  if (!r.start_position.empty()) tag("TFEN", r.start_position);
  tag("Plies", std::to_string(r.moves.size()));
  if (!r.termination.empty()) tag("Termination", r.termination);
  for (const auto& [key, value] : r.extra_tags) tag(key, value);
  out += "\n";

  // Move text: tokens joined by spaces, wrapped at 80 columns.
  std::string line;
  auto token = [&](const std::string& text) {
    if (!line.empty() && line.size() + 1 + text.size() > 80) {
      Append(&out, line, "\n");
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += text;
  };
  int number = 1;
  bool first_side = !r.second_to_move;
  for (size_t i = 0; i < r.moves.size(); ++i) {
    if (first_side) {
      token(Cat(number, "."));
    } else if (i == 0) {
      token(Cat(number, "..."));
    }
    token(r.moves[i]);
    if (i < r.comments.size() && !r.comments[i].empty()) {
      token(Cat("{", CommentText(r.comments[i]), "}"));
    }
    if (!first_side) ++number;
    first_side = !first_side;
  }
  token(r.result);
  Append(&out, line, "\n\n");
  return out;
}

absl::Status GameFileWriter::Open(const std::string& path, bool append) {
  std::lock_guard<std::mutex> lock(mutex_);
  out_.open(path,
            std::ios::binary | (append ? std::ios::app : std::ios::trunc));
  if (!out_) {
    return absl::InvalidArgumentError(Cat("cannot write '", path, "'"));
  }
  path_ = path;
  return absl::OkStatus();
}

absl::Status GameFileWriter::Append(const GameFileRecord& record) {
  const std::string text = FormatGameFile(record);
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << text;
  out_.flush();
  if (!out_) return absl::DataLossError(Cat("error writing '", path_, "'"));
  return absl::OkStatus();
}

}  // namespace volkhv
