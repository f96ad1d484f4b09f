// `--net auto`: the trained net that ships with Volkhv for a game
// (nets/<game>.net in the repository, share/volkhv/nets/ in an install).
#ifndef VOLKHV_NN_BUNDLED_NET_H_
#define VOLKHV_NN_BUNDLED_NET_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace volkhv::nn {

// The net name every evaluating command takes by default.
inline constexpr std::string_view kAutoNet = "auto";

// The file name of a game's bundled net: "<game>.net". One net serves every
// option of a game (game options do not change the encoding).
std::string BundledNetFileName(std::string_view game);

// Where `--net auto` looks, in order:
//   - $VOLKHV_NETS alone when `nets_env` is set (a folder; nothing else is
//     searched, so a user's choice is never silently replaced);
//   - otherwise <exe dir>/../nets (a build folder inside the source tree),
//     <exe dir>/../share/volkhv/nets (an install prefix), then the source
//     tree this binary was configured from (`source_dir`, may be empty).
std::vector<std::string> BundledNetDirs(
    const std::optional<std::string>& nets_env, const std::string& exe_dir,
    const std::string& source_dir);

// The first existing <dir>/<game>.net of `dirs`; NotFound names every path
// tried and says that `--net random` plays without a net.
absl::StatusOr<std::string> FindBundledNet(
    std::string_view game, const std::vector<std::string>& dirs);

// BundledNetDirs for this process ($VOLKHV_NETS, /proc/self/exe and the
// source folder compiled in) and FindBundledNet over them. Thread-safe.
absl::StatusOr<std::string> FindBundledNet(std::string_view game);

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_BUNDLED_NET_H_
