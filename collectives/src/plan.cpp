#include "plan.hpp"

#include <algorithm>

namespace pcoll {

const char *buf_name(Buf b) {
  switch (b) {
    case Buf::in:
      return "in";
    case Buf::out:
      return "out";
    case Buf::tmp:
      return "tmp";
  }
  return "?";
}

Round &Plan::new_round(int phase) {
  rounds.emplace_back();
  rounds.back().phase = phase;
  return rounds.back();
}

int Plan::phase_index(const std::string &name) {
  auto it = std::find(phases.begin(), phases.end(), name);
  if (it != phases.end()) return static_cast<int>(it - phases.begin());
  phases.push_back(name);
  return static_cast<int>(phases.size() - 1);
}

void add_send(Round &r, int peer, Range range) {
  if (range.len == 0) return;
  r.sends.push_back(Xfer{peer, range});
}

int add_recv(Round &r, int peer, Range range) {
  if (range.len == 0) return -1;
  r.recvs.push_back(Xfer{peer, range});
  return static_cast<int>(r.recvs.size() - 1);
}

void add_reduce(Round &r, Range src, Range dst, bool src_is_left, int after_recv) {
  if (src.len == 0) return;
  r.ops.push_back(LocalOp{OpKind::reduce, src, dst, src_is_left, after_recv});
}

void add_copy(Round &r, Range src, Range dst, int after_recv) {
  if (src.len == 0) return;
  r.ops.push_back(LocalOp{OpKind::copy, src, dst, true, after_recv});
}

std::size_t BlockSplit::offset(std::size_t i) const {
  const std::size_t q = count / parts, rem = count % parts;
  return i * q + std::min(i, rem);
}

std::size_t BlockSplit::length(std::size_t i) const {
  const std::size_t q = count / parts, rem = count % parts;
  return q + (i < rem ? 1 : 0);
}

}  // namespace pcoll
