#include "datatype.hpp"

#include <climits>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace pcoll {

namespace {

// What the walk of one datatype finds: whether its data lies in typemap order at [0, size),
// and its base type (MPI_DATATYPE_NULL: none found yet; kMixed: more than one, or unknown).
struct Facts {
  bool packed_order = false;
  MPI_Datatype base = MPI_DATATYPE_NULL;
  bool mixed = false;
  std::size_t size = 0;
  MPI_Aint extent = 0;
};

Facts facts_of(MPI_Datatype dt);

void merge_base(Facts &f, const Facts &inner) {
  if (inner.size == 0) return;  // no data: says nothing about the base
  if (inner.mixed || (f.base != MPI_DATATYPE_NULL && f.base != inner.base)) {
    f.mixed = true;
    return;
  }
  f.base = inner.base;
}

// A block of `n` elements of a type with facts `t` at byte displacement `disp` continues the
// packed form at byte `running`: the block starts there, and its elements follow each other
// without gaps (one element in order, or several of a type whose extent is its size).
bool block_in_order(const Facts &t, long long n, MPI_Aint disp, std::size_t running) {
  if (n <= 0 || t.size == 0) return true;
  if (disp != static_cast<MPI_Aint>(running)) return false;
  return n == 1 ? t.packed_order : t.packed_order && t.extent == static_cast<MPI_Aint>(t.size);
}

// The contents of a derived datatype: its integers, addresses and datatypes (freed on exit).
struct Contents {
  std::vector<int> ints;
  std::vector<MPI_Aint> addrs;
  std::vector<MPI_Datatype> types;
  int combiner = MPI_COMBINER_NAMED;
  explicit Contents(MPI_Datatype dt) {
    int ni = 0, na = 0, nd = 0;
    PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner);
    if (combiner == MPI_COMBINER_NAMED) return;
#ifdef MPI_COMBINER_F90_REAL
    // Fortran parameterised types: MPI_Type_get_contents gives (p, r), not a typemap.
    if (combiner == MPI_COMBINER_F90_REAL || combiner == MPI_COMBINER_F90_COMPLEX ||
        combiner == MPI_COMBINER_F90_INTEGER)
      return;
#endif
    ints.resize(static_cast<std::size_t>(ni));
    addrs.resize(static_cast<std::size_t>(na));
    types.resize(static_cast<std::size_t>(nd));
    PMPI_Type_get_contents(dt, ni, na, nd, ints.data(), addrs.data(), types.data());
  }
  ~Contents() {
    for (MPI_Datatype &t : types) {
      int ni = 0, na = 0, nd = 0, c = 0;
      PMPI_Type_get_envelope(t, &ni, &na, &nd, &c);
      if (c != MPI_COMBINER_NAMED) PMPI_Type_free(&t);
    }
  }
  Contents(const Contents &) = delete;
  Contents &operator=(const Contents &) = delete;
};

