// The files a generation loop shares with its self-play workers in a run
// directory (proto/workers.proto):
//   nets/latest.textproto   WorkerAssignment: which generation, which net,
//                           how many games; replaced atomically by the loop
//   nets/gen-NNNN.net       the nets (written once, atomically)
//   incoming/gen-NNNN-*.vrec  the workers' record files (atomic, uniquely
//                           named: selfplay/selfplay.h)
//   incoming/surplus/       files the loop did not take (late or beyond the
//                           generation's count), kept for inspection
//   games/gen-NNNN-*.vrec   the games the loop took, exactly the configured
//                           number per generation
// Every function is thread-safe; the files are safe to share between
// processes and machines (a shared file system with atomic rename).
#ifndef VOLKHV_SELFPLAY_WORKER_DIR_H_
#define VOLKHV_SELFPLAY_WORKER_DIR_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/workers.pb.h"

namespace volkhv::selfplay {

// "gen-0004": the record file prefix of a generation's games.
std::string GenerationPrefix(int generation);

std::string AssignmentPath(const std::string& run_dir);
std::string IncomingDir(const std::string& run_dir);
std::string SurplusDir(const std::string& run_dir);
std::string GamesDir(const std::string& run_dir);

// Atomic replacement of nets/latest.textproto.
absl::Status WriteAssignment(const std::string& run_dir,
                             const proto::WorkerAssignment& assignment);
// NotFound while the loop has published none.
absl::StatusOr<proto::WorkerAssignment> ReadAssignment(
    const std::string& run_dir);

// The host of a record file name <prefix>-<host>-<pid>-<time>-<nonce>-
// <sequence>.vrec (the default writer id); "?" for other names.
std::string WriterHost(std::string_view file_name, std::string_view prefix);

// The games in the record files of `dir` named <prefix>-*.vrec; files that
// cannot be read are not counted. 0 for a missing directory.
int CountGames(const std::string& dir, std::string_view prefix);

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_WORKER_DIR_H_
