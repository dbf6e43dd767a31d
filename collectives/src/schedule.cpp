#include "schedule.hpp"

#include <algorithm>

#include <map>
#include <sstream>

#include "shm/segment.hpp"

namespace pcoll {

namespace {

std::size_t limit_of(const Plan &p, Buf b) {
  switch (b) {
    case Buf::in:
      return p.in_elems;
    case Buf::out:
      return p.out_elems;
    case Buf::tmp:
      return p.tmp_elems;
    case Buf::node:
      return p.node_elems;
    case Buf::line:
      return static_cast<std::size_t>(p.size) * p.line_stride;
  }
  return 0;
}

std::string where(const Plan &p, std::size_t k) {
  std::ostringstream os;
  os << "rank " << p.rank << " round " << k;
  return os.str();
}

}  // namespace

std::vector<Plan> build_all(const AlgorithmInfo &algo, const PlanRequest &req) {
  std::vector<Plan> plans;
  plans.reserve(static_cast<std::size_t>(req.size));
  for (int r = 0; r < req.size; ++r) {
    PlanRequest q = req;
    q.rank = r;
    plans.push_back(make_plan(algo, q));
  }
  return plans;
}

std::vector<Plan> build_all(const AlgorithmInfo &algo, const PlanRequest &req,
                            const std::vector<Layout> &layouts) {
  std::vector<Plan> plans;
  plans.reserve(static_cast<std::size_t>(req.size));
  for (int r = 0; r < req.size; ++r) {
    PlanRequest q = req;
    q.rank = r;
    q.layout = &layouts.at(static_cast<std::size_t>(r));
    plans.push_back(make_plan(algo, q));
  }
  return plans;
}

std::string check_plan(const Plan &p) {
  int last_signal = 0;
  for (std::size_t k = 0; k < p.rounds.size(); ++k) {
    const Round &r = p.rounds[k];
    // A range of the flag lines stays within one line's payload (the rest is the flag).
    auto in_bounds = [&](const Range &x) {
      if (x.buf == Buf::line && x.len > 0 &&
          (p.line_stride == 0 || p.line_payload > p.line_stride ||
           x.off % p.line_stride + x.len > p.line_payload))
        return false;
      return x.off + x.len <= limit_of(p, x.buf);
    };
    if (r.signal != 0 && (r.signal <= last_signal || r.signal > NodeSegment::kMaxSignal))
      return where(p, k) + ": signals must grow along the plan (1, 2, ...)";
    if (r.signal != 0) last_signal = r.signal;
    for (const Wait &w : r.waits)
      if (w.peer < 0 || w.peer >= p.size || w.peer == p.rank || w.signal <= 0)
        return where(p, k) + ": bad wait";
    for (const auto &x : r.sends) {
      if (is_shared(x.range.buf)) return where(p, k) + ": a message sent from the node area";
      if (!in_bounds(x.range)) return where(p, k) + ": send range out of bounds";
      if (x.peer < 0 || x.peer >= p.size || x.peer == p.rank) return where(p, k) + ": bad peer";
    }
    for (std::size_t i = 0; i < r.recvs.size(); ++i) {
      const auto &x = r.recvs[i];
      if (is_shared(x.range.buf))
        return where(p, k) + ": a message received into the node area";
      if (!in_bounds(x.range)) return where(p, k) + ": receive range out of bounds";
      if (x.peer < 0 || x.peer >= p.size || x.peer == p.rank) return where(p, k) + ": bad peer";
      if (x.range.buf == Buf::in) return where(p, k) + ": receive into the input buffer";
      for (const auto &s : r.sends)
        if (overlaps(x.range, s.range)) return where(p, k) + ": receive overlaps a pending send";
      for (std::size_t j = 0; j < i; ++j)
        if (overlaps(x.range, r.recvs[j].range)) return where(p, k) + ": receives overlap";
    }
    for (const auto &op : r.ops) {
      if (!in_bounds(op.src) || !in_bounds(op.dst) || op.src.len != op.dst.len)
        return where(p, k) + ": local operation out of bounds";
      if (op.dst.buf == Buf::in) return where(p, k) + ": local operation writes the input";
      if (op.after_recv >= static_cast<int>(r.recvs.size()))
        return where(p, k) + ": local operation waits for a receive that does not exist";
      // An op may only touch a receive buffer once that receive has completed.
      for (std::size_t i = 0; i < r.recvs.size(); ++i) {
        const bool waits = op.after_recv < 0 || op.after_recv == static_cast<int>(i);
        if (!waits && (overlaps(op.src, r.recvs[i].range) || overlaps(op.dst, r.recvs[i].range)))
          return where(p, k) + ": local operation touches a receive it does not wait for";
      }
    }
  }
  return {};
}

Schedule make_schedule(std::vector<Plan> plans) {
  Schedule s;
  s.plans = std::move(plans);
  const int P = s.size();
  s.recv_from.resize(static_cast<std::size_t>(P));
  s.send_to.resize(static_cast<std::size_t>(P));
  s.wait_on.resize(static_cast<std::size_t>(P));
  // Per ordered pair (src, dst): the sends and receives in posting order.
  std::map<std::pair<int, int>, std::vector<MsgLink>> sends, recvs;
  for (int r = 0; r < P; ++r) {
    const Plan &p = s.plans[static_cast<std::size_t>(r)];
    if (std::string e = check_plan(p); !e.empty()) {
      s.error = e;
      return s;
    }
    s.recv_from[r].resize(p.rounds.size());
    s.send_to[r].resize(p.rounds.size());
    for (std::size_t k = 0; k < p.rounds.size(); ++k) {
      const Round &rd = p.rounds[k];
      s.recv_from[r][k].resize(rd.recvs.size());
      s.send_to[r][k].resize(rd.sends.size());
      for (std::size_t i = 0; i < rd.sends.size(); ++i)
        sends[{r, rd.sends[i].peer}].push_back({r, int(k), int(i)});
      for (std::size_t i = 0; i < rd.recvs.size(); ++i)
        recvs[{rd.recvs[i].peer, r}].push_back({r, int(k), int(i)});
    }
  }
  auto pair_error = [](int a, int b, const std::string &what) {
    std::ostringstream os;
    os << "messages " << a << " -> " << b << ": " << what;
    return os.str();
  };
  for (const auto &[key, sv] : sends) {
    auto it = recvs.find(key);
    const std::size_t nr = it == recvs.end() ? 0 : it->second.size();
    if (nr != sv.size()) {
      s.error =
          pair_error(key.first, key.second,
                     std::to_string(sv.size()) + " sends but " + std::to_string(nr) + " receives");
      return s;
    }
    for (std::size_t i = 0; i < sv.size(); ++i) {
      const MsgLink &a = sv[i], &b = it->second[i];
      const auto &sx = s.plans[a.rank].rounds[a.round].sends[a.index];
      const auto &rx = s.plans[b.rank].rounds[b.round].recvs[b.index];
      if (sx.range.len != rx.range.len) {
        s.error =
            pair_error(key.first, key.second,
                       "message " + std::to_string(i) + " sends " + std::to_string(sx.range.len) +
                           " elements, receive expects " + std::to_string(rx.range.len));
        return s;
      }
      s.send_to[a.rank][a.round][a.index] = b;
      s.recv_from[b.rank][b.round][b.index] = a;
    }
  }
  for (const auto &[key, rv] : recvs)
    if (sends.find(key) == sends.end()) {
      s.error = pair_error(key.first, key.second,
                           "0 sends but " + std::to_string(rv.size()) + " receives");
      return s;
    }
  // Each wait to the round of its peer that first raises the flag that far. A plan's signals
  // grow (check_plan), so each rank's (signal, round) list is sorted: a binary search per wait
  // (a plan of 10^3 pieces at P = 64 has 10^7 waits).
  std::vector<std::vector<std::pair<int, int>>> raised(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) {
    const auto &rounds = s.plans[static_cast<std::size_t>(r)].rounds;
    for (std::size_t j = 0; j < rounds.size(); ++j)
      if (rounds[j].signal > 0) raised[r].emplace_back(rounds[j].signal, static_cast<int>(j));
  }
  for (int r = 0; r < P; ++r) {
    const Plan &p = s.plans[static_cast<std::size_t>(r)];
    s.wait_on[r].resize(p.rounds.size());
    for (std::size_t k = 0; k < p.rounds.size(); ++k)
      for (const Wait &w : p.rounds[k].waits) {
        const auto &list = raised[static_cast<std::size_t>(w.peer)];
        const auto it = std::lower_bound(list.begin(), list.end(), std::make_pair(w.signal, -1));
        const int at = it == list.end() ? -1 : it->second;
        if (at < 0) {
          s.error = where(p, k) + ": waits for signal " + std::to_string(w.signal) + " of rank " +
                    std::to_string(w.peer) + ", which never raises its flag that far";
          return s;
        }
        s.wait_on[r][k].push_back({w.peer, at, -1});
      }
  }
  // Completion order under the rendezvous model.
  std::vector<int> next(static_cast<std::size_t>(P), 0);
  std::size_t remaining = 0;
  for (const auto &p : s.plans) remaining += p.rounds.size();
  while (remaining > 0) {
    bool progressed = false;
    for (int r = 0; r < P; ++r) {
      const int k = next[r];
      if (k >= static_cast<int>(s.plans[r].rounds.size())) continue;
      bool ready = true;
      for (const auto &l : s.recv_from[r][k]) ready = ready && next[l.rank] >= l.round;
      for (const auto &l : s.send_to[r][k]) ready = ready && next[l.rank] >= l.round;
      for (const auto &l : s.wait_on[r][k]) ready = ready && next[l.rank] > l.round;
      if (!ready) continue;
      s.order.emplace_back(r, k);
      ++next[r];
      --remaining;
      progressed = true;
    }
    if (!progressed) {
      std::ostringstream os;
      os << "deadlock: no round can complete (";
      for (int r = 0; r < P; ++r)
        if (next[r] < static_cast<int>(s.plans[r].rounds.size()))
          os << " rank " << r << " waits in round " << next[r] << ";";
      os << " )";
      s.error = os.str();
      return s;
    }
  }
  return s;
}

}  // namespace pcoll