Facts facts_of(MPI_Datatype dt) {
  Facts f;
  int size = 0;
  PMPI_Type_size(dt, &size);
  MPI_Aint lb = 0, tlb = 0, textent = 0;
  PMPI_Type_get_extent(dt, &lb, &f.extent);
  PMPI_Type_get_true_extent(dt, &tlb, &textent);
  f.size = static_cast<std::size_t>(size);
  const Contents c(dt);
  if (c.combiner == MPI_COMBINER_NAMED) {
    f.base = dt;
    f.packed_order = tlb == 0 && textent == static_cast<MPI_Aint>(size);
    return f;
  }
  auto is = [&](int combiner) { return c.combiner == combiner; };
  if (c.types.empty()) {  // Fortran parameterised types
    f.mixed = true;
    return f;
  }
  // Bases first (every combiner names the types its blocks are made of).
  std::vector<Facts> parts;
  for (MPI_Datatype t : c.types) parts.push_back(facts_of(t));
  for (const Facts &p : parts) merge_base(f, p);
  const Facts &inner = parts[0];
  const auto isz = static_cast<MPI_Aint>(inner.size);
  if (is(MPI_COMBINER_DUP) || is(MPI_COMBINER_RESIZED)) {
    f.packed_order = inner.packed_order;  // resizing moves no data
  } else if (is(MPI_COMBINER_CONTIGUOUS)) {
    f.packed_order = block_in_order(inner, c.ints[0], 0, 0);
  } else if (is(MPI_COMBINER_VECTOR) || is(MPI_COMBINER_HVECTOR)) {
    const long long n = c.ints[0], bl = c.ints[1];
    const MPI_Aint stride =
        is(MPI_COMBINER_VECTOR) ? static_cast<MPI_Aint>(c.ints[2]) * inner.extent : c.addrs[0];
    f.packed_order = n <= 0 || bl <= 0 || inner.size == 0 ||
                     (block_in_order(inner, bl, 0, 0) && (n == 1 || stride == bl * isz));
  } else if (is(MPI_COMBINER_INDEXED) || is(MPI_COMBINER_HINDEXED) ||
             is(MPI_COMBINER_INDEXED_BLOCK) || is(MPI_COMBINER_HINDEXED_BLOCK)) {
    const int n = c.ints[0];
    const bool block = is(MPI_COMBINER_INDEXED_BLOCK) || is(MPI_COMBINER_HINDEXED_BLOCK);
    const bool bytes = is(MPI_COMBINER_HINDEXED) || is(MPI_COMBINER_HINDEXED_BLOCK);
    std::size_t running = 0;
    f.packed_order = true;
    for (int i = 0; i < n && f.packed_order; ++i) {
      const long long bl = block ? c.ints[1] : c.ints[1 + static_cast<std::size_t>(i)];
      const MPI_Aint disp =
          bytes ? c.addrs[static_cast<std::size_t>(i)]
                : static_cast<MPI_Aint>(c.ints[(block ? 2 : 1 + static_cast<std::size_t>(n)) +
                                               static_cast<std::size_t>(i)]) *
                      inner.extent;
      f.packed_order = block_in_order(inner, bl, disp, running);
      if (bl > 0) running += static_cast<std::size_t>(bl) * inner.size;
    }
  } else if (is(MPI_COMBINER_STRUCT)) {
    const int n = c.ints[0];
    std::size_t running = 0;
    f.packed_order = true;
    for (int i = 0; i < n && f.packed_order; ++i) {
      const auto k = static_cast<std::size_t>(i);
      const Facts &t = parts[k];
      f.packed_order = block_in_order(t, c.ints[1 + k], c.addrs[k], running);
      if (c.ints[1 + k] > 0) running += static_cast<std::size_t>(c.ints[1 + k]) * t.size;
    }
  } else {
    f.packed_order = false;  // subarray, darray, ...: packed by MPI's engine, always right
  }
  return f;
}

TypeInfo info_from(MPI_Datatype dt) {
  const Facts f = facts_of(dt);
  TypeInfo ti;
  ti.size = f.size;
  ti.extent = f.extent;
  ti.packed_order = f.packed_order || f.size == 0;
  ti.dense = ti.packed_order && (f.extent == static_cast<MPI_Aint>(f.size) || f.size == 0);
  int ni = 0, na = 0, nd = 0, combiner = 0;
  PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner);
  ti.predefined = combiner == MPI_COMBINER_NAMED;
  if (!f.mixed && f.base != MPI_DATATYPE_NULL) {
    int bs = 0;
    PMPI_Type_size(f.base, &bs);
    if (bs > 0 && f.size % static_cast<std::size_t>(bs) == 0) {
      ti.base = f.base;
      ti.base_size = static_cast<std::size_t>(bs);
      ti.base_per_elem = f.size / ti.base_size;
      MPI_Aint blb = 0;
      PMPI_Type_get_extent(f.base, &blb, &ti.base_extent);
    }
  }
  return ti;
}

// Derived datatypes' descriptions live in an attribute on the datatype (deleted with it).
int g_type_keyval = MPI_KEYVAL_INVALID;
bool g_type_keyval_failed = false;

int delete_info(MPI_Datatype, int, void *value, void *) {
  delete static_cast<TypeInfo *>(value);
  return MPI_SUCCESS;
}

}  // namespace

const TypeInfo &describe_type(MPI_Datatype dt) {
  // Predefined handles never change meaning: one process table (pcoll's calls are serialised).
  static std::unordered_map<MPI_Datatype, TypeInfo> named;
  auto it = named.find(dt);
  if (it != named.end()) return it->second;
  int ni = 0, na = 0, nd = 0, combiner = 0;
  PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner);
  if (combiner == MPI_COMBINER_NAMED) return named.emplace(dt, info_from(dt)).first->second;
  if (g_type_keyval == MPI_KEYVAL_INVALID && !g_type_keyval_failed)
    g_type_keyval_failed = PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_info,
                                                   &g_type_keyval, nullptr) != MPI_SUCCESS;
  if (!g_type_keyval_failed) {
    void *value = nullptr;
    int found = 0;
    if (PMPI_Type_get_attr(dt, g_type_keyval, &value, &found) == MPI_SUCCESS && found)
      return *static_cast<const TypeInfo *>(value);
    auto *ti = new TypeInfo(info_from(dt));
    if (PMPI_Type_set_attr(dt, g_type_keyval, ti) == MPI_SUCCESS) return *ti;
    delete ti;
  }
  // No attribute caching in this MPI: describe it anew (the slot lives until the next call).
  static TypeInfo uncached;
  uncached = info_from(dt);
  return uncached;
}

