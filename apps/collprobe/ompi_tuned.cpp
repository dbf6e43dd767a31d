#include "ompi_tuned.hpp"

#include <cstring>

namespace collprobe {

const std::vector<OmpiAlgorithm> &ompi_algorithms() {
  static const std::vector<OmpiAlgorithm> v = {
      {"basic_linear", "ompi:naive"},             // reduce to 0 in rank order, then linear bcast
      {"nonoverlapping", "ompi:nonoverlapping"},  // tuned reduce, then tuned bcast
      {"recursive_doubling", "ompi:recursive_doubling"},
      {"ring", "ompi:ring"},
      {"rabenseifner", "ompi:rabenseifner"},
  };
  return v;
}

#ifndef COLLPROBE_HAVE_MPI_T

OmpiForced make_ompi_forced(MPI_Comm) {
  OmpiForced f;
  f.note = "no ompi: entries: this build has no MPI_T (SimGrid SMPI)";
  return f;
}

#else

namespace {

const char kCvar[] = "coll_tuned_allreduce_algorithm";
const char kDynamic[] = "coll_tuned_use_dynamic_rules";

bool cvar_index(const char *name, int *index) {
  return MPI_T_cvar_get_index(name, index) == MPI_SUCCESS;
}

// Reads an int control variable (both are MPI_INT in Open MPI 4.1); false if it cannot.
bool read_int(int index, int *value) {
  MPI_T_cvar_handle h;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &h, &count) != MPI_SUCCESS) return false;
  const bool ok = count == 1 && MPI_T_cvar_read(h, value) == MPI_SUCCESS;
  MPI_T_cvar_handle_free(&h);
  return ok;
}

bool write_int(int index, int value) {
  MPI_T_cvar_handle h;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &h, &count) != MPI_SUCCESS) return false;
  int back = -1;
  // Read back: a variable whose scope forbids writing may accept the call and keep its value.
  const bool ok = count == 1 && MPI_T_cvar_write(h, &value) == MPI_SUCCESS &&
                  MPI_T_cvar_read(h, &back) == MPI_SUCCESS && back == value;
  MPI_T_cvar_handle_free(&h);
  return ok;
}

// The (name, value) items of the variable's enumeration: Open MPI's own numbering, so nothing
// here depends on 4.1's "4 = ring".
struct EnumItem {
  std::string name;
  int value;
};

bool enum_items(int index, std::vector<EnumItem> *items) {
  char name[256], desc[1024];
  int name_len = sizeof name, desc_len = sizeof desc, verbosity = 0, bind = 0, scope = 0;
  MPI_Datatype type;
  MPI_T_enum enumtype;
  if (MPI_T_cvar_get_info(index, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len,
                          &bind, &scope) != MPI_SUCCESS ||
      enumtype == MPI_T_ENUM_NULL)
    return false;
  int num = 0;
  char ename[256];
  int ename_len = sizeof ename;
  if (MPI_T_enum_get_info(enumtype, &num, ename, &ename_len) != MPI_SUCCESS) return false;
  for (int i = 0; i < num; ++i) {
    int value = 0;
    char item[256];
    int item_len = sizeof item;
    if (MPI_T_enum_get_item(enumtype, i, &value, item, &item_len) != MPI_SUCCESS) return false;
    items->push_back({item, value});
  }
  return true;
}

}  // namespace

