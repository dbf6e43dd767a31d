// Blocks of unequal length for the v-collectives whose counts every rank knows (allgatherv,
// reduce_scatter): block q's length (the same on every rank) and where it lands in this rank's
// output, from PlanRequest::layout (no displacements: packed in rank order), or the uniform
// layout of `count` per rank in rank order without one (the model, pcoll-info, the plan matrix).
// Lengths and offsets are in the plan's elements.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "../../registry.hpp"

namespace pcoll {

struct VBlocks {
  std::vector<std::size_t> len;     // per rank: its block's length
  std::vector<std::size_t> at;      // per rank: the block's offset in this rank's output
  std::vector<std::size_t> packed;  // P + 1: offsets of the blocks packed in rank order
  std::size_t in_off = 0, in_len = 0;  // this rank's block in its input
  // Every non-empty block sits at its packed offset: the output is the packed form.
  bool in_order = true;

  explicit VBlocks(const PlanRequest &req) {
    const auto P = static_cast<std::size_t>(req.size);
    if (req.layout != nullptr) {
      len = req.layout->recvcounts;
      at = req.layout->rdispls;
      if (at.size() != len.size()) {  // no displacements: packed in rank order
        at.assign(len.size(), 0);
        for (std::size_t q = 1; q < len.size(); ++q) at[q] = at[q - 1] + len[q - 1];
      }
      in_off = req.layout->sdispls.empty() ? 0 : req.layout->sdispls[0];
      in_len = req.layout->sendcounts.empty() ? 0 : req.layout->sendcounts[0];
    } else {
      len.assign(P, req.count);
      for (std::size_t q = 0; q < P; ++q) at.push_back(q * req.count);
      in_len = req.count;
    }
    packed.assign(P + 1, 0);
    for (std::size_t q = 0; q < P; ++q) {
      packed[q + 1] = packed[q] + len[q];
      if (len[q] > 0 && at[q] != packed[q]) in_order = false;
    }
  }
  std::size_t total() const { return packed.back(); }
  std::size_t out_extent() const {
    std::size_t e = 0;
    for (std::size_t q = 0; q < len.size(); ++q)
      if (len[q] > 0) e = std::max(e, at[q] + len[q]);
    return e;
  }
  std::size_t len_of(int q) const { return len[static_cast<std::size_t>(q)]; }
  std::size_t at_of(int q) const { return at[static_cast<std::size_t>(q)]; }
  // Packed range of the blocks of ranks [q0, q1): (offset, length).
  std::pair<std::size_t, std::size_t> span(int q0, int q1) const {
    const auto a = packed[static_cast<std::size_t>(q0)], b = packed[static_cast<std::size_t>(q1)];
    return {a, b - a};
  }
};

}  // namespace pcoll
