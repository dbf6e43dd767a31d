#include "context.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <iterator>

#include "datatype.hpp"
#include "engine.hpp"
#include "request.hpp"
#include "trace/recorder.hpp"

namespace pcoll {

namespace {

// Process-level state, by nature or on purpose: the communicator keyval and finalize flag here
// (MPI keyvals are process-wide), the one-entry communicator cache below, the descriptions of
// datatypes (datatype.cpp: a table for predefined types, an attribute on derived ones), the
// warnings already said (api.cpp) and the trace recorder (trace/). Calls into pcoll are
// serialised (libpcoll_mpi.so stops a second thread rather than race).
int g_keyval = MPI_KEYVAL_INVALID;
bool g_finalizing = false;
// The last communicator looked up and its context: a loop calling on one communicator skips the
// MPI attribute lookup. Reset when that context is deleted (communicator freed or finalize), so
// a handle reused by MPI for a new communicator can never find a stale context.
MPI_Comm g_last_comm = MPI_COMM_NULL;
Context *g_last_ctx = nullptr;

constexpr std::size_t kMaxCachedDecisions = 512;

int delete_context(MPI_Comm, int, void *value, void *) {
  const EngineLock lock;  // (MPI_Comm_free is not a pcoll call)
  if (g_last_ctx == value) {
    g_last_comm = MPI_COMM_NULL;
    g_last_ctx = nullptr;
  }
  static_cast<Context *>(value)->detach();  // deleted now, or by its last operation's release
  return MPI_SUCCESS;
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI is fully usable (MPI 4.1
// Sec. 11.2.4): the standard place to release what we hold on MPI_COMM_WORLD.
int on_finalize(MPI_Comm, int, void *, void *) {
  progress_thread_stop();  // first, and without the engine lock (the thread takes it to stop)
  const EngineLock lock;
  // SimGrid's SMPI (3.32) deletes MPI_COMM_SELF's attributes after it has marked the process
  // finalized, so no MPI call may be made here: skip the clean-up (the process is ending).
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (!initialized || finalized) {
    g_finalizing = true;
    g_last_comm = MPI_COMM_NULL;
    g_last_ctx = nullptr;
    return MPI_SUCCESS;
  }
  trace::on_finalize();  // writes the trace file, collectively, while MPI is usable
  if (g_keyval != MPI_KEYVAL_INVALID) {
    void *value = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, g_keyval, &value, &found);
    if (found) PMPI_Comm_delete_attr(MPI_COMM_WORLD, g_keyval);
    g_finalizing = true;  // contexts of communicators never freed by the user die later
    PMPI_Comm_free_keyval(&g_keyval);
    g_last_comm = MPI_COMM_NULL;
    g_last_ctx = nullptr;
  }
  return MPI_SUCCESS;
}

int ensure_keyval() {
  if (g_keyval != MPI_KEYVAL_INVALID) return MPI_SUCCESS;
  int rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_context, &g_keyval, nullptr);
  if (rc != MPI_SUCCESS) return rc;
  int self_key = MPI_KEYVAL_INVALID;
  rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &self_key, nullptr);
  if (rc != MPI_SUCCESS) return rc;
  return PMPI_Comm_set_attr(MPI_COMM_SELF, self_key, nullptr);
}

}  // namespace

void report(const std::string &msg) {
  std::fprintf(stderr, "pcoll: %s\n", msg.c_str());
  std::fflush(stderr);
}

Context *Context::get(MPI_Comm comm, int *err) {
  if (comm == g_last_comm && comm != MPI_COMM_NULL) {
    *err = MPI_SUCCESS;
    return g_last_ctx;
  }
  *err = ensure_keyval();
  if (*err != MPI_SUCCESS) return nullptr;
  void *value = nullptr;
  int found = 0;
  *err = PMPI_Comm_get_attr(comm, g_keyval, &value, &found);
  if (*err != MPI_SUCCESS) return nullptr;
  if (found) {
    g_last_comm = comm;
    g_last_ctx = static_cast<Context *>(value);
    return g_last_ctx;
  }
  auto *ctx = new Context();
  *err = ctx->init(comm);
  if (*err != MPI_SUCCESS) {
    delete ctx;
    return nullptr;
  }
  *err = PMPI_Comm_set_attr(comm, g_keyval, ctx);
  if (*err != MPI_SUCCESS) {
    delete ctx;
    return nullptr;
  }
  g_last_comm = comm;
  g_last_ctx = ctx;
  return ctx;
}

