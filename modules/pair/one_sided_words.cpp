#include "pair/one_sided_words.hpp"

namespace npgpu {

TransferShape OneSidedWords::shape(Pattern pattern, std::uint64_t bytes, std::uint64_t window) const {
  const auto n = static_cast<double>(bytes);
  switch (pattern) {
    case Pattern::pingpong: return {operation == OneSidedOperation::get ? 1.0 : 2.0, n};
    case Pattern::stream: return {static_cast<double>(window), n};
    case Pattern::bidir: return {static_cast<double>(window), 2 * n};
  }
  return {1, n};
}

std::string OneSidedWords::throughput_meaning(Pattern pattern) const {
  const std::string op = operation == OneSidedOperation::put ? "put" : "get";
  switch (pattern) {
    case Pattern::pingpong:
      return operation == OneSidedOperation::put ? "message bytes / one-way time (half the round trip)"
                                                 : "message bytes / time of one get and its completion (a round trip, not halved)";
    case Pattern::stream: return "message bytes / (window time / " + op + "s in the window), one direction";
    case Pattern::bidir: return "bytes of both directions together / time per pair of " + op + "s";
  }
  return {};
}

std::string OneSidedWords::repetition(Pattern pattern) const {
  const bool flush = sync == OneSidedSync::flush;
  const std::string completion = flush ? "a flush" : "a fence";
  if (operation == OneSidedOperation::get) {
    switch (pattern) {
      case Pattern::pingpong: return "gets, each completed by " + completion + ": a request to the peer and the message back";
      case Pattern::stream: return "windows of gets completed by " + completion;
      case Pattern::bidir:
        return "windows of gets both ways at once, each completed by " + completion + (flush ? " and a notice each way" : "");
    }
  }
  switch (pattern) {
    case Pattern::pingpong:
      if (!flush) return "round trips: a put and a fence, and the peer's put of the message back and a fence";
      return tagged ? "round trips: a put and its flush, seen by the peer polling the message's last and first byte, and "
                      "the peer's put of it back"
                    : "round trips: a put, its flush and a notice (a one-byte put and its flush) that the peer polls, and "
                      "the peer's put of the message back, told the same way";
    case Pattern::stream:
      return flush ? "windows of puts closed by a flush and a notice to the target, which reads the last message's tag "
                     "and answers with a notice"
                   : "windows of puts closed by a fence, and a second fence once the target has read the last message's tag";
    case Pattern::bidir:
      return flush ? "windows of puts both ways at once, each closed by a flush and a notice, then a notice each way once "
                     "the other's last message was read"
                   : "windows of puts both ways at once closed by a fence, and a second fence once both last messages' "
                     "tags were read";
  }
  return {};
}

std::string OneSidedWords::one_transfer(Pattern pattern) const {
  const bool put = operation == OneSidedOperation::put;
  switch (pattern) {
    case Pattern::pingpong: return put ? "one way = half a round trip" : "one get: its request out and the message back, not halved";
    case Pattern::stream: return put ? "one put" : "one get";
    case Pattern::bidir: return put ? "one put each way" : "one get each way";
  }
  return {};
}

std::string OneSidedWords::arrival() const {
  if (sync == OneSidedSync::fence) return "a fence completes every put and get of its epoch at both ends; nothing is polled";
  const std::string notices = "notices (one-byte puts carrying a count) are polled the same way";
  if (operation == OneSidedOperation::get)
    return "a get is complete when its flush returns; the target keeps the transport going until the initiator's notice "
           "ends the trial; " + notices;
  if (!tagged)
    return "messages are in GPU memory, which no loop polls: a message or a window is seen by the notice (in host "
           "memory) that follows its flush; " + notices;
  return "a pingpong message is seen by polling its last byte, then its first (both carry the tag), refreshing the "
         "transport's view in every turn; a window by the notice that follows its flush; " + notices;
}

std::string OneSidedWords::message_check() const {
  if (!tagged) return "none: messages in GPU memory carry no tag (--check reads every byte)";
  if (operation == OneSidedOperation::put) return "a tag in the first and last byte of every message";
  return "the first and last byte of every message read, against the fixed content of the memory it was read from";
}

}  // namespace npgpu
