// What source a build was made from (cmake/version.cmake writes the .cc).
#ifndef VOLKHV_CLI_VERSION_H_
#define VOLKHV_CLI_VERSION_H_

namespace volkhv::cli {

// The source's `git describe --always --dirty` at build time (a commit,
// "-dirty" with uncommitted changes), or "unknown" outside a git checkout.
const char* SourceVersion();

}  // namespace volkhv::cli

#endif  // VOLKHV_CLI_VERSION_H_
