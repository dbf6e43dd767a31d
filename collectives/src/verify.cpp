#include "verify.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace pcoll {

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A set of ranks, one bit each: inline up to 128 ranks (the sweeps at P = 1..64 copy millions of
// symbolic values, and a heap block per copy was half of their time), on the heap above.
class Mask {
 public:
  void assign(std::size_t n, std::uint64_t v) {
    n_ = n;
    if (n <= kInline) {
      heap_.clear();
      for (std::size_t i = 0; i < n; ++i) inline_[i] = v;
    } else {
      heap_.assign(n, v);
    }
  }
  std::size_t size() const { return n_; }
  std::uint64_t &operator[](std::size_t i) { return n_ <= kInline ? inline_[i] : heap_[i]; }
  std::uint64_t operator[](std::size_t i) const { return n_ <= kInline ? inline_[i] : heap_[i]; }
  bool operator==(const Mask &o) const {
    if (n_ != o.n_) return false;
    for (std::size_t i = 0; i < n_; ++i)
      if ((*this)[i] != o[i]) return false;
    return true;
  }

 private:
  static constexpr std::size_t kInline = 2;
  std::size_t n_ = 0;
  std::uint64_t inline_[kInline] = {0, 0};
  std::vector<std::uint64_t> heap_;
};

// The symbolic value of one element.
struct Sym {
  Mask mask;  // contributing ranks
  std::uint64_t expr = 0;           // hash of the expression tree, operand order included
  long long delta = 0;              // source element index minus the element's current index
  int lo = -1, hi = -1;             // smallest and largest contributing rank
  bool ordered = true;              // every combination joined adjacent rank intervals in order
  bool garbage = true;              // uninitialised (or clobbered) memory

  bool operator==(const Sym &o) const {
    return garbage == o.garbage && expr == o.expr && mask == o.mask && lo == o.lo && hi == o.hi &&
           ordered == o.ordered;
  }
};

Sym leaf(int rank, int P) {
  Sym s;

  s.mask.assign(static_cast<std::size_t>((P + 63) / 64), 0);
  s.mask[static_cast<std::size_t>(rank / 64)] |= 1ULL << (rank % 64);
  s.expr = mix(static_cast<std::uint64_t>(rank) + 1);
  s.lo = s.hi = rank;
  s.garbage = false;
  return s;
}

using Runs = std::vector<std::pair<std::size_t, Sym>>;  // (length, value)

// A buffer as runs of equal values: key = first element of a run, which extends to the next key.
class RunBuf {
 public:
  RunBuf() = default;
  RunBuf(std::size_t n, const Sym &v) : size_(n) {
    if (n) runs_[0] = v;
  }
  std::size_t size() const { return size_; }
  Runs read(std::size_t off, std::size_t len) {
    Runs out;
    if (len == 0) return out;
    split(off);
    split(off + len);
    for (auto it = runs_.find(off); it != runs_.end() && it->first < off + len; ++it) {
      auto nx = std::next(it);
      const std::size_t end = nx == runs_.end() ? size_ : nx->first;
      out.emplace_back(end - it->first, it->second);
    }
    return out;
  }
  void write(std::size_t off, const Runs &v) {
    std::size_t len = 0;
    for (const auto &r : v) len += r.first;
    if (len == 0) return;
    split(off);
    split(off + len);
    runs_.erase(runs_.lower_bound(off), runs_.lower_bound(off + len));
    std::size_t pos = off;
    for (const auto &r : v) {
      runs_[pos] = r.second;
      pos += r.first;
    }
  }

 private:
  void split(std::size_t pos) {
    if (pos >= size_ || runs_.count(pos)) return;
    auto it = std::prev(runs_.upper_bound(pos));
    runs_[pos] = it->second;
  }
  std::size_t size_ = 0;
  std::map<std::size_t, Sym> runs_;
};

// The runs read at element `from` as they are when written at element `to`: the source
// element they stand for does not change, so the offset between source and position does.
Runs moved(Runs runs, std::size_t from, std::size_t to) {
  const long long shift = static_cast<long long>(from) - static_cast<long long>(to);
  for (auto &r : runs)
    if (!r.second.garbage) r.second.delta += shift;
  return runs;
}

// Calls f(len, a, b) over the aligned pieces of two run lists of equal total length.
template <class F>
void zip(const Runs &a, const Runs &b, F f) {
  std::size_t i = 0, j = 0, ua = 0, ub = 0;  // used part of the current runs
  while (i < a.size() && j < b.size()) {
    const std::size_t n = std::min(a[i].first - ua, b[j].first - ub);
    f(n, a[i].second, b[j].second);
    ua += n;
    ub += n;
    if (ua == a[i].first) ++i, ua = 0;
    if (ub == b[j].first) ++j, ub = 0;
  }
}

struct State {
  RunBuf in, out, tmp;
  RunBuf *node = nullptr;  // the node area, shared by every rank
  RunBuf *line = nullptr;  // the flag lines' payload, shared too
  RunBuf &buf(Buf b) {
    switch (b) {
      case Buf::in:
        return in;
      case Buf::out:
        return out;
      case Buf::tmp:
        return tmp;
      case Buf::node:
        break;
      case Buf::line:
        return *line;
    }
    return *node;
  }
  std::size_t out_size() const { return out.size(); }
};

// Races on the node area. Happens-before between rounds of different ranks comes from messages
// (a receive's round is after the start of the send's round) and from flags (a round that waits
// for a signal is after the round that raised it); Clock::at[r][k][q] is the number of rank q's
// rounds that happen before round k of rank r begins. Every access of the node area is checked
// against the last write to those elements and the reads since: two accesses of different ranks,
// one a write, must be ordered.
class NodeRaces {
 public:
  // Only shared-memory schedules are tracked (the clocks cost P ints per round).
  explicit NodeRaces(const Schedule &s) : s_(s), P_(s.size()) {
    for (const Plan &p : s.plans) on_ = on_ || uses_node(p);
    if (!on_) return;
    start_.resize(static_cast<std::size_t>(P_));
    for (int r = 0; r < P_; ++r) start_[r].resize(s.plans[r].rounds.size());
  }
  // Called in the schedule's order, before the round's accesses.
  void begin(int r, int k) {
    if (!on_) return;
    std::vector<int> c(static_cast<std::size_t>(P_), 0);
    if (k > 0) c = start_[r][k - 1];
    c[static_cast<std::size_t>(r)] = k;
    auto join = [&c](const std::vector<int> &o) {
      for (std::size_t q = 0; q < c.size(); ++q) c[q] = std::max(c[q], o[q]);
    };
    for (const MsgLink &l : s_.recv_from[r][k]) join(start_[l.rank][l.round]);
    for (const MsgLink &l : s_.wait_on[r][k]) {
      std::vector<int> end = start_[l.rank][l.round];
      end[static_cast<std::size_t>(l.rank)] = l.round + 1;
      join(end);
    }
    start_[r][k] = std::move(c);
  }
  // Empty, or the race this access of rank r in round k makes.
  std::string access(int r, int k, const Range &x, bool write) {
    if (!on_ || !is_shared(x.buf) || x.len == 0) return {};
    auto &runs = x.buf == Buf::line ? line_runs_ : node_runs_;
    split(runs, x.off);
    split(runs, x.off + x.len);
    std::string err;
    auto before = [&](int q, int j) { return q == r || start_[r][k][q] > j; };
    auto race = [&](int q, int j, const char *what) {
      std::ostringstream os;
      os << (write ? "writes" : "reads") << (x.buf == Buf::line ? " line" : " node")
         << " elements from " << x.off
         << " that rank " << q << " " << what << " in its round " << j
         << " with no flag or message ordering the two";
      err = os.str();
    };
    for (auto it = runs.find(x.off); it != runs.end() && it->first < x.off + x.len; ++it) {
      Access &a = it->second;
      if (a.writer >= 0 && !before(a.writer, a.wround)) race(a.writer, a.wround, "writes");
      if (write)
        for (const auto &[q, j] : a.readers)
          if (!before(q, j)) race(q, j, "reads");
      if (!err.empty()) return err;
    }
    if (write) {
      runs.erase(runs.lower_bound(x.off), runs.lower_bound(x.off + x.len));
      runs[x.off] = Access{r, k, {}};
    } else {
      for (auto it = runs.find(x.off); it != runs.end() && it->first < x.off + x.len; ++it)
        if (it->second.readers.empty() || it->second.readers.back() != std::make_pair(r, k))
          it->second.readers.emplace_back(r, k);
    }
    return {};
  }

 private:
  struct Access {
    int writer = -1, wround = -1;
    std::vector<std::pair<int, int>> readers;
  };
  static void split(std::map<std::size_t, Access> &runs, std::size_t pos) {
    if (runs.empty()) {
      runs[0] = Access{};
      runs[std::size_t(-1)] = Access{};  // sentinel: nothing reaches it
    }
    if (runs.count(pos)) return;
    auto it = std::prev(runs.upper_bound(pos));
    runs[pos] = it->second;
  }
  const Schedule &s_;
  int P_;
  bool on_ = false;
  std::vector<std::vector<std::vector<int>>> start_;
  std::map<std::size_t, Access> node_runs_, line_runs_;
};

// The final check against per-rank segments (VerifyOptions::segments).
std::string check_segments(std::vector<State> &st,
                           const std::vector<std::vector<ExpectSegment>> &segments) {
  const int P = static_cast<int>(st.size());
  if (segments.size() != st.size()) return "segments given for a different number of ranks";
  for (int r = 0; r < P; ++r) {
    auto fail = [r](const std::string &what) { return "rank " + std::to_string(r) + ": " + what; };
    std::vector<ExpectSegment> segs;
    for (const auto &g : segments[static_cast<std::size_t>(r)])
      if (g.len > 0) segs.push_back(g);
    std::sort(segs.begin(), segs.end(),
              [](const ExpectSegment &a, const ExpectSegment &b) { return a.out_off < b.out_off; });
    std::size_t pos = 0;  // output elements before pos are checked
    auto untouched = [&](std::size_t end) -> std::string {
      if (end <= pos) return {};
      for (const auto &[len, v] : st[r].out.read(pos, end - pos))
        if (!v.garbage) return fail("output element outside every block was written");
      return {};
    };
    for (const ExpectSegment &g : segs) {
      if (g.out_off < pos) return fail("expected blocks overlap (bad test layout)");
      if (std::string e = untouched(g.out_off); !e.empty()) return e;
      std::size_t at = g.out_off;
      for (const auto &[len, v] : st[r].out.read(g.out_off, g.len)) {
        const std::string where = "output element " + std::to_string(at);
        if (v.garbage) return fail(where + " never written");
        if (static_cast<long long>(at) + v.delta !=
            static_cast<long long>(g.src_off + (at - g.out_off)))
          return fail(where + " holds input element " +
                      std::to_string(static_cast<long long>(at) + v.delta) + ", not " +
                      std::to_string(g.src_off + (at - g.out_off)));
        for (int q = 0; q < P; ++q) {
          const bool has = ((v.mask[q / 64] >> (q % 64)) & 1ULL) != 0;
          if (g.src_rank == kAllRanks && !has)
            return fail(where + " lacks the contribution of rank " + std::to_string(q));
          if (g.src_rank != kAllRanks && has != (q == g.src_rank))
            return fail(where + " does not come from rank " + std::to_string(g.src_rank) +
                        " alone");
        }
        at += len;
      }
      pos = g.out_off + g.len;
    }
    const std::string e = untouched(st[r].out_size());
    if (!e.empty()) return e;
  }
  return {};
}

}  // namespace

