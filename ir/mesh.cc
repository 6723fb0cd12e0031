#include "ir/mesh.h"

#include <algorithm>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "ir/strings.h"

namespace hlo {
namespace {

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// `data` (row-major over `dims`) transposed by `perm`: result dimension i is
// source dimension perm[i].
std::vector<int64_t> Transpose(const std::vector<int64_t>& data, const std::vector<int64_t>& dims,
                               const std::vector<int64_t>& perm) {
  const size_t rank = dims.size();
  std::vector<int64_t> strides(rank), out_dims(rank), idx(rank, 0);
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    strides[i] = stride;
    stride *= dims[i];
  }
  for (size_t i = 0; i < rank; ++i) out_dims[i] = dims[perm[i]];
  std::vector<int64_t> out(data.size());
  for (size_t flat = 0; flat < out.size(); ++flat) {
    int64_t src = 0;
    for (size_t i = 0; i < rank; ++i) src += idx[i] * strides[perm[i]];
    out[flat] = data[src];
    for (size_t i = rank; i-- > 0;) {
      if (++idx[i] < out_dims[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}

// The size an axis reference's prefix spans (1 for a whole axis).
int64_t PreSize(const MeshAxisRef& r) { return r.is_sub_axis() ? r.pre_size : 1; }

// XLA's AxisRef::operator<: by axis, then by pre-size and size.
bool AxisLess(const MeshAxisRef& a, const MeshAxisRef& b) {
  if (a.axis != b.axis) return a.axis < b.axis;
  if (!a.is_sub_axis()) return PreSize(b) > 1;
  if (!b.is_sub_axis()) return a.pre_size == 1;
  if (a.pre_size != b.pre_size) return a.pre_size < b.pre_size;
  return a.size < b.size;
}

// Two references to the same axis can be used together: both sub-axes,
// apart, and the gap between them a whole number of the smaller step
// (AxisRef::CanCoexistWithoutOverlap).
bool CanCoexistWithoutOverlap(const MeshAxisRef& a, const MeshAxisRef& b) {
  if (a.axis != b.axis) return true;
  if (!a.is_sub_axis() || !b.is_sub_axis()) return false;
  const int64_t a_next = a.pre_size * a.size, b_next = b.pre_size * b.size;
  if (a_next > b.pre_size && b_next > a.pre_size) return false;
  return std::max(a.pre_size, b.pre_size) % std::min(a_next, b_next) == 0;
}

// `b` continues `a` (AxisRef::CanMerge): they should be written as one.
bool CanMerge(const MeshAxisRef& a, const MeshAxisRef& b) {
  return a.axis == b.axis && a.is_sub_axis() && b.is_sub_axis() &&
         a.pre_size * a.size == b.pre_size;
}

std::string RefText(const Mesh& mesh, const MeshAxisRef& r) {
  std::string s;
  AppendMeshAxisRef(s, mesh, r);
  return s;
}

// AxisRef::Validate.
std::string ValidateRef(const Mesh& mesh, const MeshAxisRef& r) {
  if (r.axis < 0 || r.axis >= static_cast<int64_t>(mesh.axis_sizes.size())) {
    return StrCat("axis index ", r.axis, " is out of range for a mesh of ", mesh.axis_sizes.size(),
                  " axes");
  }
  if (!r.is_sub_axis()) return "";
  const int64_t full = mesh.axis_sizes[r.axis];
  if (r.pre_size < 1 || r.size <= 1) {
    return StrCat("sub-axis ", RefText(mesh, r),
                  " needs a pre-size of at least 1 and a size "
                  "above 1");
  }
  // (pre-size times size may overflow: divided out one at a time.)
  if (r.pre_size > full || r.size > full || full % r.pre_size != 0 ||
      (full / r.pre_size) % r.size != 0) {
    return StrCat("sub-axis ", RefText(mesh, r), ": pre-size times size (", r.pre_size, "*", r.size,
                  ") must divide the axis size ", full);
  }
  if (r.size >= full) {
    return StrCat("sub-axis ", RefText(mesh, r), " must be smaller than the axis (size ", full,
                  ")");
  }
  return "";
}

// Each reference valid and apart from every one seen before on its axis;
// `what` names the list for messages.
std::string TrackAxes(const Mesh& mesh, const std::vector<MeshAxisRef>& axes, std::string_view what,
                      std::vector<MeshAxisRef>* seen) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (std::string e = ValidateRef(mesh, axes[i]); !e.empty()) return e;
    for (const MeshAxisRef& other : *seen) {
      if (!CanCoexistWithoutOverlap(axes[i], other)) {
        return StrCat("axes ", RefText(mesh, other), " and ", RefText(mesh, axes[i]),
                      " overlap (or cannot be used together)");
      }
    }
    seen->push_back(axes[i]);
    if (i > 0 && CanMerge(axes[i - 1], axes[i])) {
      return StrCat("adjacent axes ", RefText(mesh, axes[i - 1]), ", ", RefText(mesh, axes[i]),
                    " in ", what, " can be merged into one; write them as one axis");
    }
  }
  return "";
}

// Every axis of the mesh, in order, whole, except ones of size 1 that may be
// left out (Mesh::ContainsAllMeshAxesInOrder).
bool ContainsAllAxesInOrder(const Mesh& mesh, const std::vector<MeshAxisRef>& axes) {
  size_t k = 0;
  for (size_t i = 0; i < mesh.axis_sizes.size(); ++i) {
    if (k < axes.size() && axes[k].axis == static_cast<int64_t>(i)) {
      if (axes[k].is_sub_axis()) return false;
      ++k;
    } else if (mesh.axis_sizes[i] != 1) {
      return false;
    }
  }
  return k == axes.size();
}

void AppendRefs(std::string& out, const Mesh& mesh, const std::vector<MeshAxisRef>& refs,
                std::string_view separator) {
  for (size_t i = 0; i < refs.size(); ++i) {
    if (i) out += separator;
    AppendMeshAxisRef(out, mesh, refs[i]);
  }
}

std::string_view ReductionName(NamedSharding::Reduction r) {
  switch (r) {
    case NamedSharding::Reduction::kMax:
      return "max";
    case NamedSharding::Reduction::kMin:
      return "min";
    case NamedSharding::Reduction::kSum:
      break;
  }
  return "sum";
}

}  // namespace

std::vector<int64_t> TransposedIota(const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& perm) {
  std::vector<int64_t> iota(static_cast<size_t>(Product(dims)));
  std::iota(iota.begin(), iota.end(), 0);
  return Transpose(iota, dims, perm);
}

void CanonicalizeIota(std::vector<int64_t>* dims, std::vector<int64_t>* perm) {
  while (dims->size() > 1) {
    // Drop dimensions of size 1, renumbering the permutation.
    std::vector<int64_t> new_index(dims->size(), -1);
    std::vector<int64_t> kept_dims, kept_perm;
    for (size_t i = 0; i < dims->size(); ++i) {
      if ((*dims)[i] != 1) {
        new_index[i] = static_cast<int64_t>(kept_dims.size());
        kept_dims.push_back((*dims)[i]);
      }
    }
    for (int64_t p : *perm) {
      if (new_index[p] >= 0) kept_perm.push_back(new_index[p]);
    }
    *dims = std::move(kept_dims);
    *perm = std::move(kept_perm);
    // Merge runs of source dimensions that the permutation keeps adjacent
    // and in order into their first one (the others become 1 and go in the
    // next round).
    bool changed = false;
    for (size_t i = 1, base = 0; i < dims->size(); ++i) {
      if ((*perm)[base] + static_cast<int64_t>(i - base) == (*perm)[i]) {
        (*dims)[(*perm)[base]] *= (*dims)[(*perm)[i]];
        (*dims)[(*perm)[i]] = 1;
        changed = true;
      } else {
        base = i;
      }
    }
    if (!changed) break;
  }
  if (dims->empty()) {
    *dims = {1};
    *perm = {0};
  }
}

int64_t Mesh::device_count() const {
  if (maximal_device) return 1;
  if (axis_sizes.empty()) return 0;
  return Product(axis_sizes);
}

std::vector<int64_t> Mesh::Devices() const {
  if (maximal_device) return {*maximal_device};
  if (!device_ids.empty()) return device_ids;
  if (iota_reshape_dims.empty()) return TransposedIota({device_count()}, {0});
  return TransposedIota(iota_reshape_dims, iota_perm);
}

absl::StatusOr<std::vector<std::vector<int64_t>>> ExpandMeshReplicaGroups(
    const MeshReplicaGroups& groups, int64_t max_devices) {
  const Mesh& mesh = groups.mesh;
  if (std::string e = ValidateMesh(mesh); !e.empty()) return absl::InvalidArgumentError(e);
  if (std::string e = ValidateMeshAxes(mesh, groups.axes); !e.empty()) {
    return absl::InvalidArgumentError(e);
  }
  if (mesh.device_count() > max_devices) {
    return absl::InvalidArgumentError(
        StrCat("the mesh has ", mesh.device_count(), " devices, more than ", max_devices));
  }
  std::vector<int64_t> devices = mesh.Devices();
  // Each mesh axis becomes one dimension, or, when sub-axes of it are listed,
  // the dimensions [padding,] sub-axis, [padding,] sub-axis, ..., [rest]
  // that split it; `position[k]` is the dimension of groups.axes[k].
  const size_t rank = mesh.axis_sizes.size();
  std::vector<int64_t> dims, position(groups.axes.size(), -1);
  for (size_t a = 0; a < rank; ++a) {
    const int64_t full = mesh.axis_sizes[a];
    std::vector<size_t> on_axis;  // indices into groups.axes
    for (size_t k = 0; k < groups.axes.size(); ++k) {
      if (groups.axes[k].axis == static_cast<int64_t>(a)) on_axis.push_back(k);
    }
    if (on_axis.empty() || !groups.axes[on_axis[0]].is_sub_axis()) {
      // Untouched, or the whole axis (then it is the only reference).
      if (!on_axis.empty()) position[on_axis[0]] = static_cast<int64_t>(dims.size());
      dims.push_back(full);
      continue;
    }
    std::stable_sort(on_axis.begin(), on_axis.end(), [&](size_t x, size_t y) {
      return groups.axes[x].pre_size < groups.axes[y].pre_size;
    });
    int64_t covered = 1;
    for (size_t k : on_axis) {
      const MeshAxisRef& r = groups.axes[k];
      if (r.pre_size != covered) {
        dims.push_back(r.pre_size / covered);
        covered = r.pre_size;
      }
      position[k] = static_cast<int64_t>(dims.size());
      dims.push_back(r.size);
      covered *= r.size;
    }
    if (covered != full) dims.push_back(full / covered);
  }
  // The other dimensions first, then the grouped ones in the order listed.
  std::vector<int64_t> perm;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (std::find(position.begin(), position.end(), static_cast<int64_t>(d)) == position.end()) {
      perm.push_back(static_cast<int64_t>(d));
    }
  }
  perm.insert(perm.end(), position.begin(), position.end());
  std::vector<int64_t> order = dims.empty() ? devices : Transpose(devices, dims, perm);
  int64_t per_group = 1;
  for (const MeshAxisRef& r : groups.axes) per_group *= mesh.Size(r);
  std::vector<std::vector<int64_t>> out;
  for (size_t i = 0; i + per_group <= order.size(); i += per_group) {
    out.emplace_back(order.begin() + i, order.begin() + i + per_group);
  }
  return out;
}

void AppendMesh(std::string& out, const Mesh& mesh) {
  if (mesh.maximal_device) {
    StrAppend(&out, "maximal_mesh[device_id=", *mesh.maximal_device, "]");
    return;
  }
  out += "mesh[";
  for (size_t i = 0; i < mesh.axis_sizes.size(); ++i) {
    if (i) out += ',';
    StrAppend(&out, "'", mesh.axis_names[i], "'=", mesh.axis_sizes[i]);
  }
  out += ']';
  if (!mesh.iota_reshape_dims.empty()) {
    StrAppend(&out, ", device_ids=([", StrJoin(mesh.iota_reshape_dims, ","), "]T(",
              StrJoin(mesh.iota_perm, ","), "))");
  } else if (!mesh.device_ids.empty()) {
    StrAppend(&out, ", device_ids=(", StrJoin(mesh.device_ids, ","), ")");
  }
}

void AppendMeshAxisRef(std::string& out, const Mesh& mesh, const MeshAxisRef& ref) {
  out += '\'';
  if (ref.axis >= 0 && ref.axis < static_cast<int64_t>(mesh.axis_names.size())) {
    out += mesh.axis_names[ref.axis];
  } else {
    StrAppend(&out, ref.axis);
  }
  out += '\'';
  if (ref.is_sub_axis()) StrAppend(&out, ":(", ref.pre_size, ")", ref.size);
}

void AppendMeshReplicaGroups(std::string& out, const MeshReplicaGroups& groups) {
  AppendMesh(out, groups.mesh);
  out += " {";
  AppendRefs(out, groups.mesh, groups.axes, ",");
  out += '}';
}

void AppendNamedSharding(std::string& out, const NamedSharding& s) {
  const Mesh& mesh = s.mesh;
  AppendMesh(out, mesh);
  if (mesh.maximal_device) return;
  bool replicated = s.unreduced.empty() && s.manual.empty();
  for (const NamedSharding::Dim& d : s.dims) {
    int64_t n = 1;
    for (const MeshAxisRef& r : d.axes) n *= mesh.Size(r);
    replicated &= n == 1;
  }
  // XLA's shorthands for a sharding with no dimensions listed.
  if (s.dims.empty()) {
    if (replicated && s.replicated.empty()) {
      out += ", replicated";
      return;
    }
    if (!s.unreduced.empty() && ContainsAllAxesInOrder(mesh, s.unreduced)) {
      out += ", unreduced";
      if (s.reduction != NamedSharding::Reduction::kSum) {
        StrAppend(&out, "=", ReductionName(s.reduction));
      }
      if (s.unreduced.size() < mesh.axis_sizes.size()) {
        out += '{';
        AppendRefs(out, mesh, s.unreduced, ", ");
        out += '}';
      }
      return;
    }
    if (!s.manual.empty() && ContainsAllAxesInOrder(mesh, s.manual)) {
      out += ", manual";
      return;
    }
  }
  out += ", [";
  for (size_t i = 0; i < s.dims.size(); ++i) {
    if (i) out += ", ";
    const NamedSharding::Dim& d = s.dims[i];
    out += '{';
    AppendRefs(out, mesh, d.axes, ", ");
    if (!d.closed) out += d.axes.empty() ? "?" : ", ?";
    out += '}';
  }
  out += ']';
  if (!s.replicated.empty()) {
    out += ", replicated={";
    AppendRefs(out, mesh, s.replicated, ", ");
    out += '}';
  }
  if (!s.unreduced.empty()) {
    out += ", unreduced=";
    if (s.reduction != NamedSharding::Reduction::kSum) out += ReductionName(s.reduction);
    out += '{';
    AppendRefs(out, mesh, s.unreduced, ", ");
    out += '}';
  }
  if (!s.manual.empty()) {
    out += ", manual={";
    AppendRefs(out, mesh, s.manual, ", ");
    out += '}';
  }
}

std::string ValidateMesh(const Mesh& mesh) {
  if (mesh.maximal_device) {
    return *mesh.maximal_device < 0
               ? StrCat("maximal_mesh device_id ", *mesh.maximal_device, " is negative")
               : "";
  }
  for (size_t i = 0; i < mesh.axis_names.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (mesh.axis_names[i] == mesh.axis_names[j]) {
        return StrCat("the mesh names axis '", mesh.axis_names[i], "' twice");
      }
    }
  }
  if (mesh.device_ids.empty()) return "";
  std::vector<int64_t> sorted = mesh.device_ids;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<int64_t>(i)) {
      return StrCat("mesh device_ids must be a permutation of 0..", sorted.size() - 1);
    }
  }
  if (sorted == mesh.device_ids) {
    return "mesh device_ids 0,1,2,... in order are the default: leave device_ids out";
  }
  return "";
}

std::string ValidateMeshAxes(const Mesh& mesh, const std::vector<MeshAxisRef>& axes) {
  std::vector<MeshAxisRef> seen;
  return TrackAxes(mesh, axes, "the replica groups", &seen);
}

std::string ValidateNamedSharding(const NamedSharding& s) {
  if (std::string e = ValidateMesh(s.mesh); !e.empty()) return e;
  std::vector<MeshAxisRef> seen;
  for (const NamedSharding::Dim& d : s.dims) {
    if (std::string e = TrackAxes(s.mesh, d.axes, "a dimension sharding", &seen); !e.empty()) {
      return e;
    }
  }
  const std::pair<const std::vector<MeshAxisRef>*, std::string_view> lists[] = {
      {&s.replicated, "replicated"}, {&s.unreduced, "unreduced"}, {&s.manual, "manual"}};
  for (const auto& [list, name] : lists) {
    if (!std::is_sorted(list->begin(), list->end(), AxisLess)) {
      return StrCat("the ", name, " axes must be sorted by mesh axis and sub-axis pre-size");
    }
    if (std::string e = TrackAxes(s.mesh, *list, StrCat(name, " axes"), &seen); !e.empty()) {
      return e;
    }
  }
  return "";
}

}  // namespace hlo
