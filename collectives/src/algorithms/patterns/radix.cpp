#include "radix.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "../../registry.hpp"

namespace pcoll {

namespace {

// The prime factors of q, largest first, when all are <= k; false when one is larger.
bool smooth_primes(int q, int k, std::vector<int> &primes) {
  primes.clear();
  for (int p = 2; p <= k && q > 1; ++p)  // a composite p divides no longer: its primes are out
    while (q % p == 0) {
      primes.push_back(p);
      q /= p;
    }
  std::sort(primes.rbegin(), primes.rend());
  return q == 1;
}

// The primes (largest first) into `bins` radices <= k, each into the radix with the smallest
// product it fits in (so they come out as equal as they can be), largest first; false where
// one does not fit.
bool pack(const std::vector<int> &primes, int bins, int k, std::vector<int> &radix) {
  radix.assign(static_cast<std::size_t>(bins), 1);
  for (int p : primes) {
    int best = -1;
    for (int i = 0; i < bins; ++i) {
      const int have = radix[static_cast<std::size_t>(i)];
      if (static_cast<long long>(have) * p <= k &&
          (best < 0 || have < radix[static_cast<std::size_t>(best)]))
        best = i;
    }
    if (best < 0) return false;
    radix[static_cast<std::size_t>(best)] *= p;
  }
  radix.erase(std::remove(radix.begin(), radix.end(), 1), radix.end());
  std::sort(radix.rbegin(), radix.rend());
  return true;
}

}  // namespace

int RadixShape::peers() const {
  int n = 0;
  for (int k_s : radix) n += k_s - 1;
  return n;
}

std::string RadixShape::describe() const {
  if (radix.empty()) return "1";
  std::string d;
  for (int k_s : radix) d += (d.empty() ? "" : " x ") + std::to_string(k_s);
  return d;
}

RadixShape radix_shape(int P, long long radix, RadixFactors f) {
  RadixShape s;
  s.k = static_cast<int>(std::min<long long>(radix, std::max(P, 2)));
  if (f == RadixFactors::power) {
    while (static_cast<long long>(s.q) * s.k <= P) {
      s.q *= s.k;
      s.radix.push_back(s.k);
    }
  } else {
    // The largest k-smooth q <= P: a power of 2 lies in (P/2, P], so the search is short and
    // q > P/2. Then the fewest radices: no fewer than ceil(log_k q), at most one per prime.
    std::vector<int> primes;
    s.q = std::max(P, 1);
    while (!smooth_primes(s.q, s.k, primes)) --s.q;
    int bins = 0;
    for (long long reach = 1; reach < s.q; reach *= s.k) ++bins;
    while (!pack(primes, bins, s.k, s.radix)) ++bins;
  }
  s.m = static_cast<int>(s.radix.size());
  for (int t = 0, d = 1; t < s.m; d *= s.radix[static_cast<std::size_t>(t)], ++t)
    s.stride.push_back(d);
  return s;
}

RadixShape radix_shape(const PlanRequest &req) {
  return radix_shape(req.size, req.param("recexch_radix"),
                     static_cast<RadixFactors>(req.param("recexch_factors")));
}

std::vector<ParamSpec> recexch_params() {
  return {ParamSpec::integer("recexch_radix", "4")
              .range(2, 1 << 20)
              .about(
                  "allreduce recexch and recexch_rsag: the largest radix k (log_k P steps of at "
                  "most k-1 peers each; capped at P: k >= P is one step of P-1 peers)"),
          ParamSpec::choice("recexch_factors", "mixed")
              .one_of({"mixed", "power"})
              .about(
                  "allreduce recexch and recexch_rsag: the ranks in the exchange, the others "
                  "folded onto them: mixed = the largest q <= P with no prime factor above k, as "
                  "the fewest radices <= k (as equal as they can be; no fold where P is a power "
                  "of 2; at most one folded vector per rank), power = MPICH's q = k^m (up to k-1 "
                  "folded vectors per rank); the same where P is a power of k")};
}

std::vector<std::vector<std::pair<std::string, std::string>>> radix_tunings(
    const PlanRequest &req) {
  // Radices 4, 8 and 16 up to P, each where its group differs from the configured one's and
  // from those before it (with mixed radices, 16 at P = 512 is 8's 8 x 8 x 8).
  const auto f = static_cast<RadixFactors>(req.param("recexch_factors"));
  std::vector<std::vector<int>> seen = {radix_shape(req).radix};
  std::vector<std::vector<std::pair<std::string, std::string>>> t;
  for (int k : {4, 8, 16}) {
    if (k > req.size) continue;
    const std::vector<int> g = radix_shape(req.size, k, f).radix;
    if (std::find(seen.begin(), seen.end(), g) != seen.end()) continue;
    seen.push_back(g);
    t.push_back({{"recexch_radix", std::to_string(k)}});
  }
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
