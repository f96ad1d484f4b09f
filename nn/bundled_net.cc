#include "nn/bundled_net.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_join.h"
#include "engine/util/strings.h"

namespace volkhv::nn {
namespace {

std::string ExecutableDir() {
  std::error_code error;
  const std::filesystem::path exe =
      std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string() : exe.parent_path().string();
}

}  // namespace

std::string BundledNetFileName(std::string_view game) {
  return Cat(game, ".net");
}

std::vector<std::string> BundledNetDirs(
    const std::optional<std::string>& nets_env, const std::string& exe_dir,
    const std::string& source_dir) {
  if (nets_env.has_value()) return {*nets_env};
  std::vector<std::string> dirs;
  if (!exe_dir.empty()) {
    dirs.push_back(Cat(exe_dir, "/../nets"));
    dirs.push_back(Cat(exe_dir, "/../share/volkhv/nets"));
  }
  if (!source_dir.empty()) dirs.push_back(Cat(source_dir, "/nets"));
  return dirs;
}

absl::StatusOr<std::string> FindBundledNet(
    std::string_view game, const std::vector<std::string>& dirs) {
  std::vector<std::string> tried;
  for (const std::string& dir : dirs) {
    const std::filesystem::path path =
        std::filesystem::path(dir) / BundledNetFileName(game);
    std::error_code error;
    if (std::filesystem::is_regular_file(path, error)) {
      return path.lexically_normal().string();
    }
    const std::string normal = path.lexically_normal().string();
    if (std::find(tried.begin(), tried.end(), normal) == tried.end()) {
      tried.push_back(normal);
    }
  }
  return absl::NotFoundError(
      Cat("net auto: no bundled net for ", game, " (looked for ",
          tried.empty() ? std::string("nothing") : absl::StrJoin(tried, ", "),
          "); give --net FILE, or --net random to play without a net"));
}

absl::StatusOr<std::string> FindBundledNet(std::string_view game) {
  std::optional<std::string> nets_env;
  if (const char* env = std::getenv("VOLKHV_NETS"); env != nullptr) {
    nets_env = env;
  }
#ifdef VOLKHV_SOURCE_DIR_FOR_NETS
  const std::string source_dir = VOLKHV_SOURCE_DIR_FOR_NETS;
#else
  const std::string source_dir;
#endif
  return FindBundledNet(game,
                        BundledNetDirs(nets_env, ExecutableDir(), source_dir));
}

}  // namespace volkhv::nn