std::string verify_schedule(const Schedule &s, const VerifyOptions &opt) {
  if (!s.error.empty()) return s.error;
  const int P = s.size();
  Sym garbage;
  garbage.mask.assign(static_cast<std::size_t>((P + 63) / 64), 0);
  std::vector<State> st(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) {
    const Plan &p = s.plans[r];
    const bool copy = p.copy_in_to_out;
    st[r].in = RunBuf(p.in_elems, copy ? garbage : leaf(r, P));
    st[r].out = RunBuf(p.out_elems, copy ? leaf(r, P) : garbage);
    st[r].tmp = RunBuf(p.tmp_elems, garbage);
  }
  // The node area: one for all ranks (a shared-memory plan serves one node), as large as the
  // largest plan says.
  std::size_t node_elems = 0;
  for (const Plan &p : s.plans) node_elems = std::max(node_elems, p.node_elems);
  RunBuf node(node_elems, garbage);
  std::size_t line_elems = 0;
  for (const Plan &p : s.plans) line_elems = std::max(line_elems, p.line_stride);
  RunBuf line(line_elems * static_cast<std::size_t>(P), garbage);
  for (State &x : st) x.node = &node, x.line = &line;
  NodeRaces races(s);
  std::vector<int> done(static_cast<std::size_t>(P), 0);  // rounds processed per rank
  std::map<std::tuple<int, int, int>, Runs> sent;         // snapshots of processed sends
  std::string err;
  auto fail = [&](int r, int k, const std::string &what) {
    if (err.empty()) {
      std::ostringstream os;
      os << "rank " << r << " round " << k << ": " << what;
      err = os.str();
    }
  };
  // Synchronisation (barrier): known[r] = the ranks whose entry a chain of messages links to
  // rank r's present; start[r][k] = known[r] when rank r begins round k (what it sends then).
  const bool sync = opt.expect.synchronises;
  // A flag links the signalling round's end (end[q][j]) to the waiting round.
  std::vector<Mask> known;
  std::vector<std::vector<Mask>> start, end;
  if (sync) {
    for (int r = 0; r < P; ++r) {
      known.push_back(leaf(r, P).mask);
      start.emplace_back(s.plans[r].rounds.size(), Mask{});
      end.emplace_back(s.plans[r].rounds.size(), Mask{});
      if (!start[r].empty()) start[r][0] = known[r];
    }
  }
  for (const auto &[r, k] : s.order) {
    const Round &rd = s.plans[r].rounds[k];
    races.begin(r, k);
    if (sync) {
      for (const MsgLink &l : s.recv_from[r][k])
        for (std::size_t w = 0; w < known[r].size(); ++w) known[r][w] |= start[l.rank][l.round][w];
      for (const MsgLink &l : s.wait_on[r][k])
        for (std::size_t w = 0; w < known[r].size(); ++w) known[r][w] |= end[l.rank][l.round][w];
      if (k + 1 < static_cast<int>(start[r].size())) start[r][k + 1] = known[r];
      end[r][k] = known[r];
    }
    for (std::size_t i = 0; i < rd.sends.size(); ++i)
      sent[{r, k, int(i)}] =
          st[r].buf(rd.sends[i].range.buf).read(rd.sends[i].range.off, rd.sends[i].range.len);
    for (std::size_t i = 0; i < rd.recvs.size(); ++i) {
      const MsgLink &l = s.recv_from[r][k][i];
      const Round &from = s.plans[l.rank].rounds[l.round];
      // The cost model charges a node's links per step (Round::step), so a builder's message
      // must be sent and received in the same step.
      if (rd.step >= 0 && from.step >= 0 && rd.step != from.step) {
        std::ostringstream os;
        os << "receives in step " << rd.step << " what rank " << l.rank << " sends in step "
           << from.step << " (its round " << l.round
           << "): a builder leaves an empty round for each step a rank sits out";
        fail(r, k, os.str());
      }
      const Range &sr = from.sends[l.index].range;
      Runs payload = done[l.rank] > l.round ? sent[{l.rank, l.round, l.index}]
                                            : st[l.rank].buf(sr.buf).read(sr.off, sr.len);
      const Range &rr = rd.recvs[i].range;
      st[r].buf(rr.buf).write(rr.off, moved(std::move(payload), sr.off, rr.off));
    }
    for (const auto &op : rd.ops) {
      if (std::string e = races.access(r, k, op.src, !op.src_is_left && op.kind == OpKind::reduce);
          !e.empty())
        fail(r, k, e);
      if (std::string e = races.access(r, k, op.dst, true); !e.empty()) fail(r, k, e);
      Runs src = moved(st[r].buf(op.src.buf).read(op.src.off, op.src.len), op.src.off, op.dst.off);
      if (op.kind == OpKind::copy) {
        st[r].buf(op.dst.buf).write(op.dst.off, src);
        continue;
      }
      Runs dst = st[r].buf(op.dst.buf).read(op.dst.off, op.dst.len), res;
      zip(src, dst, [&](std::size_t n, const Sym &a, const Sym &b) {
        const Sym &L = op.src_is_left ? a : b;
        const Sym &R = op.src_is_left ? b : a;
        if (L.garbage || R.garbage) fail(r, k, "reduction reads uninitialised memory");
        Sym c = L;
        bool twice = false;
        for (std::size_t w = 0; w < c.mask.size(); ++w) {
          twice = twice || (c.mask[w] & R.mask[w]);
          c.mask[w] |= R.mask[w];
        }
        if (twice) fail(r, k, "a rank's contribution is reduced twice");
        if (!L.garbage && !R.garbage && L.delta != R.delta)
          fail(r, k, "reduction combines different elements of the vector");
        c.expr = mix(L.expr * 0x100000001b3ULL ^ mix(R.expr + 0x632be59bd9b4e019ULL));
        c.ordered = L.ordered && R.ordered && L.hi + 1 == R.lo;
        c.lo = std::min(L.lo, R.lo);
        c.hi = std::max(L.hi, R.hi);
        c.garbage = L.garbage || R.garbage;
        res.emplace_back(n, std::move(c));
      });
      st[r].buf(op.dst.buf).write(op.dst.off, res);
      // The executor may compute dst (op) src into src and copy it back: src is clobbered.
      if (!op.src_is_left && op.src.buf != op.dst.buf)
        st[r].buf(op.src.buf).write(op.src.off, Runs{{op.src.len, garbage}});
    }
    ++done[r];
    if (!err.empty()) return err;
  }
  if (!opt.segments.empty()) return check_segments(st, opt.segments);
  if (sync) {
    for (int r = 0; r < P; ++r)
      for (int q = 0; q < P; ++q)
        if (!((known[r][q / 64] >> (q % 64)) & 1ULL))
          return "rank " + std::to_string(r) + " may leave before rank " + std::to_string(q) +
                 " has entered (no chain of messages from it)";
    return {};
  }
  if (opt.expect.broadcast) {
    for (int r = 0; r < P; ++r) {
      std::size_t pos = 0;
      for (const auto &[len, v] : st[r].out.read(0, opt.count)) {
        bool alone = !v.garbage;
        for (int q = 0; q < P && alone; ++q)
          alone = (((v.mask[q / 64] >> (q % 64)) & 1ULL) != 0) == (q == opt.root);
        if (!alone || v.delta != 0)
          return "rank " + std::to_string(r) + ": output element " + std::to_string(pos) +
                 " is not the root's element " + std::to_string(pos);
        pos += len;
      }
    }
    return {};
  }
  // Final check.
  const std::size_t n = opt.count;
  const Expect &ex = opt.expect;
  Runs reference;
  for (int r = 0; r < P; ++r) {
    if (ex.root_only && r != opt.root) continue;  // no result off the root (reduce)
    const std::size_t out_len = ex.gathered ? n * static_cast<std::size_t>(P) : n;
    // The input element output element `pos` must hold is pos + want_delta: the first one of
    // rank r's block of the input (by_rank), minus the start of block q of a gathered output.
    const long long first = ex.by_rank ? static_cast<long long>(r) * long(n) : 0;
    Runs got = st[r].out.read(0, out_len);
    std::size_t pos = 0;
    for (const auto &[len, v] : got) {
      const int owner = ex.gathered && n > 0 ? static_cast<int>(pos / n) : -1;
      const long long want_delta = ex.gathered ? first - long(owner) * long(n) : first;
      if (v.garbage) {
        fail(r, -1, "output element " + std::to_string(pos) + " never written");
      } else if (v.delta != want_delta) {
        fail(r, -1,
             "output element " + std::to_string(pos) + " holds input element " +
                 std::to_string(static_cast<long long>(pos) + v.delta));
      } else if (ex.gathered) {
        // A run holds one value, so it must lie inside one rank's block and come from it alone.
        bool alone = static_cast<int>((pos + len - 1) / n) == owner;
        for (int q = 0; q < P && alone; ++q)
          alone = (((v.mask[q / 64] >> (q % 64)) & 1ULL) != 0) == (q == owner);
        if (!alone)
          fail(r, -1,
               "gathered element " + std::to_string(pos) + " does not come from rank " +
                   std::to_string(owner) + " alone");
      } else {
        for (int q = 0; q < P; ++q)
          if (!((v.mask[q / 64] >> (q % 64)) & 1ULL)) {
            fail(r, -1, "output lacks the contribution of rank " + std::to_string(q));
            break;
          }
        if (opt.require_order && !v.ordered)
          fail(r, -1, "contributions not combined in rank order");
      }
      pos += len;
      if (!err.empty()) return err;
    }
    if (!ex.identical) continue;  // results of different ranks differ by design
    if (r == 0) {
      reference = got;
    } else {
      zip(got, reference, [&](std::size_t, const Sym &a, const Sym &b) {
        if (a.expr != b.expr) fail(r, -1, "result differs from rank 0's (not bit-identical)");
      });
      if (!err.empty()) return err;
    }
  }
  return {};
}

}  // namespace pcoll
