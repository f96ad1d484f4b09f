// .vrec files, the binary game records of self-play and matches
// (proto/game_record.proto; not the PGN-style game files of
// game_file_reader.h): atomic writing, checked reading, directories of them,
// and replaying a record through the rules.
#ifndef VOLKHV_ENGINE_RECORDS_VREC_IO_H_
#define VOLKHV_ENGINE_RECORDS_VREC_IO_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "proto/game_record.pb.h"

namespace volkhv {

inline constexpr uint32_t kRecordFormatVersion = 1;
// Record files end in this; anything else in a record directory is ignored.
inline constexpr char kRecordExtension[] = ".vrec";

// Writes the games as one file, atomically. Thread-safe for distinct paths.
absl::Status WriteGameRecords(const std::string& path,
                              const std::vector<proto::GameRecord>& games);

// Reads one file; a damaged, truncated or foreign file, or one of another
// format version, is an error naming the path. Thread-safe.
absl::StatusOr<std::vector<proto::GameRecord>> ReadGameRecords(
    const std::string& path);

// The record files of a directory (not recursive), sorted by name.
absl::StatusOr<std::vector<std::string>> ListRecordFiles(
    const std::string& dir);

// Reads every record file of a directory in name order. A file that cannot
// be read is skipped and reported through `warn` (one line); it never stops
// the others. Thread-safe.
struct DirectoryRead {
  std::vector<proto::GameRecord> games;
  int files_read = 0;
  int files_skipped = 0;
};
absl::StatusOr<DirectoryRead> ReadRecordDirectory(
    const std::string& dir,
    const std::function<void(const std::string&)>& warn);

// Packs and unpacks moves as stored in records.
uint32_t PackMove(Move move);
Move UnpackMove(uint32_t packed);

// The game options a record stores as text ("prince_max_steps=3").
absl::StatusOr<GameOptions> ParseRecordGameOptions(std::string_view text);

// The start state of a record (its game, options and start position).
absl::StatusOr<std::unique_ptr<GameState>> RecordStartState(
    const proto::GameRecord& record);

// Replays every ply through the rules, calling `visit(state, ply)` before
// each ply is played (the state the ply's search saw) and once more at the
// end with ply == plies_size(). Errors name the first illegal ply.
absl::Status ReplayRecord(
    const proto::GameRecord& record,
    const std::function<void(const GameState&, int ply)>& visit);

// "first player", "second player", "draw", "undecided".
std::string_view WinnerName(proto::GameRecord::Winner winner);
// The name of the record's termination in summaries, by its game's module
// (engine/games/games.h: RecordTerminationName): "fifty moves".
std::string TerminationNameOf(const proto::GameRecord& record);

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_RECORDS_VREC_IO_H_