Context *Context::find(MPI_Comm comm) {
  if (comm == g_last_comm && comm != MPI_COMM_NULL) return g_last_ctx;
  if (g_keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL) return nullptr;
  void *value = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, g_keyval, &value, &found) != MPI_SUCCESS || !found) return nullptr;
  return static_cast<Context *>(value);
}

int Context::init(MPI_Comm user) {
  int rc = PMPI_Comm_dup(user, &comm_);
  if (rc != MPI_SUCCESS) return rc;
  // Our own errors are returned as codes and passed to the USER communicator's handler.
  PMPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(comm_, &rank_);
  PMPI_Comm_size(comm_, &size_);
  int inter = 0;
  PMPI_Comm_test_inter(user, &inter);
  inter_ = inter != 0;
  // Inter-communicators are served by the vendor (select.cpp) and need no node size; Open MPI
  // 4.1 crashes in MPI_Comm_split_type on one (reached by unmodified programs, src/pmpi).
  if (!inter_) {
    MPI_Comm node = MPI_COMM_NULL;
    rc = PMPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS) return rc;
    int local = 1;
    PMPI_Comm_size(node, &local);
    // The node's lowest rank in this communicator names the node, for the cost model's map.
    MPI_Group node_group = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
    PMPI_Comm_group(node, &node_group);
    PMPI_Comm_group(comm_, &group);
    int zero = 0, leader = 0;
    PMPI_Group_translate_ranks(node_group, 1, &zero, group, &leader);
    PMPI_Group_free(&node_group);
    PMPI_Group_free(&group);
    PMPI_Comm_free(&node);
    rc = PMPI_Allreduce(&local, &node_size_, 1, MPI_INT, MPI_MIN, comm_);
    if (rc != MPI_SUCCESS) return rc;
    std::vector<int> leaders(static_cast<std::size_t>(size_));
    rc = PMPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm_);
    if (rc != MPI_SUCCESS) return rc;
    // Consecutive blocks of the first node's size (the last one possibly shorter) need no map.
    // node_size_, the smallest node (CHiArA's b_max), may be that last one.
    int first = 0;
    while (first < size_ && leaders[static_cast<std::size_t>(first)] == 0) ++first;
    bool blocks = true;
    for (int r = 0; r < size_ && blocks; ++r) blocks = leaders[r] == r / first * first;
    if (blocks) {
      block_size_ = first;
    } else {
      auto map = std::make_shared<std::vector<int>>(leaders.size());
      std::map<int, int> index;  // leader -> node number, in order of first appearance
      for (std::size_t r = 0; r < leaders.size(); ++r)
        (*map)[r] = index.emplace(leaders[r], static_cast<int>(index.size())).first->second;
      node_of_ = std::move(map);
    }
  }
  base_config_ = load_config();
  // Typos in PCOLL_* variables, said once per process, by rank 0 of MPI_COMM_WORLD.
  static bool typos_said = false;
  if (!typos_said) {
    typos_said = true;
    int world_rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    if (world_rank == 0)
      for (const std::string &msg : unknown_variables()) report(msg);
  }
  select_state();
  rc = check_agreement();
  if (rc == MPI_SUCCESS && config_error_ == MPI_SUCCESS && *packing_problem() != '\0') {
    if (rank_ == 0) report(packing_problem());
    config_error_ = MPI_ERR_INTERN;
  }
  if (rc == MPI_SUCCESS && config_error_ == MPI_SUCCESS) {
    make_segment();
    trace::on_new_communicator(comm_, base_config_);
  }
  return rc;
}

namespace {
// PCOLL_SHM=auto: whether a collective may run a shared-memory algorithm: its configured one is
// `auto` (whose model weighs them) or one of them by name. (Not the collectives pinned to the
// vendor or to a point-to-point algorithm: then the segment would be memory nobody uses.)
bool may_use_node_segment(const Config &cfg) {
  for (const CollectiveInfo &c : collective_table()) {
    const std::string &name = cfg.get(c.name);
    if (name == "auto") return true;
    const AlgorithmInfo *a = find_algorithm(c.id, name);
    if (a != nullptr && a->uses_node_segment) return true;
  }
  return false;
}
}  // namespace

