// Reading protocol input one line at a time with a bound on its length, so
// that a line without an end (`volkhv analysis < /dev/zero`) cannot take all
// the memory.
#ifndef VOLKHV_ENGINE_PROTOCOL_LINE_READER_H_
#define VOLKHV_ENGINE_PROTOCOL_LINE_READER_H_

#include <cstddef>
#include <istream>
#include <string>

namespace volkhv::protocol {

// The default limit of a command or query line.
inline constexpr size_t kDefaultMaxLineBytes = 1 << 20;

enum class LineRead {
  kLine,     // *line holds the next line (without its '\n')
  kTooLong,  // the line had more than max_bytes bytes; it was skipped whole
             // and *line holds its first max_bytes bytes
  kEnd,      // end of input, nothing read
};

// Reads the next line of `in` (up to '\n' or the end of input) into *line.
LineRead ReadLine(std::istream& in, size_t max_bytes, std::string* line);

}  // namespace volkhv::protocol

#endif  // VOLKHV_ENGINE_PROTOCOL_LINE_READER_H_
