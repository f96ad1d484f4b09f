#include "training/external_selfplay.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "engine/records/vrec_io.h"
#include "engine/util/strings.h"
#include "selfplay/worker_dir.h"

namespace volkhv::training {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string FileName(const std::string& path) {
  return fs::path(path).filename().string();
}

// The generation of a record file named gen-NNNN-...; -1 for other names.
int FileGeneration(const std::string& name) {
  if (!name.starts_with("gen-")) return -1;
  const size_t dash = name.find('-', 4);
  int generation = -1;
  if (dash == std::string::npos ||
      !absl::SimpleAtoi(name.substr(4, dash - 4), &generation)) {
    return -1;
  }
  return generation;
}

absl::Status Rename(const std::string& from, const std::string& to) {
  std::error_code error;
  fs::rename(from, to, error);
  if (error) {
    return absl::InternalError(
        Cat(from, ": cannot move to ", to, ": ", error.message()));
  }
  return absl::OkStatus();
}

// The games taken so far, by worker host.
class Tally {
 public:
  void Add(const std::string& file_name, std::string_view prefix, int games) {
    total_ += games;
    by_host_[selfplay::WriterHost(file_name, prefix)] += games;
  }
  int total() const { return total_; }
  std::string Hosts() const {
    std::string text;
    for (const auto& [host, games] : by_host_) {
      Append(&text, text.empty() ? "" : ", ", host, " ", games);
    }
    return text;
  }

 private:
  int total_ = 0;
  std::map<std::string, int> by_host_;
};

class Collector {
 public:
  explicit Collector(const WorkerGamesRequest& request)
      : request_(request),
        prefix_(selfplay::GenerationPrefix(request.generation)),
        games_dir_(selfplay::GamesDir(request.run_dir)),
        incoming_dir_(selfplay::IncomingDir(request.run_dir)),
        surplus_dir_(selfplay::SurplusDir(request.run_dir)) {}

  absl::StatusOr<double> Run();

 private:
  void Log(const std::string& line) const {
    if (request_.log) request_.log(line);
  }
  bool Stopped() const {
    return request_.stop != nullptr && request_.stop->load();
  }
  absl::Status CountTaken();
  // One look at incoming/: takes what the generation still needs.
  absl::Status Poll();
  absl::Status Take(const std::string& path);

  const WorkerGamesRequest& request_;
  const std::string prefix_;
  const std::string games_dir_;
  const std::string incoming_dir_;
  const std::string surplus_dir_;
  Tally taken_;
  std::set<std::string> warned_;
};

absl::Status Collector::CountTaken() {
  absl::StatusOr<std::vector<std::string>> files = ListRecordFiles(games_dir_);
  if (!files.ok()) return files.status();
  for (const std::string& path : *files) {
    const std::string name = FileName(path);
    if (FileGeneration(name) != request_.generation) continue;
    absl::StatusOr<std::vector<proto::GameRecord>> games =
        ReadGameRecords(path);
    if (!games.ok()) return games.status();  // games/ holds checked files
    taken_.Add(name, prefix_, static_cast<int>(games->size()));
  }
  return absl::OkStatus();
}

absl::Status Collector::Take(const std::string& path) {
  const std::string name = FileName(path);
  const std::string taken_path = Cat(games_dir_, "/", name);
  if (fs::exists(taken_path)) {  // taken by a loop killed before the move
    return Rename(path, Cat(surplus_dir_, "/", name));
  }
  absl::StatusOr<std::vector<proto::GameRecord>> games = ReadGameRecords(path);
  if (!games.ok()) {
    if (warned_.insert(name).second) {
      Log(Cat("warning: not taking ", games.status().message(),
              " (looked at again later)"));
    }
    return absl::OkStatus();
  }
  const int need = request_.games - taken_.total();
  const int count = static_cast<int>(games->size());
  if (count <= need) {
    if (absl::Status s = Rename(path, taken_path); !s.ok()) return s;
    taken_.Add(name, prefix_, count);
    return absl::OkStatus();
  }
  games->resize(need);
  if (absl::Status s = WriteGameRecords(taken_path, *games); !s.ok()) {
    return s;
  }
  taken_.Add(name, prefix_, need);
  return Rename(path, Cat(surplus_dir_, "/", name));
}

absl::Status Collector::Poll() {
  absl::StatusOr<std::vector<std::string>> files =
      ListRecordFiles(incoming_dir_);
  if (!files.ok()) return files.status();
  for (const std::string& path : *files) {
    const int generation = FileGeneration(FileName(path));
    if (generation >= 0 && generation < request_.generation) {
      if (absl::Status s = Rename(path, Cat(surplus_dir_, "/", FileName(path)));
          !s.ok()) {
        return s;
      }
    } else if (generation == request_.generation &&
               taken_.total() < request_.games) {
      if (absl::Status s = Take(path); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<double> Collector::Run() {
  for (const std::string& dir : {games_dir_, incoming_dir_, surplus_dir_}) {
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) {
      return absl::PermissionDeniedError(
          Cat(dir, ": cannot create: ", error.message()));
    }
  }
  if (absl::Status s = CountTaken(); !s.ok()) return s;
  if (taken_.total() >= request_.games) return 0.0;
  proto::WorkerAssignment assignment;
  assignment.set_generation(request_.generation);
  assignment.set_net(request_.net_file);
  assignment.set_games(request_.games);
  if (absl::Status s = selfplay::WriteAssignment(request_.run_dir, assignment);
      !s.ok()) {
    return s;
  }
  Log(Cat(prefix_, ": waiting for ", request_.games - taken_.total(),
          " games from workers playing ", request_.net_file,
          " (volkhv "
          "selfplay --follow ",
          request_.run_dir, ")"));
  const Clock::time_point start = Clock::now();
  Clock::time_point last_game = start;
  Clock::time_point last_line = start;
  auto seconds = [](Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  };
  const auto poll =
      std::chrono::duration<double>(request_.config.poll_seconds());
  while (!Stopped()) {
    const int before = taken_.total();
    if (absl::Status s = Poll(); !s.ok()) return s;
    const bool done = taken_.total() >= request_.games;
    if (taken_.total() > before) {
      last_game = Clock::now();
      if (done || seconds(last_line) >= 10) {
        last_line = Clock::now();
        Log(absl::StrFormat("%s: %d/%d games from workers (%s), %.0f s",
                            prefix_, taken_.total(), request_.games,
                            taken_.Hosts(), seconds(start)));
      }
    }
    if (done) break;
    if (seconds(last_game) > request_.config.timeout_seconds()) {
      return absl::DeadlineExceededError(absl::StrFormat(
          "%s: %d/%d games, none new for %.0f s (external_selfplay."
          "timeout_seconds); are workers running `volkhv selfplay --follow "
          "%s`?",
          prefix_, taken_.total(), request_.games,
          request_.config.timeout_seconds(), request_.run_dir));
    }
    const Clock::time_point wake =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(poll);
    while (!Stopped() && Clock::now() < wake) {
      std::this_thread::sleep_for(std::min<Clock::duration>(
          wake - Clock::now(), std::chrono::milliseconds(50)));
    }
  }
  return seconds(start);
}

}  // namespace

absl::StatusOr<double> CollectWorkerGames(const WorkerGamesRequest& request) {
  Collector collector(request);
  return collector.Run();
}

absl::Status PublishRunFinished(const std::string& run_dir, int generation) {
  proto::WorkerAssignment assignment;
  assignment.set_generation(generation);
  assignment.set_finished(true);
  return selfplay::WriteAssignment(run_dir, assignment);
}

}  // namespace volkhv::training
