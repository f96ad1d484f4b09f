// Shared helpers of the test suites: running the `volkhv` binary, files,
// and temporary folders that remove themselves. Fake evaluators are in
// tests/fake_evaluator.h, games, positions and encoders in
// tests/game_fixtures.h.
#ifndef VOLKHV_TESTS_TEST_TOOLKIT_H_
#define VOLKHV_TESTS_TEST_TOOLKIT_H_

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace volkhv::testing {

// Passes when `needle` occurs in `haystack`; the failure shows both.
inline ::testing::AssertionResult Contains(const std::string& haystack,
                                           const std::string& needle) {
  if (haystack.find(needle) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "'" << needle << "' not in: " << haystack;
}

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

// A fresh folder under the test temporary directory, removed with its
// contents when the object goes, by the process that made it (a forked child
// that exits leaves it alone). Unique per process and object (ctest runs
// test cases in parallel processes).
class ScopedTempDir {
 public:
  ScopedTempDir() : owner_(getpid()) {
    static std::atomic<int> counter{0};
    std::string base = ::testing::TempDir();
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    path_ = base + "/volkhv_test_" + std::to_string(getpid()) + "_" +
            std::to_string(counter++);
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScopedTempDir() {
    if (getpid() != owner_) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  pid_t owner_;
  std::string path_;
};

// The test process's own temporary folder, removed when the process ends
// normally: for helpers that hand out paths without owning them.
inline const ScopedTempDir& ProcessTempDir() {
  static const ScopedTempDir dir;
  return dir;
}

// A path under ProcessTempDir(); `name` must be unique within the process.
inline std::string TempPath(const std::string& name) {
  return ProcessTempDir().File(name);
}

// TempPath(name), with anything already there removed.
inline std::string FreshPath(const std::string& name) {
  const std::string path = TempPath(name);
  std::filesystem::remove_all(path);
  return path;
}

// FreshPath(name), made an empty folder.
inline std::string FreshDir(const std::string& name) {
  const std::string path = FreshPath(name);
  std::filesystem::create_directories(path);
  return path;
}

// For a forked child, its standard streams already set: replaces the process
// with `volkhv ARGS...` (VOLKHV_BINARY, no shell); exits with 127 when that
// fails.
[[noreturn]] inline void ExecVolkhv(const std::vector<std::string>& args) {
  std::string binary = VOLKHV_BINARY;
  std::vector<std::string> copy = args;
  std::vector<char*> argv = {binary.data()};
  for (std::string& arg : copy) argv.push_back(arg.data());
  argv.push_back(nullptr);
  execv(binary.c_str(), argv.data());
  _exit(127);
}

// Passes when `table` holds `row` followed by "W/D/L" counts summing to
// `games` (the rows of match tables and reports); the failure shows the
// table.
inline ::testing::AssertionResult RowHasGames(const std::string& table,
                                              const std::string& row,
                                              int games) {
  const size_t at = table.find(row);
  if (at == std::string::npos) {
    return ::testing::AssertionFailure() << "'" << row << "' not in:\n"
                                         << table;
  }
  int wins = -1, draws = -1, losses = -1;
  if (std::sscanf(table.c_str() + at + row.size(), "%d/%d/%d", &wins, &draws,
                  &losses) != 3 ||
      wins + draws + losses != games) {
    return ::testing::AssertionFailure()
           << "'" << row << "' is not followed by W/D/L counts of " << games
           << " games in:\n"
           << table;
  }
  return ::testing::AssertionSuccess();
}

struct RunResult {
  int exit_code;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `<env> volkhv <args>` through the shell with stdin from `stdin_path`
// (see Volkhv).
inline RunResult VolkhvReading(const std::string& stdin_path,
                               const std::string& args,
                               const std::string& env) {
  ScopedTempDir dir;
  const std::string out = dir.File("out.txt");
  const std::string err = dir.File("err.txt");
  const std::string command = env + (env.empty() ? "" : " ") +
                              std::string(VOLKHV_BINARY) + " " + args + " >" +
                              out + " 2>" + err + " <" + stdin_path;
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, Slurp(out), Slurp(err)};
}

// Whether this build (the tests and the binary they run) has AddressSanitizer,
// which reserves terabytes of address space at start: such a binary cannot
// start under an address-space limit (`ulimit -v`).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

// Runs `<env> volkhv <args>` through the shell with stdin from /dev/null;
// `args` and `env` (shell words before the command, e.g.
// "VOLKHV_NETS=/tmp/x", "env -u VOLKHV_NETS", "ulimit -v 1000000;") must be
// shell-quoted. Needs VOLKHV_BINARY (tests/CMakeLists.txt defines it).
inline RunResult Volkhv(const std::string& args, const std::string& env = "") {
  return VolkhvReading("/dev/null", args, env);
}

// Volkhv(args) with `input` on stdin.
inline RunResult VolkhvWithInput(const std::string& args,
                                 const std::string& input) {
  ScopedTempDir dir;
  const std::string in = dir.File("in.txt");
  WriteFile(in, input);
  return VolkhvReading(in, args, "");
}

// A generation-0 net of `game` at `path`, made by `volkhv net init` with the
// small CPU net config (needs VOLKHV_SOURCE_DIR too).
inline void InitNet(const std::string& game, const std::string& path) {
  const RunResult r =
      Volkhv("net init --game " + game + " --config " + VOLKHV_SOURCE_DIR +
             "/configs/net-cpu.textproto --out " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace volkhv::testing

#endif  // VOLKHV_TESTS_TEST_TOOLKIT_H_