// The node segment, where every rank of the communicator shares one node (node_size_ is the
// smallest node's size: equal to size_ only then) and PCOLL_SHM asks for it (the configuration
// is the same on every rank: check_agreement). Collective, as the creation of the context is; a
// failure is said once and leaves the shared-memory algorithms unavailable (their restriction
// check says why), never the call failing. SMPI builds have none: simulated ranks share one
// process, and SMPI would not charge copies through it.
void Context::make_segment() {
#ifndef PCOLL_SMPI
  if (inter_ || size_ < 2 || node_size_ != size_) return;
  const std::string &mode = base_config_.get("shm");
  if (mode == "off" || (mode == "auto" && !may_use_node_segment(base_config_))) return;
  const long long set = base_config_.integer("shm_segment");
  const std::size_t per_rank =
      set == kAuto ? default_node_segment(size_) : static_cast<std::size_t>(set);
  std::string why;
  segment_ = NodeSegment::create(comm_, per_rank * static_cast<std::size_t>(size_), 2, &why);
  static bool said = false;
  if (!segment_ && !said && rank_ == 0) {
    said = true;
    report("no node segment for the shared-memory algorithms (" + why + "); they fall back");
  }
#endif
}

// Every rank must run with the same configuration, or ranks would choose different algorithms
// and deadlock. One allreduce of (hash, ~hash) per parameter finds any disagreement.
int Context::check_agreement() {
  const auto &table = param_table();
  // One entry per parameter, and one more each for the contents of the rules file and of the
  // machine description: ranks reading different files under one path (node-local copies)
  // would choose differently.
  const std::size_t n = table.size() + 2;
  std::vector<std::uint64_t> h(2 * n), r(2 * n);
  for (std::size_t i = 0; i + 2 < n; ++i) h[i] = std::hash<std::string>{}(base_config_.values[i]);
  h[n - 2] = state_->rules ? state_->rules->fingerprint : 0;
  h[n - 1] = state_->machine ? state_->machine->fingerprint : 0;
  for (std::size_t i = 0; i < n; ++i) h[n + i] = ~h[i];
  int rc =
      PMPI_Allreduce(h.data(), r.data(), static_cast<int>(2 * n), MPI_UINT64_T, MPI_MAX, comm_);
  if (rc != MPI_SUCCESS) return rc;
  for (std::size_t i = 0; i < n; ++i) {
    if (r[i] != ~r[n + i]) {  // max != min
      if (i + 2 == n)
        report("ranks disagree on the contents of the rules file PCOLL_RULES=" +
               base_config_.get("rules") + " (rank " + std::to_string(rank_) +
               "); every rank must read the same rules");
      else if (i + 1 == n)
        report("ranks disagree on the contents of the machine description PCOLL_MACHINE=" +
               base_config_.get("machine") + " (rank " + std::to_string(rank_) +
               "); every rank must read the same description");
      else
        report("ranks disagree on " + env_name(table[i]) + " (rank " + std::to_string(rank_) +
               " has '" + base_config_.values[i] +
               "'); every rank must run with the same pcoll configuration");
      config_error_ = MPI_ERR_ARG;
      return MPI_SUCCESS;
    }
  }
  if (!state_->rules_error.empty() || !state_->machine_error.empty()) {
    if (rank_ == 0)
      report(state_->rules_error.empty() ? state_->machine_error : state_->rules_error);
    config_error_ = MPI_ERR_ARG;
    return MPI_SUCCESS;
  }
  const std::string e = base_config_.first_error();
  if (!e.empty()) {
    if (rank_ == 0) report(e);
    config_error_ = MPI_ERR_ARG;
  }
  return MPI_SUCCESS;
}

int Context::push_override(int param, const std::string &value) {
  const std::string e = validate_param(param_table()[static_cast<std::size_t>(param)], value);
  if (!e.empty()) {
    report(e + " (in a configuration override)");
    return MPI_ERR_ARG;
  }
  overrides_.emplace_back(param, value);
  select_state();
  if (!state_->rules_error.empty() || !state_->machine_error.empty()) {  // a file that does
    report((state_->rules_error.empty() ? state_->machine_error : state_->rules_error) +
           " (in a configuration override)");
    states_.erase(overrides_);
    overrides_.pop_back();
    select_state();
    return MPI_ERR_ARG;
  }
  return MPI_SUCCESS;
}

int Context::pop_override() {
  if (overrides_.empty()) return MPI_ERR_OTHER;
  overrides_.pop_back();
  select_state();
  return MPI_SUCCESS;
}

