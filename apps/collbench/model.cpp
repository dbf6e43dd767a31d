#include "model.hpp"

#include <exception>

#include "config.hpp"
#include "ledger.hpp"
#include "registry.hpp"
#include "schedule.hpp"
#include "select.hpp"

namespace collbench {

namespace {

pcoll::CostParams costs(const ModelParams &mp, const pcoll::Config &cfg) {
  pcoll::CostParams c = pcoll::cost_params(cfg);
  if (mp.alpha >= 0) c.alpha = mp.alpha;
  if (mp.beta >= 0) c.beta = mp.beta;
  return c;
}

}  // namespace

void model_values(const ModelParams &mp, double &alpha, double &beta, double &gamma) {
  const pcoll::CostParams c = costs(mp, pcoll::load_config());
  alpha = c.alpha;
  beta = c.beta;
  gamma = c.gamma;
}

Prediction predict(const std::string &coll, const AlgoVariant &v, int P, std::size_t count,
                   std::size_t type_size, const ModelParams &mp) {
  Prediction out;
  const pcoll::AlgorithmInfo *info = nullptr;
  if (const pcoll::CollectiveInfo *c = pcoll::find_collective(coll))
    info = pcoll::find_algorithm(c->id, v.algorithm);
  if (info == nullptr || info->is_vendor()) return out;
  try {
    std::vector<std::pair<int, std::string>> settings;
    for (const auto &[name, value] : v.settings)
      settings.emplace_back(pcoll::param_index(name), value);
    const pcoll::Config cfg = pcoll::with_overrides(pcoll::load_config(), settings);
    // count: allreduce elements, per-rank block for reduce_scatter_block and allgather.
    const pcoll::CallShape shape = pcoll::CallShape::of(info->coll, P, count, type_size);
    const pcoll::PlanRequest req = pcoll::plan_request(*info, cfg, 0, shape);
    const pcoll::Schedule s = pcoll::make_schedule(pcoll::build_all(*info, req));
    if (!s.error.empty()) {
      out.note = s.error;
      return out;
    }
    const pcoll::Ledger L = pcoll::compute_ledger(s, shape.unit, costs(mp, cfg));
    out.valid = true;
    out.rounds = L.rounds;
    out.messages = L.messages;
    out.max_bytes_sent = L.max_bytes_sent;
    out.model_seconds = L.model_time;
  } catch (const std::exception &e) {
    out.note = e.what();
  }
  return out;
}

}  // namespace collbench
