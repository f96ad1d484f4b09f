#include "selfplay/worker_dir.h"

#include <filesystem>
#include <vector>

#include "absl/strings/str_format.h"
#include "engine/records/vrec_io.h"
#include "engine/util/checked_file.h"
#include "engine/util/files.h"
#include "engine/util/strings.h"
#include "google/protobuf/text_format.h"
#include "nn/text_proto.h"

namespace volkhv::selfplay {

std::string GenerationPrefix(int generation) {
  return absl::StrFormat("gen-%04d", generation);
}

std::string AssignmentPath(const std::string& run_dir) {
  return run_dir + "/nets/latest.textproto";
}
std::string IncomingDir(const std::string& run_dir) {
  return run_dir + "/incoming";
}
std::string SurplusDir(const std::string& run_dir) {
  return run_dir + "/incoming/surplus";
}
std::string GamesDir(const std::string& run_dir) { return run_dir + "/games"; }

absl::Status WriteAssignment(const std::string& run_dir,
                             const proto::WorkerAssignment& assignment) {
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(assignment, &text)) {
    return absl::InternalError("cannot print the worker assignment");
  }
  return WriteFileAtomically(AssignmentPath(run_dir), text);
}

absl::StatusOr<proto::WorkerAssignment> ReadAssignment(
    const std::string& run_dir) {
  const std::string path = AssignmentPath(run_dir);
  if (!std::filesystem::exists(path)) {
    return absl::NotFoundError(Cat(path, ": no assignment published yet"));
  }
  absl::StatusOr<std::string> text = nn::ReadTextFile(path);
  if (!text.ok()) return text.status();
  proto::WorkerAssignment assignment;
  if (absl::Status s = nn::MergeTextProto(*text, path, &assignment); !s.ok()) {
    return s;
  }
  return assignment;
}

std::string WriterHost(std::string_view file_name, std::string_view prefix) {
  std::string_view name = file_name;
  if (!name.starts_with(prefix) || name.size() <= prefix.size() + 1 ||
      name[prefix.size()] != '-' || !name.ends_with(kRecordExtension)) {
    return "?";
  }
  name.remove_prefix(prefix.size() + 1);
  name.remove_suffix(std::string_view(kRecordExtension).size());
  // Drop <pid>-<time>-<nonce>-<sequence> from the right.
  for (int field = 0; field < 4; ++field) {
    const size_t dash = name.rfind('-');
    if (dash == std::string_view::npos || dash == 0) return "?";
    name = name.substr(0, dash);
  }
  return std::string(name);
}

int CountGames(const std::string& dir, std::string_view prefix) {
  if (!std::filesystem::exists(dir)) return 0;
  absl::StatusOr<std::vector<std::string>> files = ListRecordFiles(dir);
  if (!files.ok()) return 0;
  int games = 0;
  const std::string start = Cat(prefix, "-");
  for (const std::string& path : *files) {
    if (!std::filesystem::path(path).filename().string().starts_with(start)) {
      continue;
    }
    absl::StatusOr<std::vector<proto::GameRecord>> read = ReadGameRecords(path);
    if (read.ok()) games += static_cast<int>(read->size());
  }
  return games;
}

}  // namespace volkhv::selfplay
