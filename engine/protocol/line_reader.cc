#include "engine/protocol/line_reader.h"

namespace volkhv::protocol {

LineRead ReadLine(std::istream& in, size_t max_bytes, std::string* line) {
  line->clear();
  std::streambuf* buffer = in.rdbuf();
  if (buffer == nullptr || !in.good()) return LineRead::kEnd;
  using Traits = std::streambuf::traits_type;
  bool any = false;
  bool too_long = false;
  for (;;) {
    const Traits::int_type c = buffer->sbumpc();
    if (Traits::eq_int_type(c, Traits::eof())) {
      in.setstate(std::ios::eofbit);
      if (!any) {
        in.setstate(std::ios::failbit);
        return LineRead::kEnd;
      }
      break;
    }
    any = true;
    if (Traits::to_char_type(c) == '\n') break;
    if (line->size() < max_bytes) {
      line->push_back(Traits::to_char_type(c));
    } else {
      too_long = true;
    }
  }
  return too_long ? LineRead::kTooLong : LineRead::kLine;
}

}  // namespace volkhv::protocol
