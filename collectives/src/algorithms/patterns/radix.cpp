#include "radix.hpp"

#include <algorithm>
#include <string>

#include "../../registry.hpp"

namespace pcoll {

RadixShape radix_shape(int P, long long radix) {
  RadixShape s;
  s.k = static_cast<int>(std::min<long long>(radix, std::max(P, 2)));
  while (static_cast<long long>(s.q) * s.k <= P) {
    s.q *= s.k;
    ++s.m;
  }
  return s;
}

RadixShape radix_shape(const PlanRequest &req) {
  return radix_shape(req.size, req.param("recexch_radix"));
}

ParamSpec recexch_radix_param() {
  return ParamSpec::integer("recexch_radix", "4")
      .range(2, 1 << 20)
      .about(
          "allreduce recexch and recexch_rsag: radix k (log_k P steps of k-1 peers each; capped "
          "at P: k >= P is one step of P-1 peers)");
}

std::vector<std::vector<std::pair<std::string, std::string>>> radix_tunings(
    const PlanRequest &req) {
  std::vector<std::vector<std::pair<std::string, std::string>>> t;
  for (int k : {4, 8, 16})
    if (k <= req.size && k != req.param("recexch_radix"))
      t.push_back({{"recexch_radix", std::to_string(k)}});
  return t;
}

int radix_extras(const RadixShape &s, int P, int r) {
  if (r >= s.q) return 0;
  return r + s.q < P ? (P - 1 - r) / s.q : 0;
}

int radix_max_extras(const RadixShape &s, int P) {
  return (P - s.q + s.q - 1) / s.q;
}

void radix_unfold(Plan &plan, const RadixShape &s, int P, int me, Range work, int phase) {
  if (s.q >= P) return;
  Round &r = plan.new_round(phase);
  if (me >= s.q) {
    add_recv(r, me % s.q, work);
    return;
  }
  for (int x = me + s.q; x < P; x += s.q) add_send(r, x, work);
}

}  // namespace pcoll
