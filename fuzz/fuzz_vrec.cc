// .vrec game record files (engine/records/vrec_io.h) as self-play writes them
// and `records`, `train` and the loop read them: the bytes as a file, and
// when they are refused, again with a valid checksum appended (so that the
// protobuf body is fuzzed past the CRC-32 check). Every game read is
// replayed through the rules, then the file is loaded as training data
// (training/dataset.h) and a batch of its positions is built, with
// symmetries.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "engine/util/checked_file.h"
#include "fuzz/fuzz_check.h"
#include "training/dataset.h"

namespace {

namespace fs = std::filesystem;

// A directory of this process for the record file (removed at exit).
const std::string& RecordDir() {
  static const std::string* dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    auto* d = new std::string(
        (fs::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") /
         ("volkhv_fuzz_vrec_" + std::to_string(getpid())))
            .string());
    fs::create_directories(*d);
    std::atexit([] { fs::remove_all(RecordDir()); });
    return d;
  }();
  return *dir;
}

constexpr char kFileName[] = "fuzz.vrec";

void WriteFile(std::string_view bytes) {
  std::ofstream out(RecordDir() + "/" + kFileName,
                    std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  FUZZ_CHECK(out.good(), "cannot write the record file");
}

void CheckGames(const std::vector<volkhv::proto::GameRecord>& games) {
  using namespace volkhv;
  for (const proto::GameRecord& record : games) {
    int visited = 0;
    const absl::Status replay =
        ReplayRecord(record, [&visited](const GameState& state, int ply) {
          FUZZ_CHECK(ply == visited, "ReplayRecord visits plies in order");
          ++visited;
          state.PositionText();
        });
    if (replay.ok()) FUZZ_CHECK(visited == record.plies_size() + 1, "visits");
  }
  if (games.empty() || !MakeGame(games.front().game()).ok()) return;

  // The trainer's view: the file as its only record file.
  training::DatasetOptions options;
  options.records_dir = RecordDir();
  options.record_files = {kFileName};
  options.game = games.front().game();
  absl::StatusOr<std::unique_ptr<training::Dataset>> dataset =
      training::Dataset::Load(options, [](const std::string&) {});
  FUZZ_CHECK(dataset.ok(), dataset.status().message());
  const int policy_size = (*dataset)->encoder().PolicySize();
  training::ValueTarget value;
  value.result_discount = 0.98;
  value.search_value_weight = 0.5;
  training::Batch batch;
  for (const std::vector<training::Sample>& samples :
       {(*dataset)->SampleBatch(1, 0, 16, /*augment=*/true),
        (*dataset)->ValidationSample(1, 16)}) {
    const absl::Status built = (*dataset)->BuildBatch(samples, value, &batch);
    FUZZ_CHECK(built.ok(), built.message());
    for (int row = 0; row < batch.size; ++row) {
      FUZZ_CHECK(batch.target_count[row] >= 1 &&
                     batch.target_count[row] <= training::kTargetStride,
                 "target count");
      for (int k = 0; k < batch.target_count[row]; ++k) {
        const int64_t index =
            batch.policy_index[row * training::kTargetStride + k];
        FUZZ_CHECK(index >= 0 && index < policy_size, "policy index");
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace volkhv;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The bytes as they are, and when they are refused, with a checksum.
  for (const std::string& file :
       {std::string(bytes), WithChecksum(std::string(bytes))}) {
    WriteFile(file);
    absl::StatusOr<std::vector<proto::GameRecord>> games =
        ReadGameRecords(RecordDir() + "/" + kFileName);
    if (!games.ok()) {
      FUZZ_CHECK(!games.status().message().empty(), "error message");
      continue;
    }
    CheckGames(*games);
    break;
  }
  return 0;
}