OmpiForced make_ompi_forced(MPI_Comm base) {
  OmpiForced f;
  int size = 1;
  MPI_Comm_size(base, &size);
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(lib, &len);
  if (std::strstr(lib, "Open MPI") == nullptr) {
    f.note = "no ompi: entries: the MPI library is not Open MPI";
    return f;
  }
  if (size == 1) {  // coll/self serves a single rank, whatever coll/tuned is told
    f.note = "no ompi: entries at P = 1 (coll/self serves every call)";
    return f;
  }
  int provided = 0, idx = -1, dyn_idx = -1, dynamic = 0, start = 0;
  // At MPI's own thread level: Open MPI 4.1's MPI_T_init_thread overwrites the level
  // MPI_Init_thread gave (MPI_Query_thread then says MPI_THREAD_SINGLE after a
  // MPI_THREAD_MULTIPLE init, and pcoll's progress thread would not start).
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  const bool t_init = MPI_T_init_thread(level, &provided) == MPI_SUCCESS;
  std::vector<EnumItem> items;
  if (!t_init) {
    f.note = "no ompi: entries: MPI_T_init_thread failed";
  } else if (!cvar_index(kCvar, &idx) || !read_int(idx, &start) || !enum_items(idx, &items)) {
    f.note = std::string("no ompi: entries: no readable MPI_T control variable ") + kCvar +
             " (coll/tuned not built or not loaded)";
  } else if (!cvar_index(kDynamic, &dyn_idx) || !read_int(dyn_idx, &dynamic) || dynamic == 0) {
    f.note = std::string("no ompi: entries: ") + kDynamic +
             " is 0, so coll/tuned ignores forced algorithms; set "
             "OMPI_MCA_coll_tuned_use_dynamic_rules=1 (scripts/probe.sh does)";
  }
  // Every rank must take the same path below (it is collective): agree first.
  const int ready_here = f.note.empty() ? 1 : 0;
  int ready_all = 0;
  MPI_Allreduce(&ready_here, &ready_all, 1, MPI_INT, MPI_MIN, base);
  if (!ready_all && f.note.empty())
    f.note = "no ompi: entries: coll/tuned cannot be forced on every rank";
  if (!f.note.empty()) {
    if (t_init) MPI_T_finalize();
    return f;
  }
  for (const EnumItem &item : items)
    if (item.value == start) f.start_value = item.name;
  for (const OmpiAlgorithm &a : ompi_algorithms()) {
    int value = -1;
    for (const EnumItem &item : items)
      if (item.name == a.ompi_name) value = item.value;
    if (value < 0) {
      f.note += std::string(f.note.empty() ? "" : "; ") + a.label + " absent: no value '" +
                a.ompi_name + "' in " + kCvar;
      continue;
    }
    // Every rank writes its own copy of the variable (it is process-local) before the dup.
    const int ok_here = write_int(idx, value) ? 1 : 0;
    int ok_all = 0;
    MPI_Allreduce(&ok_here, &ok_all, 1, MPI_INT, MPI_MIN, base);
    if (!ok_all) {
      f.note += std::string(f.note.empty() ? "" : "; ") + a.label + " absent: writing " + kCvar +
                "=" + std::to_string(value) + " failed on some rank";
      write_int(idx, start);
      continue;
    }
    ForcedComm c{a.label, a.ompi_name, value, MPI_COMM_NULL};
    MPI_Comm_dup(base, &c.comm);
    MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_RETURN);
    write_int(idx, start);  // later communicators get the default decisions again
    f.comms.push_back(c);
  }
  MPI_T_finalize();
  return f;
}

#endif

namespace {

// x o y = x: associative, not commutative. MPI computes inout = in o inout with `in` from the
// lower ranks, so a rank-ordered reduction leaves the lowest rank's value.
void keep_left(void *in, void *inout, int *len, MPI_Datatype *) {
  const int *a = static_cast<const int *>(in);
  int *b = static_cast<int *>(inout);
  for (int i = 0; i < *len; ++i) b[i] = a[i];
}

}  // namespace

std::vector<std::string> order_check(const OmpiForced &f, MPI_Comm base) {
  int rank = 0, P = 1;
  MPI_Comm_rank(base, &rank);
  MPI_Comm_size(base, &P);
  MPI_Op op;
  MPI_Op_create(keep_left, /*commute=*/0, &op);
  std::vector<std::string> lines;
  const std::vector<int> mine(4 * static_cast<std::size_t>(P), rank + 1);
  for (const ForcedComm &c : f.comms) {
    std::vector<int> out(mine.size(), 0);
    int kept = PMPI_Allreduce(mine.data(), out.data(), static_cast<int>(out.size()), MPI_INT, op,
                              c.comm) == MPI_SUCCESS;
    for (int v : out) kept &= v == 1;
    int all = 0;
    MPI_Allreduce(&kept, &all, 1, MPI_INT, MPI_MIN, base);
    lines.push_back(c.label + ": rank order " + (all ? "kept" : "not kept"));
  }
  MPI_Op_free(&op);
  return lines;
}

void free_ompi_forced(OmpiForced &f) {
  for (auto &c : f.comms)
    if (c.comm != MPI_COMM_NULL) MPI_Comm_free(&c.comm);
  f.comms.clear();
}

}  // namespace collprobe