void Context::memo_store(const MemoKey &k, const Signature &sig, const Decision *d,
                         const int *counts, int n) {
  memo_.key = k;
  memo_.sig = sig;
  memo_.d = d;
  if (counts != nullptr)
    memo_.counts.assign(counts, counts + n);  // keeps its capacity: no allocation in a loop
  else
    memo_.counts.clear();
}

void Context::select_state() {
  memo_ = Memo{};  // the memo's decision belongs to the configuration being left
  auto it = states_.find(overrides_);
  if (it == states_.end()) {
    // Bounded: a code cycling through more override stacks than this re-decides (cheap) rather
    // than growing without limit. The base and the current stack are the ones worth keeping.
    if (states_.size() >= kMaxOverrideStates) {
      for (auto s = states_.begin(); s != states_.end();)
        s = s->first.empty() ? std::next(s) : states_.erase(s);
    }
    OverrideState st;
    st.config = with_overrides(base_config_, overrides_);
    const std::string &spec = st.config.get("rules");
    auto cached = rules_cache_.find(spec);
    if (cached == rules_cache_.end()) {
      std::string error;
      std::shared_ptr<const Rules> r = load_rules(spec, &error);
      if (!r) {
        st.rules_error = error;
        r = std::make_shared<const Rules>();  // never null; the error stops every call
      } else {
        rules_cache_.emplace(spec, r);
      }
      st.rules = std::move(r);
    } else {
      st.rules = cached->second;
    }
    const std::string &mspec = st.config.get("machine");
    auto mcached = machine_cache_.find(mspec);
    if (mcached == machine_cache_.end()) {
      std::string error;
      st.machine = load_machine(mspec, &error);
      if (!st.machine)
        st.machine_error = error;  // the error stops every call; the model is never reached
      else
        machine_cache_.emplace(mspec, st.machine);
    } else {
      st.machine = mcached->second;
    }
    // auto: 2000 polls where the node's ranks each have a core; 200 where there are more ranks
    // than online CPUs. Yielding at once (0, the earlier choice) lost: at P = 3, 4 and 8 on 2
    // cores the 8-byte shm allreduce went from 0.74-1.13x of Open MPI's to 1.3-1.9x with 200
    // (the rank polled for often runs on the other core, and a yield costs a system call and a
    // context switch; results/2026-12-07-shm-baselines).
    const long long spin = st.config.integer("shm_spin");
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    st.shm_spin = spin != kAuto ? spin : (cpus > 0 && node_size_ > cpus ? 200 : 2000);
    // PCOLL_RANKS_PER_NODE emulates nodes of consecutive ranks; otherwise the map found.
    const long long rpn = st.config.integer("ranks_per_node");
    st.topology = Topology::blocks(size_, rpn == kAuto ? block_size_ : static_cast<int>(rpn));
    if (rpn == kAuto) st.topology.node_of = node_of_;
    it = states_.emplace(overrides_, std::move(st)).first;
  }
  state_ = &it->second;
}

// The cost model's choice for `shape` (with `in`), as rank 0 makes it under a collective
// decision and every rank under a local one: the choice kept for this count's size class where
// one was made and serves this count too; where it was made and does not, the model at this
// count; else the model now (model_choice: at the class's first count if its choice serves this
// count, else at this count), kept for the class where it was the class's. Empty: none found.
std::string Context::model_decides(const CallShape &shape, const ModelInputs &in) {
  const CallShape at = model_shape(shape, config());
  auto &kept = state_->model_choices;
  const auto k = kept.find(at);
  if (k != kept.end() && serves(k->second, shape, config())) return k->second.serialize();
  ++model_runs_;
  const auto best = k != kept.end() ? model_candidates(shape.coll, config(), shape, in, false)
                                    : model_choice(shape.coll, config(), shape, in);
  if (best.empty()) return {};
  remember_choice(at, best.front());
  return best.front().serialize();
}

// The size class's choice kept, where it was made at the class's first count: on every rank, so
// that the kept choices are the same everywhere whichever way each decision was made.
void Context::remember_choice(const CallShape &at, const Candidate &chosen) {
  auto &kept = state_->model_choices;
  if (chosen.count != at.count || kept.find(at) != kept.end()) return;
  if (kept.size() >= kMaxCachedDecisions) kept.clear();
  kept.emplace(at, chosen);
}

