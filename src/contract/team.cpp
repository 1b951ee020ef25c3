#include "npgpu/team.hpp"

#include <cstdint>
#include <vector>

namespace npgpu {

std::vector<std::string> all_gather(MPI_Comm comm, const std::string& mine) {
  int ranks = 0;
  MPI_Comm_size(comm, &ranks);
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::vector<char> all(static_cast<std::size_t>(total));
  MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, comm);
  std::vector<std::string> texts;
  for (std::size_t r = 0; r < lengths.size(); ++r) texts.emplace_back(all.data() + offsets[r], static_cast<std::size_t>(lengths[r]));
  return texts;
}

Team::Team(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

void Team::barrier(const CollectiveWait& wait) const {
  if (!wait) {
    MPI_Barrier(comm_);
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm_, &request);
  wait(request);
}

void Team::meet(const std::vector<int>& partners) const {
  constexpr int kMeetTag = 7201;  // the driver's only point-to-point messages on this communicator
  std::vector<MPI_Request> requests;
  for (int partner : partners) {
    requests.emplace_back();
    MPI_Irecv(nullptr, 0, MPI_BYTE, partner, kMeetTag, comm_, &requests.back());
    requests.emplace_back();
    MPI_Isend(nullptr, 0, MPI_BYTE, partner, kMeetTag, comm_, &requests.back());
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

double Team::max(double value, const CollectiveWait& wait) const {
  double result = value;
  reduce(&value, &result, MPI_DOUBLE, MPI_MAX, wait);
  return result;
}

bool Team::any(bool value, const CollectiveWait& wait) const {
  int mine = value ? 1 : 0;
  int result = 0;
  reduce(&mine, &result, MPI_INT, MPI_LOR, wait);
  return result != 0;
}

void Team::reduce(const void* mine, void* result, MPI_Datatype type, MPI_Op op, const CollectiveWait& wait) const {
  if (!wait) {
    MPI_Allreduce(mine, result, 1, type, op, comm_);
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(mine, result, 1, type, op, comm_, &request);
  wait(request);
}

std::uint64_t Team::broadcast(std::uint64_t value) const {
  MPI_Bcast(&value, 1, MPI_UINT64_T, 0, comm_);
  return value;
}

std::vector<double> Team::gather(const std::vector<double>& mine, const CollectiveWait& wait) const {
  std::vector<double> all(is_root() ? mine.size() * static_cast<std::size_t>(size_) : 0);
  const int count = static_cast<int>(mine.size());
  if (!wait) {
    MPI_Gather(mine.data(), count, MPI_DOUBLE, all.data(), count, MPI_DOUBLE, 0, comm_);
    return all;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Igather(mine.data(), count, MPI_DOUBLE, all.data(), count, MPI_DOUBLE, 0, comm_, &request);
  wait(request);
  return all;
}

std::vector<std::string> Team::gather(const std::string& mine) const {
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size_));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm_);
  std::vector<int> offsets(static_cast<std::size_t>(size_), 0);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += is_root() ? lengths[static_cast<std::size_t>(r)] : 0;
  }
  std::string joined(static_cast<std::size_t>(total), '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, comm_);
  std::vector<std::string> all;
  if (is_root())
    for (int r = 0; r < size_; ++r)
      all.push_back(joined.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                  static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
  return all;
}

std::optional<std::string> Team::first_error(const std::optional<std::string>& mine) const {
  int mine_rank = mine ? rank_ : size_;
  int first = size_;
  MPI_Allreduce(&mine_rank, &first, 1, MPI_INT, MPI_MIN, comm_);
  if (first == size_) return std::nullopt;
  std::string message;
  if (mine) message = rank_ == 0 ? *mine : "rank " + std::to_string(rank_) + ": " + *mine;
  std::uint64_t length = message.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, first, comm_);
  message.resize(length);
  MPI_Bcast(message.data(), static_cast<int>(length), MPI_CHAR, first, comm_);
  return message;
}

}  // namespace npgpu