namespace {

// MPICH (4.0) refuses MPI_BOTTOM, its null pointer, as MPI_Pack's inbuf and MPI_Unpack's outbuf
// ("Null pointer in parameter inbuf") although the standard allows it with absolute addresses.
// So a call on MPI_BOTTOM names `anchor` (any non-null address of this process) instead, with a
// type that is `count` x `dt` displaced by -anchor: the same bytes at the same absolute
// addresses, in any MPI. `run` gets (buffer, count, datatype) to use.
template <class Run>
int at_bottom(const void *buf, int count, MPI_Datatype dt, const void *anchor, Run run) {
  if (buf != MPI_BOTTOM) return run(const_cast<void *>(buf), count, dt);
  MPI_Aint a = 0;
  int rc = PMPI_Get_address(anchor, &a);
  if (rc != MPI_SUCCESS) return rc;
  const MPI_Aint disp = -a;
  MPI_Datatype shifted = MPI_DATATYPE_NULL;
  rc = PMPI_Type_create_hindexed(1, &count, &disp, dt, &shifted);
  if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(&shifted);
  if (rc == MPI_SUCCESS) rc = run(const_cast<void *>(anchor), 1, shifted);
  if (shifted != MPI_DATATYPE_NULL) PMPI_Type_free(&shifted);
  return rc;
}

}  // namespace

int pack(const void *buf, int count, MPI_Datatype dt, void *out, std::size_t out_bytes,
         MPI_Comm comm) {
  if (count == 0 || out_bytes == 0) return MPI_SUCCESS;
  int pos = 0;
  return at_bottom(buf, count, dt, out, [&](void *b, int n, MPI_Datatype t) {
    return PMPI_Pack(b, n, t, out, static_cast<int>(out_bytes), &pos, comm);
  });
}

int unpack(const void *in, std::size_t in_bytes, void *buf, int count, MPI_Datatype dt,
           MPI_Comm comm) {
  if (count == 0 || in_bytes == 0) return MPI_SUCCESS;
  int pos = 0;
  return at_bottom(buf, count, dt, in, [&](void *b, int n, MPI_Datatype t) {
    return PMPI_Unpack(in, static_cast<int>(in_bytes), &pos, b, n, t, comm);
  });
}

int to_base_array(const void *buf, int count, MPI_Datatype dt, void *dst, int units,
                  MPI_Datatype base, void *tmp, MPI_Comm comm) {
  const TypeInfo &b = describe_type(base);
  const std::size_t bytes = static_cast<std::size_t>(units) * b.size;
  if (b.dense) return pack(buf, count, dt, dst, bytes, comm);
  const int rc = pack(buf, count, dt, tmp, bytes, comm);
  return rc == MPI_SUCCESS ? unpack(tmp, bytes, dst, units, base, comm) : rc;
}

int from_base_array(const void *src, int units, MPI_Datatype base, void *buf, int count,
                    MPI_Datatype dt, void *tmp, MPI_Comm comm) {
  const TypeInfo &b = describe_type(base);
  const std::size_t bytes = static_cast<std::size_t>(units) * b.size;
  if (b.dense) return unpack(src, bytes, buf, count, dt, comm);
  const int rc = pack(src, units, base, tmp, bytes, comm);
  return rc == MPI_SUCCESS ? unpack(tmp, bytes, buf, count, dt, comm) : rc;
}

const char *packing_problem() {
  static const char *problem = []() -> const char * {
    // Every other int of {11, -1, 22, -1, 33}: the packed form must be exactly {11, 22, 33}.
    MPI_Datatype strided = MPI_DATATYPE_NULL;
    PMPI_Type_vector(3, 1, 2, MPI_INT, &strided);
    PMPI_Type_commit(&strided);
    const int src[5] = {11, -1, 22, -1, 33};
    int packed[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int pos = 0, bound = 0;
    PMPI_Pack_size(1, strided, MPI_COMM_SELF, &bound);
    const int rc =
        PMPI_Pack(src, 1, strided, packed, static_cast<int>(sizeof packed), &pos, MPI_COMM_SELF);
    PMPI_Type_free(&strided);
    const int want[3] = {11, 22, 33};
    if (rc != MPI_SUCCESS || pos != static_cast<int>(sizeof want) ||
        std::memcmp(packed, want, sizeof want) != 0)
      return "this MPI library's MPI_Pack does not write the bare typemap bytes (a header or a "
             "conversion), which pcoll's packing of non-contiguous datatypes relies on";
    return "";
  }();
  return problem;
}

}  // namespace pcoll