// Nonblocking, and waited for while pcoll's outstanding operations advance. Whether a rank has
// operations outstanding is its own (one rank may have completed an operation that another still
// holds), so a broadcast that only some ranks could make blocking would not match the others'
// (MPI: a blocking collective never matches a nonblocking one); and a rank waiting here still
// advances the operations its peers may be waiting for, which a blocking broadcast could not.
void Context::bcast_from_root(void *buf, int n, MPI_Datatype type) {
  MPI_Request r = MPI_REQUEST_NULL;
  PMPI_Ibcast(buf, n, type, 0, comm_, &r);
  wait_while_progressing(&r, MPI_STATUS_IGNORE);
}

const Decision &Context::decision(const CallShape &shape, bool collective) {
  Decisions &cache = state_->decisions;
  auto it = cache.find(shape);
  if (it != cache.end()) return it->second;
  if (cache.size() >= kMaxCachedDecisions) {  // bounded; the model's choices are kept apart
    cache.clear();
    memo_ = Memo{};
  }
  ++decisions_made_;
  ModelInputs in = model_inputs();
  Candidate chosen;
  if (size_ > 1 && !inter_) {
    // When the cost model must choose: under a collective decision rank 0 runs it and tells the
    // others, so its cost is paid once per communicator rather than by every rank (P-fold in a
    // simulation, where all ranks share the host); all ranks reach this point at the same call
    // (the shape and the configuration are shared). Under a local one (a nonblocking or
    // persistent call, which MPI makes local) every rank runs the same model on the same inputs
    // and has the same choice.
    in.defer = true;
    const bool needed = select_algorithm(config(), rules(), shape, in).needs_model;
    in.defer = false;
    if (needed) {
      std::string text;  // the choice, serialized; empty: the model found none
      if (!collective || rank_ == 0) text = model_decides(shape, in);
      if (collective) {
        // Its length first, then the text: a choice of any length arrives whole.
        int length = static_cast<int>(text.size());
        bcast_from_root(&length, 1, MPI_INT);
        text.resize(static_cast<std::size_t>(length));
        if (length > 0) bcast_from_root(text.data(), length, MPI_CHAR);
      }
      if (!text.empty()) {
        if (chosen.parse(text)) {
          in.given = &chosen;
          if (collective && rank_ != 0) {
            // What rank 0 kept (model_decides), kept here too.
            const CallShape at = model_shape(shape, config());
            const auto k = state_->model_choices.find(at);
            if (k == state_->model_choices.end() || !serves(k->second, shape, config()))
              remember_choice(at, chosen);
          }
        } else if (rank_ == 0) {
          // Every rank parses the same text, so a failure is everyone's: each then runs the
          // model itself in decide() (the same inputs, the same choice).
          report("internal: the cost model's choice did not parse, every rank runs the model: " +
                 text);
        }
      }
    }
  }
  return cache.emplace(shape, decide(shape, config(), rules(), rank_, in)).first->second;
}

void *Context::scratch(std::size_t bytes, std::size_t call_bytes) {
#ifdef PCOLL_SMPI
  // Paper-scale simulation: P ranks of one process each holding a multi-MiB scratch buffer do
  // not fit in memory; for calls of sim_shared_bytes and more all ranks share one block
  // (timing-only runs). Judged by the call's size, not the scratch's: a smaller call's scratch
  // (a tree's children's blocks, several times the vector) must compute right.
  const long long shared_from = config().integer("sim_shared_bytes");
  if (shared_from > 0 && call_bytes >= static_cast<std::size_t>(shared_from)) {
    if (shared_scratch_bytes_ < bytes) {
      // SMPI_SHARED_MALLOC blocks are keyed by call site and shared by every rank; a larger
      // one is simply allocated again (the old block stays with the simulation).
      shared_scratch_ = SMPI_SHARED_MALLOC(bytes);
      shared_scratch_bytes_ = bytes;
    }
    return shared_scratch_;
  }
#else
  (void)call_bytes;
#endif
  if (scratch_.size() < bytes) scratch_.resize(bytes);
  return scratch_.data();
}

void Context::detach() {
  user_freed_ = true;
  if (holds_ == 0) delete this;
}

void Context::release() {
  if (--holds_ == 0 && user_freed_) delete this;
}

Context::~Context() {
  if (comm_ != MPI_COMM_NULL && !g_finalizing) PMPI_Comm_free(&comm_);
}

}  // namespace pcoll
