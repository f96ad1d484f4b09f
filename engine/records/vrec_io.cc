#include "engine/records/vrec_io.h"

#include <algorithm>
#include <filesystem>

#include "engine/games/games.h"
#include "engine/util/checked_file.h"
#include "engine/util/files.h"
#include "engine/util/strings.h"

namespace volkhv {

absl::Status WriteGameRecords(const std::string& path,
                              const std::vector<proto::GameRecord>& games) {
  proto::RecordFile file;
  file.set_format_version(kRecordFormatVersion);
  for (const proto::GameRecord& g : games) *file.add_games() = g;
  std::string body;
  if (!file.SerializeToString(&body)) {
    return absl::InternalError(Cat(path, ": cannot serialize the records"));
  }
  return WriteFileAtomically(path, WithChecksum(std::move(body)));
}

absl::StatusOr<std::vector<proto::GameRecord>> ReadGameRecords(
    const std::string& path) {
  absl::StatusOr<std::string> bytes =
      ReadWholeFile(path, kMaxRecordFileBytes, "record file");
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<std::string_view> body =
      CheckedBody(*bytes, "game record file");
  if (!body.ok()) {
    return absl::DataLossError(Cat(path, ": ", body.status().message()));
  }
  proto::RecordFile file;
  if (!file.ParseFromArray(body->data(), static_cast<int>(body->size()))) {
    return absl::DataLossError(
        Cat(path, ": not a game record file (protobuf parse error)"));
  }
  if (file.format_version() != kRecordFormatVersion) {
    return absl::FailedPreconditionError(
        Cat(path, ": record format version ", file.format_version(),
            ", this build reads ", kRecordFormatVersion));
  }
  return std::vector<proto::GameRecord>(file.games().begin(),
                                        file.games().end());
}

absl::StatusOr<std::vector<std::string>> ListRecordFiles(
    const std::string& dir) {
  std::error_code error;
  std::filesystem::directory_iterator it(dir, error);
  if (error) {
    return absl::NotFoundError(
        Cat(dir, ": cannot list the directory: ", error.message()));
  }
  std::vector<std::string> files;
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.size() > 5 &&
        name.ends_with(kRecordExtension)) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

absl::StatusOr<DirectoryRead> ReadRecordDirectory(
    const std::string& dir,
    const std::function<void(const std::string&)>& warn) {
  absl::StatusOr<std::vector<std::string>> files = ListRecordFiles(dir);
  if (!files.ok()) return files.status();
  DirectoryRead read;
  for (const std::string& path : *files) {
    absl::StatusOr<std::vector<proto::GameRecord>> games =
        ReadGameRecords(path);
    if (!games.ok()) {
      ++read.files_skipped;
      warn(Cat("warning: skipping ", games.status().message()));
      continue;
    }
    ++read.files_read;
    for (proto::GameRecord& g : *games) read.games.push_back(std::move(g));
  }
  return read;
}

uint32_t PackMove(Move move) { return move.Packed(); }

Move UnpackMove(uint32_t packed) {
  return MakeMove(packed & 0xFF, (packed >> 8) & 0xFF, (packed >> 16) & 0xFF);
}

absl::StatusOr<GameOptions> ParseRecordGameOptions(std::string_view text) {
  absl::StatusOr<GameOptions> options = ParseGameOptionsText(text);
  if (!options.ok()) {
    return absl::InvalidArgumentError(
        Cat("bad game options '", text, "' in a record"));
  }
  return options;
}

absl::StatusOr<std::unique_ptr<GameState>> RecordStartState(
    const proto::GameRecord& record) {
  absl::StatusOr<GameOptions> options =
      ParseRecordGameOptions(record.game_options());
  if (!options.ok()) return options.status();
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGame(record.game(), *options);
  if (!game.ok()) return game.status();
  if (record.start_position().empty()) return (*game)->NewInitialState();
  return (*game)->NewStateFromText(record.start_position());
}

absl::Status ReplayRecord(
    const proto::GameRecord& record,
    const std::function<void(const GameState&, int ply)>& visit) {
  absl::StatusOr<std::unique_ptr<GameState>> state = RecordStartState(record);
  if (!state.ok()) return state.status();
  MoveList legal;
  for (int ply = 0; ply < record.plies_size(); ++ply) {
    visit(**state, ply);
    const Move move = UnpackMove(record.plies(ply).move());
    (*state)->LegalMoves(&legal);
    if (!legal.contains(move)) {
      return absl::DataLossError(Cat("ply ", ply + 1, " (",
                                     record.plies(ply).move_text(),
                                     ") is not legal"));
    }
    (*state)->Play(move);
  }
  visit(**state, record.plies_size());
  return absl::OkStatus();
}

std::string_view WinnerName(proto::GameRecord::Winner winner) {
  switch (winner) {
    case proto::GameRecord::FIRST_PLAYER:
      return "first player";
    case proto::GameRecord::SECOND_PLAYER:
      return "second player";
    case proto::GameRecord::DRAW:
      return "draw";
    default:
      return "undecided";
  }
}

std::string TerminationNameOf(const proto::GameRecord& record) {
  return RecordTerminationName(record.game(),
                               static_cast<Termination>(record.termination()));
}

}  // namespace volkhv
